"""Reading a model section's rows: model instances, or tuples of just the columns its URLs need.

A ``ModelSitemap`` with a URL route (``url_name`` and ``url_kwargs``, or a
``get_absolute_url()`` read as one: routes.py) reads *column rows*
(``values_list()`` of the key, the URL's fields, then lastmod, changefreq and
priority where they come from columns), and fills its URL pattern from them
without an instance per row (UrlTemplate, routes.py). One without reads
instances and asks each for its ``location()``.
"""

from __future__ import annotations

import datetime
import operator
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.core.exceptions import FieldDoesNotExist
from django.db import connections, models
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.models import TextField
from django.db.models.functions import Cast

from django_sitemapkit.engine.extensions import image_column, max_entries, news_window
from django_sitemapkit.engine.internals import CHUNK_SIZE, iterate_rows
from django_sitemapkit.engine.pages import KeysetPages, KeySpan
from django_sitemapkit.engine.pagetable import Page
from django_sitemapkit.engine.routes import url_route
from django_sitemapkit.engine.siteitems import narrowed, page_table_name
from django_sitemapkit.engine.skiplog import new_page
from django_sitemapkit.protocol.w3c import Lastmod
from django_sitemapkit.sitemaps import ModelSitemap, Sitemap

# Backends whose text form of a datetime column is ISO 8601 that
# datetime.fromisoformat() reads: "YYYY-MM-DD HH:MM:SS[.ffffff][+00]".
TEXT_DATETIME_VENDORS = frozenset({"sqlite", "postgresql", "mysql"})


def reads_columns(sitemap: ModelSitemap) -> bool:
    """Whether the section reads column rows (it has a URL route) rather than instances."""
    return url_route(sitemap) is not None


@dataclass(frozen=True)
class RowLayout:
    """Where each value sits in a section's column rows, settled once per render.

    Rows stay the cursor's tuples (the fast loop reads millions of them): the
    key at 0, the values filling the URL at 1 to ``url_values``, then each
    column a class names, at its index here (None: not read).
    """

    columns: tuple[str, ...]
    url_values: int
    lastmod: int | None = None
    changefreq: int | None = None
    priority: int | None = None
    image: int | None = None

    def url_of(self, row: Sequence[Any]) -> Sequence[Any]:
        return row[1 : 1 + self.url_values]


def row_layout(sitemap: ModelSitemap) -> RowLayout:
    """The layout of ``sitemap``'s column rows: key, URL values, lastmod, changefreq, priority,
    image, each where the section reads it."""
    route = url_route(sitemap)
    assert route is not None
    columns = ["pk", *route.fields]
    field = sitemap.get_lastmod_field()
    positions = {}
    for name, column in (
        ("lastmod", None if field is None else field.name),
        ("changefreq", sitemap.changefreq_field),
        ("priority", sitemap.priority_field),
        ("image", image_column(sitemap)),
    ):
        if column is not None:
            positions[name] = len(columns)
            columns.append(column)
    return RowLayout(tuple(columns), len(route.fields), **positions)


def lastmod_date_only(sitemap: ModelSitemap) -> bool | None:
    """Whether the lastmod field holds dates (not datetimes); None without a lastmod field."""
    field = sitemap.get_lastmod_field()
    if field is None or sitemap.defines_lastmod():
        return None
    return not isinstance(field, models.DateTimeField)


def rows_per_page(sitemap: Sitemap) -> int:
    """Items per page: ``limit`` counts URLs, and an ``i18n`` item has one per language."""
    limit = max_entries(sitemap)
    if sitemap.i18n:
        limit = max(1, limit // max(1, len(sitemap.get_languages())))
    return limit


def instance_lastmod(sitemap: ModelSitemap) -> Callable[[Any], Any]:
    """An instance's lastmod: the class's ``lastmod`` where it gives one, else its field's value."""
    if sitemap.defines_lastmod():
        lastmod = sitemap.lastmod
        return lastmod if callable(lastmod) else (lambda obj: lastmod)
    field = sitemap.get_lastmod_field()
    return (lambda obj: None) if field is None else operator.attrgetter(field.attname)


def keyset_pages(sitemap: ModelSitemap) -> KeysetPages:
    field = sitemap.get_lastmod_field()
    return KeysetPages(
        page_table_name(sitemap),
        news_window(sitemap, narrowed(sitemap, sitemap.get_queryset())),
        limit=rows_per_page(sitemap),
        lastmod_field=None if field is None else field.name,
    )


def page_items(
    sitemap: ModelSitemap,
    number: int,
    span: KeySpan | None = None,
    limit: int | None = None,
    page: Page | None = None,
) -> Iterator[tuple[Any, Any]]:
    """(key, row) of each row of page ``number`` (or of ``span`` within it), one past the
    limit; the first ``limit`` rows only, when given (``page``: its bounds, if known)."""
    if reads_columns(sitemap):
        for row in page_rows(sitemap, number, span, limit, page):
            yield row[0], row
        return
    pages = keyset_pages(sitemap)
    new_page(sitemap.section)
    # One row past the limit tells the writer the page overflowed, without
    # ever reading an unbounded open-ended last page.
    rows = pages.page_queryset(number, span, page)[: limit or pages.limit + 1]
    for obj in rows.iterator(chunk_size=CHUNK_SIZE):
        yield obj.pk, obj


def page_rows(
    sitemap: ModelSitemap,
    number: int,
    span: KeySpan | None = None,
    limit: int | None = None,
    page: Page | None = None,
) -> Iterator[Sequence[Any]]:
    """The column rows of page ``number`` (the first ``limit``), laid out as ``row_layout()``."""
    pages = keyset_pages(sitemap)
    new_page(sitemap.section)
    rows = pages.page_queryset(number, span, page)
    layout = row_layout(sitemap)
    columns: list[Any] = list(layout.columns)
    if layout.lastmod is not None and connections[rows.db].vendor in TEXT_DATETIME_VENDORS:
        # Read lastmod as the database's text: the drivers' own datetime
        # parsing (SQLite's regex converter, psycopg's Python time-zone
        # loader) costs more per row than writing the whole <url>;
        # raw_lastmod_converter parses the text (and the fast loop
        # mostly just slices it).
        columns[layout.lastmod] = Cast(columns[layout.lastmod], TextField())
    return iterate_rows(
        rows.values_list(*columns)[: limit or pages.limit + 1],
        raw_column=layout.lastmod,
        # A span (a limit, a few rows): one round trip fetches it, where a
        # server-side cursor would take several.
        server_side=span is None and limit is None,
    )


def url_values_unique(sitemap: ModelSitemap) -> bool:
    """Whether the one field filling the URL pattern is unique: no two rows share a URL."""
    assert sitemap.model is not None
    route = url_route(sitemap)
    if route is None or len(route.fields) != 1:
        return False
    [name] = route.fields
    try:
        field = sitemap.model._meta.get_field(name)
    except FieldDoesNotExist:
        return name == "pk"
    return bool(getattr(field, "unique", False))


def database_is_utc(sitemap: ModelSitemap) -> bool:
    """Whether the database hands out (or stores) datetimes in UTC."""
    connection = connections[sitemap.get_queryset().db]
    return bool(settings.USE_TZ) and connection.timezone is datetime.UTC


def raw_lastmod_converter(
    field: models.Field[Any, Any], connection: BaseDatabaseWrapper
) -> Callable[[Any], Lastmod | None]:
    """Turn the database's raw value of a date/datetime column into a Python value.

    Does what the backends' own converters do (SQLite hands out text, MySQL
    naive datetimes, PostgreSQL aware ones), without their per-row settings
    lookups, which cost more than writing the XML.
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
