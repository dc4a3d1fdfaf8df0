"""Sitemap classes: the attribute-or-method API of ``django.contrib.sitemaps``."""

from __future__ import annotations

import datetime
import itertools
import logging
import operator
import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from django.conf import settings
from django.core.exceptions import FieldDoesNotExist
from django.db import connections, models
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.models import QuerySet, TextField
from django.db.models.functions import Cast
from django.db.models.sql.constants import MULTI
from django.template import TemplateDoesNotExist
from django.template.loader import get_template, select_template
from django.urls import NoReverseMatch, Resolver404, get_script_prefix, resolve, reverse

from django_sitemapkit.engine.pages import KeysetPages, KeySpan, PageNotFound, PageSummary
from django_sitemapkit.engine.urltemplates import UrlTemplate
from django_sitemapkit.protocol.deflate import Piece
from django_sitemapkit.protocol.locations import InvalidLocation, LocationBuilder
from django_sitemapkit.protocol.w3c import format_lastmod, is_w3c_datetime, later, to_aware
from django_sitemapkit.protocol.writer import (
    CHANGEFREQS,
    MAX_BYTES_PER_FILE,
    MAX_ENTRIES_PER_FILE,
    UrlsetWriter,
    escape,
    format_priority,
    needs_escape,
)

logger = logging.getLogger("django_sitemapkit")

Lastmod = datetime.datetime | datetime.date

# Backends whose text form of a datetime column is ISO 8601 that
# datetime.fromisoformat() reads: "YYYY-MM-DD HH:MM:SS[.ffffff][+00]".
TEXT_DATETIME_VENDORS = frozenset({"sqlite", "postgresql", "mysql"})

# Iteration chunk for model rows: large enough to amortise round trips,
# small enough that memory stays flat.
CHUNK_SIZE = 2000


@dataclass
class RenderContext:
    """What turning items into entries needs: fixed for one render."""

    locations: LocationBuilder
    tz: datetime.tzinfo


@dataclass(frozen=True)
class ItemAccess:
    """How to read each part of an entry from one item, fixed for a whole file.

    A value is either a constant or a callable taking the item; sitemaps
    resolve their attribute-or-method API into this once per file instead of
    once per row.
    """

    location: Callable[[Any], Any]
    lastmod: Callable[[Any], Lastmod | None]
    changefreq: str | Callable[[Any], str | None] | None
    priority: float | Callable[[Any], float | None] | None
    describe: Callable[[Any], str] = repr
    # The fast path's URL template, built once per file and shared with the
    # fused row loop.
    url_template: UrlTemplate | None = None


