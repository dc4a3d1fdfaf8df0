"""Reading a model section's rows: model instances, or tuples of just the columns its URLs need.

A section with a URL route (its ``url_name``, or ``get_absolute_url()`` read as
one, _reversing.py) reads *column rows* (RowLayout) and fills the pattern
without an instance per row; one without reads instances and asks each for its
``location()``. A ``reverse()`` call costs more than everything else a sitemap
does for a URL: UrlTemplate reverses the pattern once with placeholders, then
per row runs the converters, checks and quotes as ``reverse()`` does, byte for
byte (the tests compare them), falling back to ``reverse()`` per row where the
converters cannot be known (``re_path`` groups, a name used by several patterns).
"""

from __future__ import annotations

import datetime
import operator
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from django.conf import settings
from django.core.exceptions import FieldDoesNotExist
from django.db import connections, models
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.models import TextField
from django.db.models.functions import Cast
from django.urls import NoReverseMatch, URLPattern, URLResolver, get_resolver, reverse
from django.utils.http import escape_leading_slashes

from django_sitemapkit._engine.extensions import images_field, max_entries, news_window
from django_sitemapkit._engine.internals import CHUNK_SIZE, iterate_rows, yields_instances
from django_sitemapkit._engine.pages import KeysetPages, Page, on_current_site, page_table_name
from django_sitemapkit._engine.skiplog import new_page
from django_sitemapkit._protocol.w3c import Lastmod
from django_sitemapkit._reversing import Derived, Refused, derive_location
from django_sitemapkit._sitemaps import ModelSitemap, Sitemap

# What reverse() leaves unquoted (django.urls.resolvers: RFC 3986 sub-delims + "/~:@").
_SAFE = "!$&'()*+,;=/~:@"
_PLAIN = re.compile(r"[A-Za-z0-9_.~-]*")
_SENTINELS = ("sitemapkitarg{}zz", "7351{}9246", "7351{}92-4600-4000-8000-000000000000")


def find_converters(url_name: str) -> dict[str, Any] | None:
    """The converters of every kwarg of the one pattern named ``url_name``, or None."""
    *namespaces, name = url_name.split(":")
    found: list[dict[str, Any]] = []

    def walk(patterns: Sequence[Any], remaining: list[str], converters: dict[str, Any]) -> None:
        for pattern in patterns:
            own = dict(getattr(pattern.pattern, "converters", {}))
            if isinstance(pattern, URLResolver):
                if not pattern.namespace:
                    walk(pattern.url_patterns, remaining, {**converters, **own})
                elif remaining and pattern.namespace == remaining[0]:
                    walk(pattern.url_patterns, remaining[1:], {**converters, **own})
            elif isinstance(pattern, URLPattern) and pattern.name == name and not remaining:
                found.append({**converters, **own})

    walk(get_resolver().url_patterns, namespaces, {})
    return found[0] if len(found) == 1 else None


