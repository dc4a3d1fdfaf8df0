"""A model section's rows: instances, or column rows filling its URL route (docs/sitemaps.md)."""

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
from django_sitemapkit._sitemaps import ModelSitemap, Sitemap, listed_rows

_SAFE = "!$&'()*+,;=/~:@"  # what reverse() leaves unquoted (RFC 3986 sub-delims + "/~:@")
_PLAIN = re.compile(r"[A-Za-z0-9_.~-]*")
_SENTINELS = ("sitemapkitarg{}zz", "7351{}9246", "7351{}92-4600-4000-8000-000000000000")


def find_converters(url_name: str) -> dict[str, Any] | None:
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
    """``reverse()`` for many rows at one call's cost (it costs more than all else per URL): once
    with placeholders, then per row reverse()'s converters, checks and quoting, byte for byte;
    reverse() per row where converters are unknown (``re_path`` groups, a name used twice)."""

    def __init__(self, url_name: str, kwarg_names: Sequence[str] | int) -> None:
        """``kwarg_names``: the URL keywords filled, in order, or how many positional args."""
        self.url_name = url_name
        self.positional = isinstance(kwarg_names, int)
        self.parts: list[str] | None = None  # split around each value; None: reverse() per row
        self.converters: list[Any] = []
        self.regexes: list[re.Pattern[str]] = []
        converters = find_converters(url_name)
        if isinstance(kwarg_names, int):  # args fill keywords in order, as in reverse()
            if converters is not None and len(converters) != kwarg_names:
                converters = None  # reverse() refuses it, row by row
            kwarg_names = () if converters is None else tuple(converters)
        self.kwarg_names = tuple(kwarg_names)
        if converters is None or set(self.kwarg_names) - set(converters):
            return  # unknown constraints: reverse() per row
        self.parts = self._reversed_parts(converters)

    def _reversed_parts(self, converters: dict[str, Any]) -> list[str] | None:
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
        return escape_leading_slashes(url) if url.startswith("//") else url  # as reverse() does


# Methods taking an item: a section defining one needs instances.
_ITEM_METHODS = (
    "location",
    "images",
    "videos",
    "news",
    "extra_xml",
    "get_languages_for_item",
    "is_indexable",
)


@dataclass(frozen=True)
class UrlRoute:
    """A URL pattern and the model fields filling it, in argument order."""

    url_name: str
    fields: tuple[str, ...]
    kwargs: tuple[str, ...] | None  # the URL keyword each field fills; None: positional

    def template(self) -> UrlTemplate:
        return UrlTemplate(self.url_name, len(self.fields) if self.kwargs is None else self.kwargs)


def url_route(sitemap: ModelSitemap) -> UrlRoute | None:
    if sitemap.url_name is not None:
        return UrlRoute(
            sitemap.url_name, tuple(sitemap.url_kwargs.values()), tuple(sitemap.url_kwargs)
        )
    derived = derivation(sitemap)
    if isinstance(derived, Refused):
        return None
    return UrlRoute(derived.url_name, derived.fields, derived.kwargs)


def derivation(sitemap: ModelSitemap) -> Derived | Refused:
    refusal = needs_instances(sitemap)
    if refusal is not None:
        return Refused(refusal)
    if sitemap.model is None:
        return Refused("the section has no model")
    queryset = sitemap.get_queryset()
    if queryset.model is not sitemap.model:  # a proxy's rows answer with their own method
        return Refused(
            f"the rows are {queryset.model._meta.label}'s, not {sitemap.model._meta.label}'s"
        )
    if not yields_instances(queryset):
        return Refused("the QuerySet yields its own kind of rows (a polymorphic manager?)")
    return derive_location(sitemap.model)


def needs_instances(sitemap: ModelSitemap) -> str | None:
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
    """Whether a model section fills a URL pattern (fast path), and how or why not; else None."""
    if not isinstance(sitemap, ModelSitemap):
        return None
    if sitemap.url_name is not None:
        return True, f"URL pattern {sitemap.url_name!r} (url_name)"
    derived = derivation(sitemap)
    if isinstance(derived, Refused):
        return False, f"location() per row: {derived.describe()}"
    where = f"read from get_absolute_url() ({derived.where})"
    return True, f"URL pattern {derived.url_name!r} {where}"