class EntryFactory:
    """Turns each item of one sitemap into its ``<url>`` element, or a logged skip.

    Everything that is the same for every item -- attribute-or-method
    lookups, constant ``changefreq``/``priority`` elements, the time zone --
    is settled once per file, so the per-row work is reading the item and
    formatting two values. The date format of a file is fixed by its first
    lastmod, so a file never mixes formats.
    """

    def __init__(self, sitemap: Sitemap, context: RenderContext) -> None:
        self.sitemap = sitemap
        self.context = context
        self.tz = context.tz
        access = sitemap.item_access()
        self.access = access
        self.location = access.location
        self.build_location = context.locations.build
        self.lastmod = access.lastmod
        self.date_only: bool | None = sitemap.lastmod_date_only()
        self.changefreq_attr = access.changefreq
        self.priority_attr = access.priority
        # Constant elements are formatted once; a method is called per item.
        self.changefreq_xml = (
            ""
            if access.changefreq is None or callable(access.changefreq)
            else f"<changefreq>{access.changefreq}</changefreq>"
        )
        self.priority_xml = (
            ""
            if access.priority is None or callable(access.priority)
            else f"<priority>{format_priority(float(access.priority))}</priority>"
        )
        self.extra_xml = sitemap.extra_xml
        self.has_extra_xml = type(sitemap).extra_xml is not Sitemap.extra_xml
        self.skipped = 0
        # Entries listed without the lastmod they had, because it could not be
        # written (see lastmod_xml()).
        self.lastmods_dropped = 0
        # The location and lastmod value of the last entry built, so callers
        # can check for duplicates and track a file's newest lastmod without
        # asking the sitemap twice.
        self.last_loc = ""
        self.last_lastmod: Lastmod | None = None

    def format_lastmod(self, value: Lastmod) -> str:
        if not isinstance(value, datetime.date):
            raise TypeError(f"{type(value).__name__} is not a date or datetime")
        if self.date_only is None:
            self.date_only = not isinstance(value, datetime.datetime)
        if not self.date_only and type(value) is datetime.datetime and value.tzinfo is self.tz:
            # Already in the site's zone (database values usually are): the
            # common case, without the general conversion's calls.
            text = value.isoformat(timespec="seconds")
            if is_w3c_datetime(text):
                return text
        return format_lastmod(value, self.tz, date_only=self.date_only)

    def __call__(self, item: Any) -> str | None:
        """The ``<url>`` element of ``item``, or None when it is skipped."""
        try:
            loc = self.build_location(self.location(item))
        except InvalidLocation as exc:
            self._skip(item, str(exc))
            return None
        except Exception as exc:  # a user's location() may raise anything
            self._skip(item, f"location() raised {type(exc).__name__}: {exc}")
            return None
        self.last_loc = loc
        lastmod_xml = self.lastmod_xml(item)
        try:
            return self._element(item, loc, lastmod_xml)
        except Exception as exc:  # so may changefreq(), priority() and extra_xml()
            self._skip(item, f"{type(exc).__name__}: {exc}")
            return None

    def lastmod_xml(self, item: Any) -> str:
        """The ``<lastmod>`` of ``item``; empty (logged and counted) when it cannot be written.

        One row's date out of the zone's range (``0001-01-01 00:00`` UTC read in
        a zone behind UTC), or a ``lastmod()`` that fails, costs that entry its
        lastmod, never the file.
        """
        self.last_lastmod = None
        try:
            value = self.lastmod(item)
            if value is None:
                return ""
            text = self.format_lastmod(value)
        except Exception as exc:
            self.lastmods_dropped += 1
            logger.warning(
                "Sitemap section %r: listed %s without lastmod: %s: %s.",
                self.sitemap.section,
                self.access.describe(item),
                type(exc).__name__,
                exc,
            )
            return ""
        self.last_lastmod = value
        return f"<lastmod>{text}</lastmod>"

    def _element(self, item: Any, loc: str, lastmod_xml: str) -> str:
        changefreq_xml = self.changefreq_xml
        if callable(self.changefreq_attr):
            changefreq = self.changefreq_attr(item)
            if changefreq is None:
                changefreq_xml = ""
            elif changefreq in CHANGEFREQS:
                changefreq_xml = f"<changefreq>{changefreq}</changefreq>"
            else:
                changefreq_xml = ""
                logger.warning(
                    "Sitemap section %r: ignored changefreq %r of %s (not one of %s).",
                    self.sitemap.section,
                    changefreq,
                    self.access.describe(item),
                    ", ".join(sorted(CHANGEFREQS)),
                )
        priority_xml = self.priority_xml
        if callable(self.priority_attr):
            priority = self.priority_attr(item)
            if priority is None:
                priority_xml = ""
            elif _valid_priority(priority):
                priority_xml = f"<priority>{format_priority(float(priority))}</priority>"
            else:
                priority_xml = ""
                logger.warning(
                    "Sitemap section %r: ignored priority %r of %s (must be 0.0 to 1.0).",
                    self.sitemap.section,
                    priority,
                    self.access.describe(item),
                )
        extra = "".join(self.extra_xml(item)) if self.has_extra_xml else ""
        if needs_escape(loc):
            loc = escape(loc)
        return f"<url><loc>{loc}</loc>{lastmod_xml}{changefreq_xml}{priority_xml}{extra}</url>\n"

    def skip_duplicate(self, item: Any, loc: str) -> None:
        """Count ``item`` as skipped: its location ``loc`` is listed in the file already."""
        self._skip(item, f"{loc} is listed already in this file")

    def _skip(self, item: Any, reason: str) -> None:
        self.skipped += 1
        logger.warning(
            "Sitemap section %r: skipped %s: %s.",
            self.sitemap.section,
            self.access.describe(item),
            reason,
        )


