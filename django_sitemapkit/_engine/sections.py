"""Paging and rendering a section: a model's by key range (pages.py, rows.py), a list's by entry."""

from __future__ import annotations

import datetime
import itertools
import logging
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Any

from django.db.models import Count, Max, QuerySet

from django_sitemapkit._compat import ContribUrlsSection
from django_sitemapkit._engine import rows
from django_sitemapkit._engine.entries import (
    EntryFactory,
    RenderContext,
    entry_factory,
    new_writer,
    url_infos,
)
from django_sitemapkit._engine.fastloop import FastLoop
from django_sitemapkit._engine.internals import CHUNK_SIZE
from django_sitemapkit._engine.keyranges import PageFigures
from django_sitemapkit._engine.pages import Page, PageNotFound, on_current_site
from django_sitemapkit._engine.skiplog import new_page
from django_sitemapkit._protocol.w3c import Lastmod, later, to_aware
from django_sitemapkit._protocol.writer import UrlsetWriter
from django_sitemapkit._sitemaps import ModelSitemap, Sitemap

logger = logging.getLogger("django_sitemapkit")


@dataclass
class RenderedPage:
    content: bytes
    url_count: int
    skipped: int
    lastmod: datetime.datetime | None
    overflowed: bool = False  # split: a new page now holds the rest
    pages_recut: bool = False  # by this split or another process's: the index is out of date
    lastmods_dropped: int = 0  # entries listed without a lastmod that could not be written
    images_dropped: int = 0  # past Google's 1,000 per URL, or not URLs
    excluded: int = 0  # items is_indexable() left out

    @property
    def every_entry_dated(self) -> bool:
        """Whether every entry is dated: only then does the newest move with any change."""
        return self.lastmod is not None and self.content.count(b"<lastmod>") == self.url_count


def fingerprints_reliable(sitemap: Sitemap) -> bool:
    """Whether unchanged figures mean an unchanged page: a model's lastmod field (saves move it)."""
    return isinstance(sitemap, ModelSitemap) and sitemap.get_lastmod_field() is not None


def page_figures(sitemap: Sitemap, context: RenderContext) -> list[PageFigures]:
    """Every non-empty page with its figures: the one source of a page's index ``<lastmod>``,
    live and built. A lastmod field is read in SQL: a row a render skips still dates its page."""
    if isinstance(sitemap, ModelSitemap):
        figures = rows.keyset_pages(sitemap).figures(context.tz)
        if sitemap.defines_lastmod():
            figures = _dated_by_method(sitemap, figures, context.tz)
        return figures
    if isinstance(sitemap, ContribUrlsSection):
        return _rendered_figures(sitemap, context)
    return list_figures(sitemap, context)


def listing(
    sitemap: Sitemap, context: RenderContext, figures: list[PageFigures]
) -> list[PageFigures]:
    """The pages of ``figures`` that list a URL: what the index names. A page counted without
    rendering it (a model's, a QuerySet's) is probed for its first entry: none answers 404."""
    if isinstance(sitemap, ModelSitemap):
        numbers = pages_listing(sitemap, context, [f.number for f in figures])
        return [f for f in figures if f.number in numbers]
    if isinstance(sitemap, ContribUrlsSection) or not figures:
        return figures
    items = on_current_site(sitemap, sitemap.items())
    if not isinstance(items, QuerySet):
        return figures
    return [
        f
        for f in figures
        if lists_an_entry(sitemap, context, _chunks(_slice(sitemap, items, f.number)))
    ]


def _dated_by_method(
    sitemap: ModelSitemap, figures: list[PageFigures], tz: datetime.tzinfo
) -> list[PageFigures]:
    lastmod = rows.instance_lastmod(sitemap)
    dated = []
    for page in figures:
        items = (obj for _key, obj in rows.page_items(sitemap, page.number))
        newest, undated = _newest(lastmod, items, tz)
        dated.append(replace(page, newest=None if undated else newest))
    return dated


def _newest(
    lastmod: Callable[[Any], Any], items: Iterable[Any], tz: datetime.tzinfo
) -> tuple[Lastmod | None, bool]:
    """The newest ``lastmod(item)`` of ``items``, and whether one has none."""
    newest: Lastmod | None = None
    undated = False
    for item in items:
        try:
            value = lastmod(item)
            newest = later(newest, value, tz)
        except Exception:  # rendering the page logs what is wrong with it
            value = None
        undated = undated or value is None
    return newest, undated


