"""django.contrib.sitemaps over the same rows: limit 50,000, lastmod from updated_at.

``CONTRIB_SITEMAPS`` serves ``benchsite.urls``; ``CONTRIB_I18N_SITEMAPS``
serves ``benchsite.urls_i18n`` (``settings_i18n``: en, fr, de): every article
once per language, with alternates and x-default.
"""

from django.contrib.sitemaps import GenericSitemap

from bench.models import BenchArticle

CONTRIB_SITEMAPS = {
    "articles": GenericSitemap(
        {
            "queryset": BenchArticle.objects.filter(published=True).order_by("pk"),
            "date_field": "updated_at",
        },
        protocol="https",
    ),
}


class I18nArticleSitemap(GenericSitemap):
    """contrib's i18n API: pages of (article, language) pairs, 50,000 a page."""

    i18n = True
    alternates = True
    x_default = True
    limit = 50_000


CONTRIB_I18N_SITEMAPS = {
    "articles": I18nArticleSitemap(
        {
            "queryset": BenchArticle.objects.filter(published=True).order_by("pk"),
            "date_field": "updated_at",
        },
        protocol="https",
    ),
}