def _valid_priority(value: object) -> bool:
    return (
        isinstance(value, int | float)
        and not isinstance(value, bool)
        and 0.0 <= float(value) <= 1.0
    )


@dataclass
class RenderedPage:
    # The file in its writer's pieces (head, segments, tail): a build hashes,
    # compresses and writes them without ever holding a joined copy.
    chunks: Sequence[Piece]
    url_count: int
    skipped: int
    lastmod: datetime.datetime | None
    # The page did not fit and was split: a new page now holds the rest.
    overflowed: bool = False
    # The key of the last row of each segment but the last, and the rows
    # skipped within each segment (see writer.py).
    segment_cuts: list[Any] = field(default_factory=list)
    segment_skips: list[int] = field(default_factory=list)
    # Each piece's compressed bytes when already known (a spliced page), and
    # which pieces are byte ranges of the page's published files: piece index
    # -> offset in the .xml, compressed piece index -> offset in the .xml.gz.
    compressed: Sequence[Piece] | None = None
    reused: dict[int, int] = field(default_factory=dict)
    reused_gz: dict[int, int] = field(default_factory=dict)
    # The sha256 of the content when already known: a spliced page whose
    # re-rendered segments came out as they were is its old file.
    digest: str | None = None
    # Entries listed without their lastmod, which could not be written.
    lastmods_dropped: int = 0

    @property
    def content(self) -> bytes:
        return b"".join(self.chunks)

    @property
    def size(self) -> int:
        return sum(map(len, self.chunks))


