"""contrib classes that build their entries themselves, in ``_urls()`` or ``get_urls()``.

The shapes of real projects' ``sitemaps.py`` (djangoproject.com's weblog and
docs sitemaps): an ``_urls()`` that rewrites what contrib made of each item,
and a ``get_urls()`` that adds entries of its own. contrib's views serve them
under ``/contrib/``, sitemapkit's at ``/``, the pages under ``i18n_patterns``.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django.conf.urls.i18n import i18n_patterns
from django.contrib import sitemaps
from django.urls import path

from tests.testapp.models import Entry
from tests.urls_contrib import pages, sitemap_urls


class WeblogSitemap(sitemaps.Sitemap):
    """``_urls()`` drops changefreq from every entry and writes priority as text."""

    changefreq = "never"
    priority = 0.4
    limit = 4

    def items(self) -> Any:
        return Entry.objects.filter(is_draft=False).order_by("slug")

    def lastmod(self, obj: Entry) -> Any:
        return obj.pub_date

    def _urls(self, page: Any, protocol: str, domain: str) -> list[dict[str, Any]]:
        urls = super()._urls(page, protocol, domain)  # type: ignore[misc]
        for url in urls:
            url.pop("changefreq")
            url["priority"] = "%.1f" % (0.5 + 0.1 * (url["item"].pk % 4))
        return list(urls)


class DocsSitemap(sitemaps.Sitemap):
    """``get_urls()`` adds each entry's feed, with Decimal priorities and alternates."""

    i18n = True
    alternates = True
    x_default = True
    changefreq = "Weekly"
    limit = 12

    def items(self) -> Any:
        return Entry.objects.filter(is_draft=False).order_by("pk")

    def lastmod(self, obj: Entry) -> Any:
        return obj.pub_date

    def priority(self, obj: Entry) -> Decimal:
        return Decimal("0.6")

    def get_urls(self, page: Any = 1, site: Any = None, protocol: Any = None) -> list[Any]:
        urls = super().get_urls(page=page, site=site, protocol=protocol)
        feeds = [
            {**url, "location": url["location"] + "feed/", "alternates": [], "priority": 0.3}
            for url in urls
            if has_feed(url["item"][0])
        ]
        return [*urls, *feeds]


def has_feed(entry: Entry) -> bool:
    """Every other entry, by its slug (primary keys depend on the database's sequences)."""
    return int(entry.slug.removeprefix("post-")) % 2 == 0


SITEMAPS: dict[str, Any] = {"weblog": WeblogSitemap, "docs": DocsSitemap}

urlpatterns = [
    *sitemap_urls(SITEMAPS),
    *i18n_patterns(*pages(), path("blog/<slug:slug>/feed/", pages()[-1].callback)),
]
