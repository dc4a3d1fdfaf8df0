"""A project with contrib's views beside sitemapkit's, optionally under ``i18n_patterns``.

``tests/urls_i18n.py`` and ``tests/urls_i18n_unprefixed.py`` put the pages
under ``i18n_patterns``; this one does not.
"""

from typing import Any

from django.contrib.sitemaps import views as contrib_views
from django.urls import URLPattern, URLResolver, include, path
from django.views.generic import TemplateView

from tests.contrib_sitemaps import SITEMAPS
from tests.testapp import views


def pages() -> list[URLPattern | URLResolver]:
    return [
        path("", TemplateView.as_view(template_name="testapp/home.html"), name="main"),
        path("about/", TemplateView.as_view(template_name="testapp/about.html"), name="about"),
        path("license/", views.detail, name="license"),
        path("blog/<slug:slug>/", views.detail, name="entry-detail"),
    ]


def sitemap_urls(sitemaps: dict[str, Any] = SITEMAPS) -> list[URLPattern | URLResolver]:
    """contrib's views of ``sitemaps`` under ``/contrib/``, sitemapkit's at ``/``."""
    return [
        path(
            "contrib/sitemap.xml",
            contrib_views.index,
            {"sitemaps": sitemaps, "sitemap_url_name": "contrib-sitemap"},
        ),
        path(
            "contrib/sitemap-<section>.xml",
            contrib_views.sitemap,
            {"sitemaps": sitemaps},
            name="contrib-sitemap",
        ),
        path("", include("django_sitemapkit.urls")),
    ]


urlpatterns = sitemap_urls() + pages()