class Sitemap:
    """A section of the sitemap: a sequence of items, each one ``<url>``.

    Subclasses override ``items()`` and ``location()``; ``lastmod``,
    ``changefreq`` and ``priority`` are attributes or methods taking the item.
    """

    section: ClassVar[str | None] = None
    model: ClassVar[type[models.Model] | None] = None
    limit: int = MAX_ENTRIES_PER_FILE
    changefreq: str | Callable[[Any], str | None] | None = None
    priority: float | Callable[[Any], float | None] | None = None
    lastmod: Lastmod | Callable[[Any], Lastmod | None] | None = None
    # Extension namespaces declared on <urlset> (prefix -> URI), for extra_xml().
    namespaces: ClassVar[Mapping[str, str]] = {}

    def items(self) -> Sequence[Any]:
        return []

    def location(self, item: Any) -> str:
        return str(item.get_absolute_url())

    def extra_xml(self, item: Any) -> tuple[str, ...]:
        """Serialised extension elements for ``item`` (none by default)."""
        return ()

    def item_lastmod(self, item: Any) -> Lastmod | None:
        lastmod = self.lastmod
        return lastmod(item) if callable(lastmod) else lastmod

    def fingerprints_reliable(self) -> bool:
        """Whether a page whose row count and newest lastmod did not change is unchanged.

        True for model sections with a lastmod field (an edit saved through
        the ORM moves updated_at); lists are cheap to render and have no
        such guarantee.
        """
        return False

    def item_access(self) -> ItemAccess:
        """How EntryFactory reads an item: the attribute-or-method API, resolved."""
        return ItemAccess(self.location, self.item_lastmod, self.changefreq, self.priority)

    def lastmod_date_only(self) -> bool | None:
        """True/False to fix the file's date format up front; None: the first value decides."""
        return None

    @property
    def name(self) -> str:
        assert self.section is not None, "a Sitemap is used through the registry"
        return self.section

    # -- paging: a list of items cut by count and bytes ---------------------

    def page_summaries(self, context: RenderContext) -> list[PageSummary]:
        return [
            PageSummary(number=number, count=end - start, lastmod=lastmod)
            for number, (start, end, lastmod) in enumerate(self._list_cuts(context), start=1)
        ]

    def page_items(
        self, number: int, context: RenderContext, span: KeySpan | None = None
    ) -> Iterator[tuple[Any, Any]]:
        if span is not None:
            raise NotImplementedError("only model sections render parts of a page")
        cuts = self._list_cuts(context)
        if not 1 <= number <= len(cuts):
            raise PageNotFound(number)
        start, end, _lastmod = cuts[number - 1]
        items = self.items()
        for index in range(start, end):
            yield index, items[index]

    def page_overflowed(self, number: int, key: Any) -> None:
        """The rows of page ``number`` from ``key`` on did not fit in its file."""

    def _list_cuts(self, context: RenderContext) -> list[tuple[int, int, Lastmod | None]]:
        # Item lists are small (static pages, settings-driven lists), so
        # measuring every entry to cut pages by count *and* bytes is cheap and
        # keeps each page's items identical between index and page renders.
        factory = EntryFactory(self, context)
        items = self.items()
        cuts: list[tuple[int, int, Lastmod | None]] = []
        writer = self._new_writer()
        start = 0
        newest: Lastmod | None = None
        for index, item in enumerate(items):
            xml = factory(item)
            if xml is None:
                continue
            loc = factory.last_loc
            if loc in writer.locs:
                factory.skip_duplicate(item, loc)
                continue
            if not writer.add_xml(xml):
                cuts.append((start, index, newest))
                writer, start, newest = self._new_writer(), index, None
                writer.add_xml(xml)
            writer.locs.add(loc)
            newest = later(newest, factory.last_lastmod, context.tz)
        if writer.count:
            cuts.append((start, len(items), newest))
        return cuts

    def _new_writer(self) -> UrlsetWriter:
        return UrlsetWriter(
            max_entries=self.limit, max_bytes=MAX_BYTES_PER_FILE, namespaces=self.namespaces
        )

    # -- rendering ------------------------------------------------------------

    def render_page(
        self, number: int, context: RenderContext, span: KeySpan | None = None
    ) -> RenderedPage:
        """Render page ``number``; raises PageNotFound when it has no URL to list.

        With ``span``, only the rows of that part of the page are rendered
        (an incremental build replacing one segment); a span that does not
        fit is reported as overflowed but does not split the page.
        """
        factory = EntryFactory(self, context)
        writer = self._new_writer()
        newest, overflow_key = self.write_page(number, context, factory, writer, span)
        if overflow_key is not None and span is None:
            self.page_overflowed(number, overflow_key)
        if writer.count == 0:
            # An empty <urlset> is invalid against the schema: nothing to serve.
            raise PageNotFound(number, skipped=factory.skipped)
        return RenderedPage(
            writer.chunks(),
            writer.count,
            factory.skipped,
            None if newest is None else to_aware(newest, context.tz),
            overflow_key is not None,
            segment_cuts=writer.segment_cuts,
            segment_skips=writer.segment_skips,
            lastmods_dropped=factory.lastmods_dropped,
        )

    def write_page(
        self,
        number: int,
        context: RenderContext,
        factory: EntryFactory,
        writer: UrlsetWriter,
        span: KeySpan | None = None,
    ) -> tuple[Lastmod | None, Any]:
        """Write the items of page ``number`` (of ``span`` within it).

        Returns the newest lastmod written and the key of the first item that
        did not fit (None when all did).
        """
        newest: Lastmod | None = None
        locs = writer.locs
        for key, item in self.page_items(number, context, span):
            xml = factory(item)
            if xml is None:
                writer.skip()
                continue
            loc = factory.last_loc
            if loc in locs:
                factory.skip_duplicate(item, loc)
                writer.skip()
                continue
            if not writer.add_xml(xml, key):
                return newest, key
            locs.add(loc)
            newest = later(newest, factory.last_lastmod, context.tz)
        return newest, None