def _rendered_figures(sitemap: ContribUrlsSection, context: RenderContext) -> list[PageFigures]:
    """Each page of contrib's paginator that lists a URL, rendered: only that tells."""
    figures = []
    for number in sitemap.page_numbers():
        try:
            page = render_sitemap_page(sitemap, number, context)
        except PageNotFound:
            continue
        undated = not page.every_entry_dated
        figures.append(
            PageFigures.of(number, page.url_count, page.lastmod, context.tz, undated=undated)
        )
    return figures


PROBE_ROWS = 20  # first read of a probe: most pages hold an entry in it, costing one small query


def lists_an_entry(sitemap: Sitemap, context: RenderContext, items: Iterable[Any]) -> bool:
    """Whether any of ``items`` makes an entry by a render's rules, stopping at the first."""
    factory = entry_factory(sitemap, context)
    new_page(sitemap.section)
    return any(factory.entries(item, set())[0] for item in items)


def pages_listing(sitemap: ModelSitemap, context: RenderContext, numbers: list[int]) -> set[int]:
    bounds = rows.keyset_pages(sitemap).recorded() if numbers else {}
    return {
        number
        for number in numbers
        if lists_an_entry(sitemap, context, _model_rows(sitemap, number, bounds))
    }


def _model_rows(sitemap: ModelSitemap, number: int, bounds: dict[int, Page]) -> Iterator[Any]:
    read = rows.rows_per_page(sitemap) + 1  # a render reads one row past the limit
    page = bounds.get(number)
    probe = [item for _key, item in rows.page_items(sitemap, number, min(PROBE_ROWS, read), page)]
    yield from probe
    if len(probe) == PROBE_ROWS < read:
        rest = itertools.islice(rows.page_items(sitemap, number, page=page), PROBE_ROWS, None)
        yield from (item for _key, item in rest)


def _chunks(page: Any) -> Iterator[Any]:
    start, chunk = 0, PROBE_ROWS
    while batch := list(page[start : start + chunk]):
        yield from batch
        start, chunk = start + len(batch), CHUNK_SIZE


def render_sitemap_page(sitemap: Sitemap, number: int, context: RenderContext) -> RenderedPage:
    """Render page ``number`` (split where it overflows its file); PageNotFound if no URL."""
    factory = entry_factory(sitemap, context)
    writer = new_writer(sitemap, context.stylesheet)
    newest, overflow_key = write_page(sitemap, number, context, factory, writer)
    pages_recut = False
    if overflow_key is not None and isinstance(sitemap, ModelSitemap):
        pages_recut = rows.keyset_pages(sitemap).split(number, overflow_key)
    elif overflow_key is not None:  # a QuerySet page is a fixed slice: the rest has no file
        logger.error(
            "Sitemap section %r: page %d passed the protocol's limits at item %d; the "
            "items after it are not listed. Lower the section's limit.",
            sitemap.section,
            number,
            overflow_key,
        )
    if writer.count == 0:  # an empty <urlset> is invalid against the schema: nothing to serve
        raise PageNotFound(number, skipped=factory.skipped, excluded=factory.excluded)
    return RenderedPage(
        writer.content(),
        writer.count,
        factory.skipped,
        None if newest is None else to_aware(newest, context.tz),
        overflow_key is not None,
        pages_recut,
        lastmods_dropped=factory.lastmods_dropped,
        images_dropped=factory.extensions.images_dropped,
        excluded=factory.excluded,
    )