class UrlTemplate:
    """``reverse(url_name, kwargs=...)`` for many rows at the cost of one call."""

    def __init__(self, url_name: str, kwarg_names: Sequence[str] | int) -> None:
        """``kwarg_names``: the URL keywords filled, in order, or how many positional args."""
        self.url_name = url_name
        # Positional args fill the pattern's keywords in order, as reverse() does.
        self.positional = isinstance(kwarg_names, int)
        self.kwarg_names: tuple[str, ...] = (
            tuple(str(n) for n in range(kwarg_names))
            if isinstance(kwarg_names, int)
            else tuple(kwarg_names)
        )
        # The reversed URL split around each value; None: reverse() per row.
        self.parts: list[str] | None = None
        self.converters: list[Any] = []
        self.regexes: list[re.Pattern[str]] = []
        converters = find_converters(url_name)
        if converters is not None and self.positional:
            if len(converters) != len(self.kwarg_names):
                return  # reverse() refuses it, row by row
            self.kwarg_names = tuple(converters)
        if converters is None or set(self.kwarg_names) - set(converters):
            return  # unknown constraints: reverse() per row
        self.parts = self._reversed_parts(converters)

    def _reversed_parts(self, converters: dict[str, Any]) -> list[str] | None:
        """The URL reversed with placeholders, split around each; None where that fails."""
        sentinels: dict[str, Any] = {}
        for index, kwarg in enumerate(self.kwarg_names):
            converter = converters[kwarg]
            regex = re.compile(converter.regex)
            sentinel = next(
                (s.format(index) for s in _SENTINELS if regex.fullmatch(s.format(index))), None
            )
            if sentinel is None:
                return None
            self.converters.append(converter)
            self.regexes.append(regex)
            sentinels[kwarg] = converter.to_python(sentinel)
        try:
            parts = [reverse(self.url_name, kwargs=sentinels)]
        except NoReverseMatch:
            return None
        for converter, kwarg in zip(self.converters, self.kwarg_names, strict=True):
            head, *rest = parts[-1].split(str(converter.to_url(sentinels[kwarg])))
            if len(rest) != 1:
                return None  # the placeholder is not unique in the URL
            parts[-1:] = [head, rest[0]]
        return parts if parts[0] else None

    def fill(self, values: Sequence[Any]) -> str:
        """The URL of one row; raises NoReverseMatch exactly where reverse() would."""
        if self.parts is None:
            if self.positional:
                return reverse(self.url_name, args=list(values))
            return reverse(self.url_name, kwargs=dict(zip(self.kwarg_names, values, strict=True)))
        parts = self.parts
        out = [parts[0]]
        for index, value in enumerate(values):
            try:
                text = str(self.converters[index].to_url(value))
            except ValueError as exc:
                raise NoReverseMatch(str(exc)) from None
            if not self.regexes[index].fullmatch(text):
                raise NoReverseMatch(
                    f"Reverse for {self.url_name!r} with {self.kwarg_names[index]}={text!r} "
                    "not found: the value does not match the URL pattern."
                )
            out.append(text if _PLAIN.fullmatch(text) else quote(text, safe=_SAFE))
            out.append(parts[index + 1])
        url = "".join(out)
        # reverse() never builds a scheme-relative URL.
        return escape_leading_slashes(url) if url.startswith("//") else url


# Methods taking an item: a section defining one needs instances.
_ITEM_METHODS = ("location", "images", "videos", "news", "extra_xml", "get_languages_for_item")


@dataclass(frozen=True)
class UrlRoute:
    """A URL pattern and the model fields filling it, in argument order."""

    url_name: str
    fields: tuple[str, ...]
    #: The URL keyword each field fills; None: positional ``args``.
    kwargs: tuple[str, ...] | None
    #: Read from get_absolute_url() rather than named by the class.
    derived: bool = False

    def template(self) -> UrlTemplate:
        """The pattern reversed once (in the active language)."""
        return UrlTemplate(self.url_name, len(self.fields) if self.kwargs is None else self.kwargs)


def url_route(sitemap: ModelSitemap) -> UrlRoute | None:
    """The section's URL route, or None when each location is ``location(instance)``."""
    if sitemap.url_name is not None:
        return UrlRoute(
            sitemap.url_name, tuple(sitemap.url_kwargs.values()), tuple(sitemap.url_kwargs)
        )
    derived = derivation(sitemap)
    if isinstance(derived, Refused):
        return None
    return UrlRoute(derived.url_name, derived.fields, derived.kwargs, derived=True)


def derivation(sitemap: ModelSitemap) -> Derived | Refused:
    """``get_absolute_url()`` read as a URL pattern, where the class needs nothing else per row."""
    refusal = needs_instances(sitemap)
    if refusal is not None:
        return Refused(refusal)
    if sitemap.model is None:
        return Refused("the section has no model")
    queryset = sitemap.get_queryset()
    if queryset.model is not sitemap.model:
        # A proxy's (or another model's) rows answer with their own method.
        return Refused(
            f"the rows are {queryset.model._meta.label}'s, not {sitemap.model._meta.label}'s"
        )
    if not yields_instances(queryset):
        return Refused("the QuerySet yields its own kind of rows (a polymorphic manager?)")
    return derive_location(sitemap.model)


def needs_instances(sitemap: ModelSitemap) -> str | None:
    """What in the class takes an instance per row (None: nothing)."""
    cls = type(sitemap)
    for name in _ITEM_METHODS:
        if getattr(cls, name) is not getattr(Sitemap, name):
            return f"{cls.__qualname__}.{name}() takes instances"
    if sitemap.defines_lastmod():
        return f"{cls.__qualname__} gives lastmod itself rather than lastmod_field"
    for name in ("changefreq", "priority"):
        if callable(getattr(sitemap, name)):
            return f"{cls.__qualname__}.{name}() takes instances"
    return None


