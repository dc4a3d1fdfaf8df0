"""Wagtail's pages under ``i18n_patterns``, its sitemap views at ``/contrib/``, sitemapkit's at ``/``."""

from typing import Any

from django.conf.urls.i18n import i18n_patterns
from django.urls import include, path
from wagtail import urls as wagtail_urls
from wagtail.contrib.sitemaps import Sitemap
from wagtail.contrib.sitemaps import views as wagtail_views


class SmallPages(Sitemap):
    """Wagtail's class, paged by its paginator: two pages a file."""

    limit = 2


SITEMAPS: dict[str, Any] = {"pages": Sitemap, "small": SmallPages}

urlpatterns = [
    path(
        "contrib/sitemap.xml",
        wagtail_views.index,
        {"sitemaps": SITEMAPS, "sitemap_url_name": "contrib-sitemap"},
    ),
    path(
        "contrib/sitemap-<section>.xml",
        wagtail_views.sitemap,
        {"sitemaps": SITEMAPS},
        name="contrib-sitemap",
    ),
    path("", include("django_sitemapkit.urls")),
    *i18n_patterns(path("", include(wagtail_urls))),
]
