"""Wagtail's pages under ``i18n_patterns``, its sitemap views at ``/contrib/``, sitemapkit's at ``/``."""

from typing import Any

from django.conf.urls.i18n import i18n_patterns
from django.urls import include, path
from wagtail import urls as wagtail_urls
from wagtail.contrib.sitemaps import Sitemap
from wagtail.contrib.sitemaps import views as wagtail_views
from wagtail.models import Site as WagtailSite


class SmallPages(Sitemap):
    """Wagtail's class, paged by its paginator: two pages a file."""

    limit = 2


class BlogPages(Sitemap):
    """The pages of the Wagtail ``Site`` on blog.example.com (docs/migrating.md's recipe)."""

    def get_wagtail_site(self) -> Any:
        return WagtailSite.objects.get(hostname="blog.example.com")


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
