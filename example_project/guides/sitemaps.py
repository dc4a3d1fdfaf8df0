"""The guides' sitemaps, written the django.contrib.sitemaps way.

Nothing here is sitemapkit's but the last call: plain ``django.contrib.sitemaps``
classes, as a project using contrib's views would have them, and the
``sitemaps`` dict those views take, registered with ``register_sitemaps()``.
django_sitemapkit's autodiscovery imports this module at startup, as it does
``demo/sitemaps.py``.
"""

from django.contrib.sitemaps import GenericSitemap, Sitemap
from django.urls import reverse

import django_sitemapkit as sitemapkit

from .models import Guide, Topic


class GuideSitemap(Sitemap):
    """Every published guide, once per language, each entry linking to the others."""

    changefreq = "monthly"
    priority = 0.7
    i18n = True  # one <url> per language of settings.LANGUAGES (en, fr, de)
    alternates = True  # each with <xhtml:link rel="alternate" hreflang="..."> to all three
    x_default = True  # and hreflang="x-default": the URL without a language prefix

    def items(self):
        return Guide.objects.filter(is_draft=False).order_by("pk")

    def lastmod(self, guide):
        return guide.pub_date


class GuidePagesSitemap(Sitemap):
    """The guides' static pages, in every language (contrib's static-view recipe)."""

    changefreq = "daily"
    priority = 0.8
    i18n = True
    alternates = True

    def items(self):
        return ["guides:guide-list"]

    def location(self, item):
        return reverse(item)


sitemapkit.register_sitemaps(
    {
        "guides": GuideSitemap,
        "guide-pages": GuidePagesSitemap,
        # Not i18n: listed in the site's default language only (/en/guides/topics/...).
        "topics": GenericSitemap(
            {"queryset": Topic.objects.order_by("pk"), "date_field": "updated_at"},
            priority=0.5,
            changefreq="weekly",
        ),
    }
)
