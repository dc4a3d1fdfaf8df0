"""Paging and rendering one section: the engine's view of a registered sitemap.

A model section (``ModelSitemap``) is paged by key ranges (pages.py) and reads
its rows per page (rows.py); any other section is a list (lists.py). An
``i18n`` section's items are written in each of their languages (entries.py).
"""

from __future__ import annotations

import datetime
import logging
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Any

from django.db.models import Count, Max, QuerySet

from django_sitemapkit._compat import ContribUrlsSection
from django_sitemapkit._engine import rows
from django_sitemapkit._engine.entries import (
    EntryFactory,
    LanguageEntries,
    RenderContext,
    entry_factory,
    new_writer,
    section_context,
    url_infos,
    write_language_entries,
)
from django_sitemapkit._engine.fastloop import FastLoop
from django_sitemapkit._engine.internals import CHUNK_SIZE
from django_sitemapkit._engine.keyranges import PageFigures
from django_sitemapkit._engine.pages import KeySpan, Page, PageNotFound, on_current_site
from django_sitemapkit._engine.rows import rows_per_page
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
    # The page did not fit and was split: a new page now holds the rest.
    overflowed: bool = False
    # The section's recorded pages changed meanwhile (this split or another
    # process's): what lists them, the index, is out of date.
    pages_recut: bool = False
    # Entries listed without their lastmod, which could not be written.
    lastmods_dropped: int = 0
    # Images left out: past Google's 1,000 per URL, or not URLs.
    images_dropped: int = 0

    @property
    def size(self) -> int:
        return len(self.content)

    @property
    def every_entry_dated(self) -> bool:
        """Whether every entry has a ``<lastmod>``: only then may the newest date the file.

        A file dated by some of its entries keeps its date when an undated
        entry comes or changes, and a client asking If-Modified-Since would
        keep a copy it does not have (contrib sends no Last-Modified then too).
        """
        dated = self.content.count(b"<lastmod>")
        return self.lastmod is not None and dated == self.url_count


def fingerprints_reliable(sitemap: Sitemap) -> bool:
    """Whether a page whose figures did not change is unchanged.

    True for model sections with a lastmod field (an edit saved through the
    ORM moves updated_at); lists are cheap to render and have no such guarantee.
    """
    return isinstance(sitemap, ModelSitemap) and sitemap.get_lastmod_field() is not None


def page_figures(sitemap: Sitemap, context: RenderContext) -> list[PageFigures]:
    """Every non-empty page of ``sitemap`` with its figures, in number order.

    The one source of a page's index ``<lastmod>``, for the live index and
    builds alike (see PageFigures). A model section with a lastmod field is
    counted and dated in SQL, in one scan, without an instance per row: a row
    a render would skip for a bad value dates its page all the same.
    """
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
    """The pages of ``figures`` that list a URL: what the index names.

    A page counted without rendering it is probed for its first entry
    (``lists_an_entry``), so the index never names a page whose every item is
    skipped (it would answer 404); a build learns that from rendering it.
    """
    if isinstance(sitemap, ModelSitemap):
        numbers = pages_listing(sitemap, context, [f.number for f in figures])
        return [f for f in figures if f.number in numbers]
    if isinstance(sitemap, ContribUrlsSection):
        return figures  # contrib's get_urls() pages are rendered: each lists an entry
    pages = {f.number: queryset_page(sitemap, f.number) for f in figures}
    if not figures or None in pages.values():
        return figures  # a list's pages are cut by rendering each entry: each lists one
    return [f for f in figures if lists_an_entry(sitemap, context, _chunks(pages[f.number]))]


def _dated_by_method(
    sitemap: ModelSitemap, figures: list[PageFigures], tz: datetime.tzinfo
) -> list[PageFigures]:
    """``figures`` dated by the class's own ``lastmod()``, asked of each row of each page.

    The fingerprints stay the SQL figures' (of the lastmod field, where there is one).
    """
    lastmod = rows.instance_lastmod(sitemap)
    dated = []
    for page in figures:
        newest: Lastmod | None = None
        undated = False
        for _key, obj in rows.page_items(sitemap, page.number):
            try:
                value = lastmod(obj)
                newest = later(newest, value, tz)
            except Exception:  # rendering the page logs what is wrong with it
                value = None
            undated = undated or value is None
        dated.append(replace(page, newest=None if undated else newest))
    return dated


def _rendered_figures(sitemap: ContribUrlsSection, context: RenderContext) -> list[PageFigures]:
    """Each page of contrib's paginator that lists a URL: what its file holds, rendered.

    Only rendering a page tells what ``get_urls()`` makes of its items.
    """
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


# The rows a probe reads first: a page whose first rows hold an entry (nearly
# every page) costs one small query, not a whole page's.
PROBE_ROWS = 20


def lists_an_entry(sitemap: Sitemap, context: RenderContext, items: Iterable[Any]) -> bool:
    """Whether any of ``items`` makes an entry, by the rules a render writes them with.

    Stops at the first one; skips on the way are logged as a render logs them.
    Images are not read: they never decide whether an item is listed.
    """
    factory = entry_factory(sitemap, context)
    languages = LanguageEntries(sitemap, factory) if sitemap.i18n else None
    new_page(sitemap.section)
    return any(item_entries(factory, languages, item, set())[0] for item in items)