# Backends whose datetime text datetime.fromisoformat() reads: "YYYY-MM-DD HH:MM:SS[.ffffff][+00]".
TEXT_DATETIME_VENDORS = frozenset({"sqlite", "postgresql", "mysql"})


@dataclass(frozen=True)
class RowLayout:
    """Column rows: key at 0, URL values from 1 (``url_values``), each column at its index here."""

    columns: tuple[str, ...]
    url_values: int
    lastmod: int | None = None
    changefreq: int | None = None
    priority: int | None = None
    image: int | None = None


def row_layout(sitemap: ModelSitemap) -> RowLayout:
    route = url_route(sitemap)
    assert route is not None
    columns = ["pk", *route.fields]
    field, image = sitemap.get_lastmod_field(), images_field(sitemap)
    positions = {}
    for name, column in (
        ("lastmod", None if field is None else field.name),
        ("changefreq", sitemap.changefreq_field),
        ("priority", sitemap.priority_field),
        ("image", None if image is None or "__" in image else image),  # only the model's own
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


def instance_lastmod(sitemap: Sitemap) -> Callable[[Any], Any]:
    """An item's lastmod: the class's ``lastmod`` where it gives one, else its field's value."""
    if not isinstance(sitemap, ModelSitemap) or sitemap.defines_lastmod():
        lastmod = sitemap.lastmod
        return lastmod if callable(lastmod) else (lambda obj: lastmod)
    field = sitemap.get_lastmod_field()
    return (lambda obj: None) if field is None else operator.attrgetter(field.attname)


def keyset_pages(sitemap: ModelSitemap) -> KeysetPages:
    field = sitemap.get_lastmod_field()
    return KeysetPages(
        page_table_name(sitemap),
        news_window(sitemap, on_current_site(sitemap, listed_rows(sitemap))),
        limit=rows_per_page(sitemap),
        lastmod_field=None if field is None else field.name,
    )


def page_items(
    sitemap: ModelSitemap, number: int, limit: int | None = None, page: Page | None = None
) -> Iterator[tuple[Any, Any]]:
    """(key, row) of page ``number``'s rows, one past the limit, or the first ``limit`` only."""
    if url_route(sitemap) is not None:  # column rows
        yield from ((row[0], row) for row in page_rows(sitemap, number, limit, page))
        return
    pages = keyset_pages(sitemap)
    new_page(sitemap.section)
    # One row past the limit tells the writer the page overflowed, never reading it unbounded.
    rows = pages.page_queryset(number, page)[: limit or pages.limit + 1]
    for obj in rows.iterator(chunk_size=CHUNK_SIZE):
        yield obj.pk, obj


def page_rows(
    sitemap: ModelSitemap, number: int, limit: int | None = None, page: Page | None = None
) -> Iterator[Sequence[Any]]:
    pages = keyset_pages(sitemap)
    new_page(sitemap.section)
    rows = pages.page_queryset(number, page)
    layout = row_layout(sitemap)
    columns: list[Any] = list(layout.columns)
    if layout.lastmod is not None and connections[rows.db].vendor in TEXT_DATETIME_VENDORS:
        # As text: drivers' datetime parsing costs more per row than writing the whole <url>.
        columns[layout.lastmod] = Cast(columns[layout.lastmod], TextField())
    return iterate_rows(
        rows.values_list(*columns)[: limit or pages.limit + 1],
        raw_column=layout.lastmod,
        server_side=limit is None,  # few rows: one round trip; a server-side cursor takes several
    )


def url_values_unique(sitemap: ModelSitemap, layout: RowLayout) -> bool:
    assert sitemap.model is not None
    if layout.url_values != 1:
        return False
    name = layout.columns[1]
    try:
        field = sitemap.model._meta.get_field(name)
    except FieldDoesNotExist:
        return name == "pk"
    return bool(getattr(field, "unique", False))


def database_is_utc(sitemap: ModelSitemap) -> bool:
    connection = connections[sitemap.get_queryset().db]
    return bool(settings.USE_TZ) and connection.timezone is datetime.UTC


def raw_lastmod_converter(
    field: models.Field[Any, Any], connection: BaseDatabaseWrapper
) -> Callable[[Any], Lastmod | None]:
    """A date column's raw value as backends convert it, minus their costly per-row lookups."""
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
    return lambda value: parse_date(value) if value.__class__ is str else value