class ModelSitemap(Sitemap):
    """Every row of ``get_queryset()``, paged by primary-key ranges (see pages.py).

    By default each row is a model instance and ``<loc>`` is its
    ``get_absolute_url()``. Naming the URL pattern and the fields that fill it
    (``url_name = "article-detail"``, ``url_kwargs = {"slug": "slug"}``)
    switches to the fast path: rows are tuples of just those columns, and the
    pattern is reversed once per file instead of once per row, with the same
    result (see urltemplates.py). ``changefreq_field`` and ``priority_field``
    read those values from columns too.
    """

    model: ClassVar[type[models.Model] | None] = None
    lastmod_field: str | None = "updated_at"
    url_name: str | None = None
    url_kwargs: Mapping[str, str] = {}
    changefreq_field: str | None = None
    priority_field: str | None = None

    def get_queryset(self) -> QuerySet[Any]:
        assert self.model is not None, f"{type(self).__qualname__} has no model"
        return self.model._default_manager.all()

    def get_lastmod_field(self) -> models.Field[Any, Any] | None:
        """The model field lastmod is read from, or None when there is none."""
        if self.lastmod_field is None or self.model is None:
            return None
        try:
            field = self.model._meta.get_field(self.lastmod_field)
        except FieldDoesNotExist:
            return None
        return field if isinstance(field, models.DateField) else None

    def lastmod_date_only(self) -> bool | None:
        field = self.get_lastmod_field()
        if field is None:
            return None
        return not isinstance(field, models.DateTimeField)

    def fingerprints_reliable(self) -> bool:
        return self.get_lastmod_field() is not None

    # -- the fast path: columns instead of instances -------------------------

    @property
    def uses_fast_path(self) -> bool:
        return self.url_name is not None

    def row_columns(self) -> list[str]:
        """The columns of a fast-path row: pk, URL kwargs, then lastmod/changefreq/priority."""
        columns = ["pk", *self.url_kwargs.values()]
        field = self.get_lastmod_field()
        for name in (
            None if field is None else field.name,
            self.changefreq_field,
            self.priority_field,
        ):
            if name is not None:
                columns.append(name)
        return columns

    def item_access(self) -> ItemAccess:
        field = self.get_lastmod_field()
        if not self.uses_fast_path:
            lastmod: Callable[[Any], Any] = (
                (lambda obj: None) if field is None else operator.attrgetter(field.attname)
            )
            return ItemAccess(self.location, lastmod, self.changefreq, self.priority)
        assert self.url_name is not None
        assert self.model is not None
        template = UrlTemplate(self.url_name, list(self.url_kwargs))
        width = len(self.url_kwargs)
        fill = template.fill
        position = 1 + width

        def column(present: bool) -> Callable[[Any], Any] | None:
            nonlocal position
            if not present:
                return None
            getter = operator.itemgetter(position)
            position += 1
            return getter

        lastmod_getter = column(field is not None)
        if lastmod_getter is not None:
            assert field is not None
            convert = raw_lastmod_converter(field, connections[self.get_queryset().db])
            read_lastmod = lastmod_getter
            lastmod_getter = lambda row: convert(read_lastmod(row))  # noqa: E731
        changefreq_getter = column(self.changefreq_field is not None)
        priority_getter = column(self.priority_field is not None)
        label = self.model._meta.label
        return ItemAccess(
            location=lambda row: fill(row[1 : 1 + width]),
            lastmod=lastmod_getter or (lambda row: None),
            changefreq=changefreq_getter or self.changefreq,
            priority=priority_getter or self.priority,
            describe=lambda row: f"<{label} pk={row[0]!r}>",
            url_template=template,
        )

    # -- pages -----------------------------------------------------------------

    def keyset_pages(self) -> KeysetPages:
        field = self.get_lastmod_field()
        return KeysetPages(
            self.name,
            self.get_queryset(),
            limit=min(self.limit, MAX_ENTRIES_PER_FILE),
            lastmod_field=None if field is None else field.name,
        )

    def page_summaries(self, context: RenderContext) -> list[PageSummary]:
        return self.keyset_pages().summaries()

    def page_items(
        self, number: int, context: RenderContext, span: KeySpan | None = None
    ) -> Iterator[tuple[Any, Any]]:
        if self.uses_fast_path:
            for row in self.page_rows(number, span):
                yield row[0], row
            return
        pages = self.keyset_pages()
        # One row past the limit tells the writer the page overflowed, without
        # ever reading an unbounded open-ended last page.
        rows = pages.page_queryset(number, span)[: pages.limit + 1]
        for obj in rows.iterator(chunk_size=CHUNK_SIZE):
            yield obj.pk, obj

    def page_rows(self, number: int, span: KeySpan | None = None) -> Iterator[Sequence[Any]]:
        """The fast path's rows of page ``number``: tuples of ``row_columns()``."""
        pages = self.keyset_pages()
        rows = pages.page_queryset(number, span)
        columns: list[Any] = self.row_columns()
        raw_column = None if self.get_lastmod_field() is None else 1 + len(self.url_kwargs)
        if raw_column is not None and connections[rows.db].vendor in TEXT_DATETIME_VENDORS:
            # Read lastmod as the database's text: the drivers' own datetime
            # parsing (SQLite's regex converter, psycopg's Python time-zone
            # loader) costs more per row than writing the whole <url>;
            # raw_lastmod_converter parses the text (and the fused loop
            # mostly just slices it).
            columns[raw_column] = Cast(columns[raw_column], TextField())
        return iterate_rows(
            rows.values_list(*columns)[: pages.limit + 1],
            raw_column=raw_column,
            # A span is one segment of a page, about SEGMENT_ENTRIES rows: one
            # round trip fetches it, where a server-side cursor takes four or
            # five (about a millisecond of a span's six on PostgreSQL).
            server_side=span is None,
        )

    def url_values_unique(self) -> bool:
        """Whether the one field filling the URL pattern is unique: no two rows share a URL."""
        assert self.model is not None
        if len(self.url_kwargs) != 1:
            return False
        [name] = self.url_kwargs.values()
        try:
            field = self.model._meta.get_field(name)
        except FieldDoesNotExist:
            return name == "pk"
        return bool(getattr(field, "unique", False))

    def database_is_utc(self) -> bool:
        """Whether the database hands out (or stores) datetimes in UTC."""
        connection = connections[self.get_queryset().db]
        return bool(settings.USE_TZ) and connection.timezone is datetime.UTC

    def write_page(
        self,
        number: int,
        context: RenderContext,
        factory: EntryFactory,
        writer: UrlsetWriter,
        span: KeySpan | None = None,
    ) -> tuple[Lastmod | None, Any]:
        from django_sitemapkit.engine.fastpath import FusedRows

        fused = FusedRows.prepare(self, factory) if self.uses_fast_path else None
        if fused is None:
            return super().write_page(number, context, factory, writer, span)
        return fused.render(self.page_rows(number, span), writer)

    def keys_sort_alike(self) -> bool:
        """Whether Python orders this model's keys as every database does: integers.

        Text sorts by the database's collation, and UUIDs sort differently on
        MariaDB's uuid type.
        """
        assert self.model is not None
        pk: Any = self.model._meta.pk
        while pk.is_relation:  # a parent link (multi-table inheritance)
            pk = pk.target_field
        return isinstance(pk, models.IntegerField)

    def page_overflowed(self, number: int, key: Any) -> None:
        from django_sitemapkit.serving.cache import invalidate_sections

        if self.keyset_pages().split(number, key):
            # The index must now list the new page: drop its cached copy. Not
            # where nothing could be recorded: every render would drop it again.
            invalidate_sections([self.name])


