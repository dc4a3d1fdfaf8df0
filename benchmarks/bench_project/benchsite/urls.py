from django.contrib.sitemaps import views as contrib_views
from django.urls import include, path

from bench import views
from bench.contrib import CONTRIB_SITEMAPS

urlpatterns = [
    path("articles/<slug:slug>/", views.article, name="bench-article"),
    # django.contrib.sitemaps, away from django-sitemapkit's /sitemap.xml
    path(
        "contrib/sitemap.xml",
        contrib_views.index,
        {"sitemaps": CONTRIB_SITEMAPS, "sitemap_url_name": "contrib-sitemap-section"},
        name="contrib-sitemap-index",
    ),
    path(
        "contrib/sitemap-<section>.xml",
        contrib_views.sitemap,
        {"sitemaps": CONTRIB_SITEMAPS},
        name="contrib-sitemap-section",
    ),
    path("", include("django_sitemapkit.urls")),
]
