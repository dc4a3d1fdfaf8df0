"""The URLconf of the i18n contenders: the article page under ``i18n_patterns``.

No LocaleMiddleware: nothing is rendered but the sitemaps, which reverse the
article URLs in each language themselves.
"""

from django.conf.urls.i18n import i18n_patterns
from django.contrib.sitemaps import views as contrib_views
from django.urls import include, path

from bench import views
from bench.contrib import CONTRIB_I18N_SITEMAPS

urlpatterns = [
    # django.contrib.sitemaps, away from django-sitemapkit's /sitemap.xml
    path(
        "contrib/sitemap.xml",
        contrib_views.index,
        {"sitemaps": CONTRIB_I18N_SITEMAPS, "sitemap_url_name": "contrib-sitemap-section"},
        name="contrib-sitemap-index",
    ),
    path(
        "contrib/sitemap-<section>.xml",
        contrib_views.sitemap,
        {"sitemaps": CONTRIB_I18N_SITEMAPS},
        name="contrib-sitemap-section",
    ),
    path("", include("django_sitemapkit.urls")),
    *i18n_patterns(path("articles/<slug:slug>/", views.article, name="bench-article")),
]