def raw_lastmod_converter(
    field: models.Field[Any, Any], connection: BaseDatabaseWrapper
) -> Callable[[Any], Lastmod | None]:
    """Turn the database's raw value of a date/datetime column into a Python value.

    Does what the backends' own converters do (SQLite hands out text, MySQL
    naive datetimes, PostgreSQL aware ones), without their per-row settings
    lookups: at a million rows those cost more than writing the XML.
    """
    if isinstance(field, models.DateTimeField):
        zone = connection.timezone if settings.USE_TZ else None
        parse_datetime = datetime.datetime.fromisoformat

        def convert_datetime(value: Any) -> Lastmod | None:
            if value is None:
                return None
            if value.__class__ is str:
                value = parse_datetime(value)
            if zone is not None and value.tzinfo is None:
                value = value.replace(tzinfo=zone)
            return value  # type: ignore[no-any-return]

        return convert_datetime
    parse_date = datetime.date.fromisoformat

    def convert_date(value: Any) -> Lastmod | None:
        if value.__class__ is str:
            return parse_date(value)
        return value  # type: ignore[no-any-return]

    return convert_date


def iterate_rows(
    queryset: QuerySet[Any], *, raw_column: int | None, server_side: bool = True
) -> Iterator[Sequence[Any]]:
    """The rows of a ``values_list()`` queryset, read in chunks (from a
    server-side cursor where the database has them, unless not ``server_side``).

    Like ``queryset.iterator()``, but the column ``raw_column`` is left as
    the database returned it (see raw_lastmod_converter) and the rows are
    the cursor's own tuples where no other column needs converting.
    """
    connection = connections[queryset.db]
    compiler = queryset.query.get_compiler(queryset.db)
    results = compiler.execute_sql(
        MULTI,
        chunked_fetch=server_side
        and not connection.settings_dict.get("DISABLE_SERVER_SIDE_CURSORS"),
        chunk_size=CHUNK_SIZE,
    )
    fields = [selected[0] for selected in compiler.select[0 : compiler.col_count]]
    converters = compiler.get_converters(fields)
    if raw_column is not None:
        converters.pop(raw_column, None)
    rows = itertools.chain.from_iterable(results)
    if converters:
        return map(tuple, compiler.apply_converters(rows, converters))
    return rows


