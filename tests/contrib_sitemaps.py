"""A project's ``sitemaps.py`` as Django's documentation writes it, and the same classes on sitemapkit.

The ``django.contrib.sitemaps`` classes are the documentation's examples
(https://docs.djangoproject.com/en/5.2/ref/contrib/sitemaps/); the
``Rebased*`` ones are the same bodies with sitemapkit's base classes.
"""

from __future__ import annotations

from typing import Any

from django.contrib import sitemaps
from django.contrib.sitemaps import GenericSitemap
from django.urls import reverse

import django_sitemapkit as sitemapkit
from tests.testapp.models import Entry


class BlogSitemap(sitemaps.Sitemap):
    changefreq = "never"
    priority = 0.5

    def items(self) -> Any:
        return Entry.objects.filter(is_draft=False)

    def lastmod(self, obj: Entry) -> Any:
        return obj.pub_date


class StaticViewSitemap(sitemaps.Sitemap):
    priority = 0.5
    changefreq = "daily"

    def items(self) -> Any:
        return ["main", "about", "license"]

    def location(self, item: Any) -> str:
        return reverse(item)


class I18nBlogSitemap(BlogSitemap):
    i18n = True
    alternates = True
    x_default = True


# The documentation lists Entry.objects.all(); published entries make "no draft" testable.
info_dict = {"queryset": Entry.objects.filter(is_draft=False), "date_field": "pub_date"}

#: The dict a contrib project passes to its views.
SITEMAPS: dict[str, Any] = {
    "blog": BlogSitemap,
    "static": StaticViewSitemap,
    "entries": GenericSitemap(info_dict, priority=0.6, changefreq="weekly"),
    "i18n": I18nBlogSitemap,
}


class RebasedBlogSitemap(sitemapkit.ModelSitemap):
    changefreq = "never"
    priority = 0.5

    def items(self) -> Any:
        return Entry.objects.filter(is_draft=False)

    def lastmod(self, obj: Entry) -> Any:
        return obj.pub_date


class RebasedStaticViewSitemap(sitemapkit.StaticViewSitemap):
    priority = 0.5
    changefreq = "daily"

    def items(self) -> Any:
        return ["main", "about", "license"]

    def location(self, item: Any) -> str:
        return reverse(item)


class RebasedGenericSitemap(sitemapkit.ModelSitemap):
    lastmod_field = "pub_date"
    priority = 0.6
    changefreq = "weekly"

    def get_queryset(self) -> Any:
        return Entry.objects.filter(is_draft=False)


class RebasedI18nBlogSitemap(RebasedBlogSitemap):
    i18n = True
    alternates = True
    x_default = True


REBASED: dict[str, Any] = {
    "blog": RebasedBlogSitemap,
    "static": RebasedStaticViewSitemap,
    "entries": RebasedGenericSitemap,
    "i18n": RebasedI18nBlogSitemap,
}