def pages_listing(sitemap: ModelSitemap, context: RenderContext, numbers: list[int]) -> set[int]:
    """Which of the model section's pages ``numbers`` list a URL (see ``lists_an_entry``)."""
    bounds = rows.keyset_pages(sitemap).recorded() if numbers else {}
    return {
        number
        for number in numbers
        if lists_an_entry(sitemap, context, _model_rows(sitemap, number, bounds))
    }


def _model_rows(sitemap: ModelSitemap, number: int, bounds: dict[int, Page]) -> Iterator[Any]:
    """The rows of page ``number`` a render reads, PROBE_ROWS first, then in chunks."""
    left = rows.rows_per_page(sitemap) + 1  # a render reads one row past the limit
    span, chunk = None, PROBE_ROWS
    while left > 0:
        batch = list(rows.page_items(sitemap, number, span, min(chunk, left), bounds.get(number)))
        yield from (item for _key, item in batch)
        if len(batch) < min(chunk, left):
            return
        left -= len(batch)
        span, chunk = KeySpan(after=str(batch[-1][0])), CHUNK_SIZE


def _chunks(page: Any) -> Iterator[Any]:
    """The items of one page of a QuerySet section, PROBE_ROWS first, then in chunks."""
    start, chunk = 0, PROBE_ROWS
    while batch := list(page[start : start + chunk]):
        yield from batch
        start, chunk = start + len(batch), CHUNK_SIZE


def section_items(
    sitemap: Sitemap, number: int, context: RenderContext
) -> Iterator[tuple[Any, Any]]:
    """(key, item) of each item of page ``number``; PageNotFound when there is no such page."""
    if isinstance(sitemap, ModelSitemap):
        yield from rows.page_items(sitemap, number)
        return
    if isinstance(sitemap, ContribUrlsSection):
        yield from url_infos(sitemap, number, section_context(sitemap, context))
        return
    yield from list_items(sitemap, number, context)


def render_sitemap_page(sitemap: Sitemap, number: int, context: RenderContext) -> RenderedPage:
    """Render page ``number``; raises PageNotFound when it has no URL to list.

    A page that overflows its file is split where the page table can be written.
    """
    factory = entry_factory(sitemap, context)
    writer = new_writer(sitemap, context.stylesheet)
    newest, overflow_key = write_page(sitemap, number, context, factory, writer)
    pages_recut = False
    if overflow_key is not None and isinstance(sitemap, ModelSitemap):
        pages_recut = rows.keyset_pages(sitemap).split(number, overflow_key)
    elif overflow_key is not None:
        # A QuerySet's page is a fixed slice: what does not fit has no file.
        logger.error(
            "Sitemap section %r: page %d passed the protocol's limits at item %d; the "
            "items after it are not listed. Lower the section's limit.",
            sitemap.section,
            number,
            overflow_key,
        )
    if writer.count == 0:
        # An empty <urlset> is invalid against the schema: nothing to serve.
        raise PageNotFound(number, skipped=factory.skipped)
    return RenderedPage(
        writer.content(),
        writer.count,
        factory.skipped,
        None if newest is None else to_aware(newest, context.tz),
        overflow_key is not None,
        pages_recut,
        lastmods_dropped=factory.lastmods_dropped,
        images_dropped=factory.extensions.images_dropped,
    )


def write_page(
    sitemap: Sitemap,
    number: int,
    context: RenderContext,
    factory: EntryFactory,
    writer: UrlsetWriter,
) -> tuple[Lastmod | None, Any]:
    """Write the items of page ``number`` into ``writer``.

    Returns the newest lastmod written and the key of the first item that
    did not fit (None when all did).
    """
    reader = factory.extensions.reader
    if sitemap.i18n:
        items = section_items(sitemap, number, context)
        if reader is not None:
            items = reader.prefetching(items)
        return write_language_entries(sitemap, factory, items, writer)
    if isinstance(sitemap, ModelSitemap) and rows.reads_columns(sitemap):
        fast = FastLoop.prepare(sitemap, factory)
        if fast is not None:
            return fast.render(rows.page_rows(sitemap, number), writer)
    newest: Lastmod | None = None
    locs = writer.locs
    items = section_items(sitemap, number, context)
    for key, item in items if reader is None else reader.prefetching(items):
        xml = factory(item)
        if xml is None:
            continue
        loc = factory.last_loc
        if loc in locs:
            factory.skip_duplicate(item, loc)
            continue
        if not writer.add_xml(xml):
            return newest, key
        locs.add(loc)
        newest = later(newest, factory.last_lastmod, context.tz)
    return newest, None


logger = logging.getLogger("django_sitemapkit")


def ordered(queryset: QuerySet[Any]) -> QuerySet[Any]:
    """``queryset`` in a fixed order: unordered, it could give a row to two pages, or to none."""
    return queryset if queryset.ordered else queryset.order_by("pk")


def listed_items(sitemap: Sitemap) -> Sequence[Any] | QuerySet[Any]:
    """The items ``sitemap`` lists now: its ``items()``, on_current_site by the engine's rules."""
    return on_current_site(sitemap, sitemap.items())


def list_figures(sitemap: Sitemap, context: RenderContext) -> list[PageFigures]:
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


def list_items(sitemap: Sitemap, number: int, context: RenderContext) -> Iterator[tuple[Any, Any]]:
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
