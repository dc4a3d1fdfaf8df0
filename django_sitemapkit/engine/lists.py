"""Paging list sections: every section that is not a ``ModelSitemap``.

``items()`` returning a QuerySet (what ``django.contrib.sitemaps`` classes
and ``GenericSitemap`` return) is paged as contrib's paginator pages it, by
count: page *n* is one slice of the QuerySet, one query, whatever its size.
Any other sequence (static pages, a list built from settings) is small, so
every entry is measured and pages are cut by count *and* bytes, which keeps
each page's items the same between the index and the page.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from django.db.models import Count, Max, QuerySet

from django_sitemapkit.engine.alternates import LanguageEntries
from django_sitemapkit.engine.entries import EntryFactory, RenderContext, entry_factory, new_writer
from django_sitemapkit.engine.internals import CHUNK_SIZE
from django_sitemapkit.engine.keyranges import PageFigures
from django_sitemapkit.engine.pages import PageNotFound
from django_sitemapkit.engine.rows import rows_per_page
from django_sitemapkit.engine.siteitems import narrowed
from django_sitemapkit.engine.skiplog import new_page
from django_sitemapkit.protocol.w3c import Lastmod, later
from django_sitemapkit.sitemaps import Sitemap

logger = logging.getLogger("django_sitemapkit")


def ordered(queryset: QuerySet[Any]) -> QuerySet[Any]:
    """``queryset`` in a fixed order: unordered, it could give a row to two pages, or to none."""
    return queryset if queryset.ordered else queryset.order_by("pk")


def listed_items(sitemap: Sitemap) -> Sequence[Any] | QuerySet[Any]:
    """The items ``sitemap`` lists now: its ``items()``, narrowed by the engine's rules."""
    return narrowed(sitemap, sitemap.items())


def page_figures(sitemap: Sitemap, context: RenderContext) -> list[PageFigures]:
    """Every non-empty page of the list section, with its item count and newest lastmod."""
    items = listed_items(sitemap)
    tz = context.tz
    if not isinstance(items, QuerySet):
        cuts = list_cuts(sitemap, context, items)
        return [
            PageFigures.of(number, cut.end - cut.start, cut.newest, tz, undated=cut.undated)
            for number, cut in enumerate(cuts, start=1)
        ]
    queryset = ordered(items)
    per_page = rows_per_page(sitemap)
    count = queryset.count()
    pages = -(-count // per_page)
    lastmods = _slice_lastmods(sitemap, queryset, per_page, pages, context)
    return [
        PageFigures.of(
            number,
            min(per_page, count - (number - 1) * per_page),
            newest,
            tz,
            undated=undated,
        )
        for number, (newest, undated) in enumerate(lastmods, start=1)
    ]


def page_items(sitemap: Sitemap, number: int, context: RenderContext) -> Iterator[tuple[Any, Any]]:
    """(position, item) of each item of page ``number``; PageNotFound when there is none."""
    items = listed_items(sitemap)
    if isinstance(items, QuerySet):
        new_page(sitemap.section)
        per_page = rows_per_page(sitemap)
        start = (number - 1) * per_page
        page = list(ordered(items)[start : start + per_page])
        if not page:
            raise PageNotFound(number)
        yield from enumerate(page, start)
        return
    cuts = list_cuts(sitemap, context, items)
    if not 1 <= number <= len(cuts):
        raise PageNotFound(number)
    cut = cuts[number - 1]
    for index in range(cut.start, cut.end):
        yield index, items[index]


def queryset_page(sitemap: Sitemap, number: int) -> QuerySet[Any] | None:
    """The items of page ``number`` of a QuerySet section; None for any other list."""
    items = listed_items(sitemap)
    if not isinstance(items, QuerySet):
        return None
    per_page = rows_per_page(sitemap)
    start = (number - 1) * per_page
    return ordered(items)[start : start + per_page]


def _slice_lastmods(
    sitemap: Sitemap, queryset: QuerySet[Any], per_page: int, pages: int, context: RenderContext
) -> list[tuple[Lastmod | None, bool]]:
    """The newest lastmod of each page of a QuerySet section, and whether an item has none."""
    lastmod = sitemap.lastmod
    if not callable(lastmod):
        return [(lastmod, lastmod is None)] * pages
    date_field = getattr(sitemap, "date_field", None)
    if isinstance(date_field, str):
        # GenericSitemap's date_field: one aggregate per page, in SQL.
        slices = [queryset[(n - 1) * per_page : n * per_page] for n in range(1, pages + 1)]
        figures = [
            page.aggregate(newest=Max(date_field), dated=Count(date_field), rows=Count("*"))
            for page in slices
        ]
        return [(f["newest"], f["dated"] < f["rows"]) for f in figures]
    newest: list[Lastmod | None] = [None] * pages
    undated = [False] * pages
    for position, item in enumerate(queryset.iterator(chunk_size=CHUNK_SIZE)):
        page = position // per_page
        try:
            value = lastmod(item)
            newest[page] = later(newest[page], value, context.tz)
        except Exception:  # rendering the page logs what is wrong with it
            value = None
        undated[page] = undated[page] or value is None
    return list(zip(newest, undated, strict=True))


@dataclass(frozen=True)
class Cut:
    """One page of a list: items ``start`` to ``end``, the newest lastmod of its entries,
    and whether an entry has none."""

    start: int
    end: int
    newest: Lastmod | None
    undated: bool


def list_cuts(sitemap: Sitemap, context: RenderContext, items: Sequence[Any]) -> list[Cut]:
    """Each page of a list, measured entry by entry."""
    factory = entry_factory(sitemap, context)
    languages = LanguageEntries(sitemap, factory) if sitemap.i18n else None
    cuts: list[Cut] = []
    writer = new_writer(sitemap, context.stylesheet)
    start = 0
    newest: Lastmod | None = None
    undated = False
    for index, item in enumerate(items):
        xml, locs = item_entries(factory, languages, item, writer.locs)
        if xml is None:
            continue
        if not writer.add_xml(xml, entries=len(locs)):
            cuts.append(Cut(start, index, newest, undated))
            writer, start, newest = new_writer(sitemap, context.stylesheet), index, None
            undated = False
            writer.add_xml(xml, entries=len(locs))
        writer.locs.update(locs)
        newest = later(newest, factory.last_lastmod, context.tz)
        undated = undated or factory.last_lastmod is None
    if writer.count:
        cuts.append(Cut(start, len(items), newest, undated))
    return cuts


def item_entries(
    factory: EntryFactory, languages: LanguageEntries | None, item: Any, listed: set[str]
) -> tuple[str | None, list[str]]:
    """The XML of ``item``'s entries and their locations; (None, []) when it is skipped."""
    if languages is not None:
        xml = languages(item, listed)
        return xml, languages.locs
    xml = factory(item)
    if xml is None:
        return None, []
    loc = factory.last_loc
    if loc in listed:
        factory.skip_duplicate(item, loc)
        return None, []
    return xml, [loc]
