"""Entries a contrib class builds itself, in ``get_urls()`` or ``_urls()`` (compat.py).

Each of its pages is one file, and each dict ``get_urls()`` returns one
``<url>``: ``location``, ``lastmod``, ``changefreq`` and ``priority`` go
through the same rules as any section's values (escaping, IRI to URI, one
host and scheme, no duplicate in a file), and each of ``alternates``
(``location`` and ``lang_code``, ``x-default`` included) becomes an
``<xhtml:link>``.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Mapping
from operator import itemgetter
from typing import Any

from django_sitemapkit.compat import ContribUrlsSection
from django_sitemapkit.engine.entries import EntryFactory, ItemAccess, RenderContext
from django_sitemapkit.engine.pages import PageNotFound
from django_sitemapkit.protocol.locations import InvalidLocation
from django_sitemapkit.protocol.writer import escape, needs_escape

logger = logging.getLogger("django_sitemapkit")

ACCESS = ItemAccess(
    location=itemgetter("location"),
    lastmod=lambda info: info.get("lastmod"),
    changefreq=lambda info: info.get("changefreq"),
    priority=lambda info: info.get("priority"),
    describe=lambda info: repr(info.get("location")),
)


def page_items(
    sitemap: ContribUrlsSection, number: int, context: RenderContext
) -> Iterator[tuple[int, Mapping[str, Any]]]:
    """(position, entry dict) of each entry of contrib's page ``number``."""
    if number not in sitemap.page_numbers():
        raise PageNotFound(number)
    scheme, _, rest = context.locations.base_url.partition("://")
    try:
        infos = sitemap.url_infos(number, scheme, rest.partition("/")[0])
    except Exception as exc:  # a project's get_urls() may raise anything
        logger.error(
            "Sitemap section %r: page %d is not listed: get_urls() raised %s: %s.",
            sitemap.section,
            number,
            type(exc).__name__,
            exc,
        )
        raise PageNotFound(number) from exc
    yield from enumerate(infos)


class UrlInfoFactory(EntryFactory):
    """An ``EntryFactory`` for entry dicts: the alternates they name become links."""

    def _element(self, item: Any, loc: str, lastmod_xml: str) -> str:
        details = self.details(item, self.links(item))
        if needs_escape(loc):
            loc = escape(loc)
        return f"<url><loc>{loc}</loc>{lastmod_xml}{details}</url>\n"

    def links(self, info: Mapping[str, Any]) -> str:
        """The ``<xhtml:link>`` of each alternate; one whose location is refused is left out."""
        links = []
        for alternate in info.get("alternates") or ():
            code = str(alternate.get("lang_code") or "")
            try:
                href = self.build_location(alternate.get("location"))
            except InvalidLocation as exc:
                logger.warning(
                    "Sitemap section %r: left out the %r alternate of %s: %s.",
                    self.sitemap.section,
                    code,
                    self.access.describe(info),
                    exc,
                )
                continue
            links.append(
                f'<xhtml:link rel="alternate" hreflang="{escape(code)}" href="{escape(href)}"/>'
            )
        return "".join(links)