def route_report(sitemap: Sitemap) -> tuple[bool, str] | None:
    """Whether a model section fills a URL pattern (the fast path), and how it got it or what
    stopped it; None for other sections. For ``sitemapkit_status`` and ``check --deploy``."""
    if not isinstance(sitemap, ModelSitemap):
        return None
    if sitemap.url_name is not None:
        return True, f"URL pattern {sitemap.url_name!r} (url_name)"
    derived = derivation(sitemap)
    if isinstance(derived, Refused):
        return False, f"location() per row: {derived.describe()}"
    where = f"read from get_absolute_url() ({derived.where})"
    return True, f"URL pattern {derived.url_name!r} {where}"


def image_column(sitemap: Sitemap) -> str | None:
    """The column a column row holds the image in: a field of the model itself."""
    name = images_field(sitemap)
    if name is None or "__" in name or not isinstance(sitemap, ModelSitemap):
        return None
    return name if url_route(sitemap) is not None else None


# Backends whose text form of a datetime column is ISO 8601 that
# datetime.fromisoformat() reads: "YYYY-MM-DD HH:MM:SS[.ffffff][+00]".
TEXT_DATETIME_VENDORS = frozenset({"sqlite", "postgresql", "mysql"})


def reads_columns(sitemap: ModelSitemap) -> bool:
    """Whether the section reads column rows (it has a URL route) rather than instances."""
    return url_route(sitemap) is not None


@dataclass(frozen=True)
class RowLayout:
    """Where each value sits in a section's column rows (the cursor's tuples): the key at 0,
    the URL's values at 1 to ``url_values``, then each column at its index here (None: not
    read)."""

    columns: tuple[str, ...]
    url_values: int
    lastmod: int | None = None
    changefreq: int | None = None
    priority: int | None = None
    image: int | None = None

    def url_of(self, row: Sequence[Any]) -> Sequence[Any]:
        return row[1 : 1 + self.url_values]


def row_layout(sitemap: ModelSitemap) -> RowLayout:
    """The layout of ``sitemap``'s column rows."""
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
        news_window(sitemap, on_current_site(sitemap, sitemap.get_queryset())),
        limit=rows_per_page(sitemap),
        lastmod_field=None if field is None else field.name,
    )


def page_items(
    sitemap: ModelSitemap, number: int, limit: int | None = None, page: Page | None = None
) -> Iterator[tuple[Any, Any]]:
    """(key, row) of each row of page ``number``, one past the limit; the first ``limit``
    rows only, when given (``page``: its bounds, if known)."""
    if reads_columns(sitemap):
        for row in page_rows(sitemap, number, limit, page):
            yield row[0], row
        return
    pages = keyset_pages(sitemap)
    new_page(sitemap.section)
    # One row past the limit tells the writer the page overflowed, without
    # ever reading an unbounded open-ended last page.
    rows = pages.page_queryset(number, page)[: limit or pages.limit + 1]
    for obj in rows.iterator(chunk_size=CHUNK_SIZE):
        yield obj.pk, obj


def page_rows(
    sitemap: ModelSitemap, number: int, limit: int | None = None, page: Page | None = None
) -> Iterator[Sequence[Any]]:
    """The column rows of page ``number`` (the first ``limit``), laid out as ``row_layout()``."""
    pages = keyset_pages(sitemap)
    new_page(sitemap.section)
    rows = pages.page_queryset(number, page)
    layout = row_layout(sitemap)
    columns: list[Any] = list(layout.columns)
    if layout.lastmod is not None and connections[rows.db].vendor in TEXT_DATETIME_VENDORS:
        # Read lastmod as text: the drivers' datetime parsing costs more per row than writing
        # the whole <url>; raw_lastmod_converter parses it (and the fast loop slices it).
        columns[layout.lastmod] = Cast(columns[layout.lastmod], TextField())
    return iterate_rows(
        rows.values_list(*columns)[: limit or pages.limit + 1],
        raw_column=layout.lastmod,
        # A few rows: one round trip fetches them, where a server-side cursor takes several.
        server_side=limit is None,
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
    """Turn the database's raw value of a date/datetime column into a Python value, as the
    backends' converters do without their per-row settings lookups (costlier than the XML)."""
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