def write_page(
    sitemap: Sitemap,
    number: int,
    context: RenderContext,
    factory: EntryFactory,
    writer: UrlsetWriter,
) -> tuple[Lastmod | None, Any]:
    """Write page ``number``: the newest lastmod written, the key of the first item not fitting."""
    items: Iterator[tuple[Any, Any]]
    if isinstance(sitemap, ModelSitemap):
        # None for instances, or for values the fast loop cannot write
        if not sitemap.i18n and (fast := FastLoop.prepare(factory)) is not None:
            return fast.render(rows.page_rows(sitemap, number), writer)
        items = rows.page_items(sitemap, number)
    elif isinstance(sitemap, ContribUrlsSection):
        items = url_infos(sitemap, number, factory.context)  # in the section's protocol
    else:
        items = list_items(sitemap, number, context)
    reader = factory.extensions.reader
    if reader is not None and reader.related:
        items = reader.prefetching(items)
    newest: Lastmod | None = None
    for key, item in items:
        xml, locs = factory.entries(item, writer.locs)
        if xml is None:
            continue
        if not writer.add_xml(xml, entries=len(locs)):
            return newest, key
        writer.locs.update(locs)
        newest = later(newest, factory.last_lastmod, context.tz)
    return newest, None


def ordered(queryset: QuerySet[Any]) -> QuerySet[Any]:
    """``queryset`` in a fixed order: unordered, it could give a row to two pages, or to none."""
    return queryset if queryset.ordered else queryset.order_by("pk")


def _slice(sitemap: Sitemap, items: QuerySet[Any], number: int) -> QuerySet[Any]:
    per_page = rows.rows_per_page(sitemap)
    return ordered(items)[(number - 1) * per_page : number * per_page]


def list_figures(sitemap: Sitemap, context: RenderContext) -> list[PageFigures]:
    items = on_current_site(sitemap, sitemap.items())
    tz = context.tz
    if not isinstance(items, QuerySet):
        cuts = list_cuts(sitemap, context, items)
        return [
            PageFigures.of(number, cut.end - cut.start, cut.newest, tz, undated=cut.undated)
            for number, cut in enumerate(cuts, start=1)
        ]
    queryset = ordered(items)
    per_page = rows.rows_per_page(sitemap)
    count = queryset.count()
    slices = [queryset[start : start + per_page] for start in range(0, count, per_page)]
    lastmods: list[tuple[Lastmod | None, bool]]
    if not callable(lastmod := sitemap.lastmod):
        lastmods = [(lastmod, lastmod is None)] * len(slices)
    elif isinstance(date_field := getattr(sitemap, "date_field", None), str):
        # GenericSitemap's date_field: one aggregate per page, in SQL
        figures = [
            page.aggregate(newest=Max(date_field), dated=Count(date_field), rows=Count("*"))
            for page in slices
        ]
        lastmods = [(f["newest"], f["dated"] < f["rows"]) for f in figures]
    else:
        iterator = queryset.iterator(chunk_size=CHUNK_SIZE)
        lastmods = [_newest(lastmod, itertools.islice(iterator, per_page), tz) for _ in slices]
    return [
        PageFigures.of(
            number, min(per_page, count - (number - 1) * per_page), newest, tz, undated=undated
        )
        for number, (newest, undated) in enumerate(lastmods, start=1)
    ]


def list_items(sitemap: Sitemap, number: int, context: RenderContext) -> Iterator[tuple[Any, Any]]:
    """(position, item) of each item of page ``number``; PageNotFound when there is none."""
    items = on_current_site(sitemap, sitemap.items())
    if isinstance(items, QuerySet):
        new_page(sitemap.section)
        page = list(_slice(sitemap, items, number))
        if not page:
            raise PageNotFound(number)
        yield from enumerate(page, (number - 1) * rows.rows_per_page(sitemap))
        return
    cuts = list_cuts(sitemap, context, items)
    if not 1 <= number <= len(cuts):
        raise PageNotFound(number)
    cut = cuts[number - 1]
    yield from ((index, items[index]) for index in range(cut.start, cut.end))


@dataclass(frozen=True)
class Cut:
    """One page of a list: items ``start`` to ``end``, their newest lastmod, if none lacks one."""

    start: int
    end: int
    newest: Lastmod | None
    undated: bool


def list_cuts(sitemap: Sitemap, context: RenderContext, items: Sequence[Any]) -> list[Cut]:
    factory = entry_factory(sitemap, context)
    cuts: list[Cut] = []
    writer = new_writer(sitemap, context.stylesheet)
    start = 0
    newest: Lastmod | None = None
    undated = False
    for index, item in enumerate(items):
        xml, locs = factory.entries(item, writer.locs)
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