def _normalise_url_name(entry: Any) -> tuple[str, tuple[Any, ...], dict[str, Any]]:
    if isinstance(entry, str):
        return entry, (), {}
    name, *rest = entry
    args: tuple[Any, ...] = ()
    kwargs: dict[str, Any] = {}
    for part in rest:
        if isinstance(part, Mapping):
            kwargs = dict(part)
        else:
            args = tuple(part)
    return name, args, kwargs


class StaticViewSitemap(Sitemap):
    """Pages named by URL pattern, e.g. ``url_names = ["home", ("docs", {"slug": "faq"})]``.

    Each entry is a name, or a tuple of a name and args (a list) and/or kwargs
    (a dict). lastmod is the modification time of the template the view
    renders, as sitemaps.org advises for static pages; override ``lastmod``.
    """

    url_names: Sequence[str | tuple[Any, ...]] = ()

    def items(self) -> Sequence[tuple[str, tuple[Any, ...], dict[str, Any]]]:
        return [_normalise_url_name(entry) for entry in self.url_names]

    def location(self, item: Any) -> str:
        name, args, kwargs = item
        return reverse(name, args=args, kwargs=kwargs)

    def lastmod(self, item: Any) -> datetime.datetime | None:
        return template_mtime(self.location(item))


def template_mtime(path: str) -> datetime.datetime | None:
    """Modification time of the template rendered by the view at ``path``, if any."""
    prefix = get_script_prefix()
    if path.startswith(prefix):
        path = "/" + path[len(prefix) :]
    try:
        match = resolve(path)
    except (Resolver404, NoReverseMatch):
        return None
    view = match.func
    initkwargs = getattr(view, "view_initkwargs", {}) or {}
    template_name = (
        match.kwargs.get("template_name")
        or initkwargs.get("template_name")
        or getattr(getattr(view, "view_class", None), "template_name", None)
        or getattr(view, "template_name", None)
    )
    if not template_name:
        return None
    try:
        if isinstance(template_name, str):
            template = get_template(template_name)
        else:
            template = select_template(list(template_name))
    except TemplateDoesNotExist:
        return None
    origin = getattr(template, "origin", None)
    filename = getattr(origin, "name", None)
    if not filename or not os.path.exists(filename):
        return None
    stamp = int(os.path.getmtime(filename))
    return datetime.datetime.fromtimestamp(stamp, tz=datetime.UTC)
