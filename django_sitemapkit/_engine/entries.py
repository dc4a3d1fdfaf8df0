"""Items into ``<url>`` elements; an ``i18n`` item's, one per language, never split across files."""

from __future__ import annotations

import datetime
import functools
import logging
import operator
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from django.conf import settings
from django.db import connections
from django.db.models import Max, QuerySet
from django.utils import translation

from django_sitemapkit._compat import ContribUrlsSection
from django_sitemapkit._conf import get_settings
from django_sitemapkit._engine.extensions import (
    EntryRejected,
    Extensions,
    max_entries,
    namespaces,
    overrides,
)
from django_sitemapkit._engine.pages import PageNotFound
from django_sitemapkit._engine.rows import (
    RowLayout,
    UrlTemplate,
    instance_lastmod,
    keyset_pages,
    lastmod_date_only,
    raw_lastmod_converter,
    row_layout,
    url_route,
)
from django_sitemapkit._engine.skiplog import log_skip
from django_sitemapkit._protocol.locations import InvalidLocation, LocationBuilder
from django_sitemapkit._protocol.w3c import Lastmod, format_lastmod, is_w3c_datetime
from django_sitemapkit._protocol.writer import (
    MAX_BYTES_PER_FILE,
    UrlsetWriter,
    changefreq_value,
    escape,
    format_priority,
    priority_value,
    url_element,
)
from django_sitemapkit._reversing import site_languages
from django_sitemapkit._sitemaps import (
    ModelSitemap,
    Sitemap,
    StaticViewSitemap,
    UrlName,
    exclusion,
    lastmod_source,
)

logger = logging.getLogger("django_sitemapkit")

EVERY_ITEM = object()  # the "item" of a constant value, named so in warnings


@dataclass
class RenderContext:
    locations: LocationBuilder
    tz: datetime.tzinfo
    stylesheet: str = ""  # every file's <?xml-stylesheet?> line, or ""
    # The registry rendering, where a model of lastmod_sources has its section.
    sections: Iterable[Sitemap] = ()
    # Each lastmod source's newest lastmod (or why none), read once per render by every factory.
    source_lastmods: dict[tuple[str, str], Lastmod | Exception | None] = field(default_factory=dict)


@dataclass(frozen=True)
class ItemAccess:
    """How to read each part of an entry from one item: the section's API, resolved per file."""

    location: Callable[[Any], Any]
    lastmod: Callable[[Any], Lastmod | None]
    changefreq: str | Callable[[Any], str | None] | None
    priority: float | Callable[[Any], float | None] | None
    describe: Callable[[Any], str] = repr
    url_template: UrlTemplate | None = None  # these two shared with the fast loop
    layout: RowLayout | None = None
    localized: Callable[[str], Callable[[Any], Any]] | None = None  # by language, if not location()


class EntryFactory:
    """Items to ``<url>`` elements or logged skips; a file's first lastmod fixes its date format."""

    def __init__(self, sitemap: Sitemap, context: RenderContext, access: ItemAccess) -> None:
        self.sitemap = sitemap
        self.context = context
        self.tz = context.tz
        self.access = access
        self.location = access.location
        self.build_location = context.locations.build
        self.lastmod = access.lastmod
        self.date_only = lastmod_date_only(sitemap) if isinstance(sitemap, ModelSitemap) else None
        self.values = [  # each with its XML where constant
            (name, value, "" if callable(value) else self._value_xml(name, EVERY_ITEM, value))
            for name, value in (("changefreq", access.changefreq), ("priority", access.priority))
        ]
        self.changefreq_xml, self.priority_xml = (xml for _name, _value, xml in self.values)
        self.extensions = Extensions(
            sitemap,
            context.locations.base_url,
            context.tz,
            access.describe,
            None if access.layout is None else access.layout.image,
        )
        self.details_vary = (
            callable(access.changefreq) or callable(access.priority) or self.extensions.active
        )
        self.constant_details = self.changefreq_xml + self.priority_xml
        self.skipped = 0
        self.last_skip = ""  # why the last item skipped was (sitemapkit_explain tells it)
        self.excluded = 0  # items is_indexable() leaves out: the rule, not a fault
        # Only for instances: column rows are never an item (url_name with it is check E018).
        self.checks_indexable = overrides(sitemap, "is_indexable") and access.layout is None
        self.lastmods_dropped = 0  # entries listed without their unwritable lastmod
        self.last_loc = ""  # the last entry's, for callers' duplicates and newest lastmod
        self.last_lastmod: Lastmod | None = None
        self.languages = LanguageEntries(sitemap, self) if sitemap.i18n else None

    def format_lastmod(self, value: Lastmod) -> str:
        if not isinstance(value, datetime.date):
            raise TypeError(f"{type(value).__name__} is not a date or datetime")
        if self.date_only is None:
            self.date_only = not isinstance(value, datetime.datetime)
        if not self.date_only and type(value) is datetime.datetime and value.tzinfo is self.tz:
            # Already in the site's zone (database values usually are): no conversion.
            text = value.isoformat(timespec="seconds")
            if is_w3c_datetime(text):
                return text
        return format_lastmod(value, self.tz, date_only=self.date_only)

    def __call__(self, item: Any) -> str | None:
        loc = self.locate(item, self.location)
        if loc is None:
            return None
        self.last_loc = loc
        lastmod_xml = self.lastmod_xml(item)
        try:
            details = self.details(item) if self.details_vary else self.constant_details
            return url_element(loc, lastmod_xml, details)
        except Exception as exc:  # so may changefreq(), priority() and extra_xml()
            self.reject(item, exc)
            return None

    def entries(self, item: Any, listed: set[str]) -> tuple[str | None, list[str]]:
        """The XML of ``item``'s entries and their locations; (None, []) when it is left out."""
        if self.checks_indexable and not self.indexable(item):
            return None, []
        if self.languages is not None:
            return self.languages(item, listed)
        xml = self(item)
        if xml is None:
            return None, []
        if self.last_loc in listed:
            self.skip_duplicate(item, self.last_loc)
            return None, []
        return xml, [self.last_loc]

    def indexable(self, item: Any) -> bool:
        """Whether ``item`` is listed by the section's indexability rules, as the template tag
        asks (``noindex_field`` is already applied in SQL); an exclusion is counted, an
        ``is_indexable()`` that raises is a skip."""
        try:
            if exclusion(self.sitemap, item) is None:
                return True
        except Exception as exc:  # a user's is_indexable() may raise anything
            self.skip(item, f"is_indexable() raised {type(exc).__name__}: {exc}")
            return False
        self.excluded += 1
        return False

    def reject(self, item: Any, exc: Exception) -> None:
        """Skip ``item``, whose details raised ``exc``; old news is left out without a warning."""
        if isinstance(exc, EntryRejected):
            self.skip(item, str(exc), quiet=exc.quiet)
        else:
            self.skip(item, f"{type(exc).__name__}: {exc}")

    def locate(self, item: Any, location: Callable[[Any], Any]) -> str | None:
        try:
            return self.build_location(location(item))
        except InvalidLocation as exc:
            self.skip(item, str(exc))
        except Exception as exc:  # a user's location() may raise anything
            self.skip(item, f"location() raised {type(exc).__name__}: {exc}")
        return None

    def lastmod_xml(self, item: Any) -> str:
        """``item``'s ``<lastmod>``; "" (logged, counted) if it cannot be written, not a skip."""
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

    def details(self, item: Any, links: str = "") -> str:
        values = "".join(
            self._value_xml(name, item, value(item)) if callable(value) else xml
            for name, value, xml in self.values
        )
        extra = self.extensions(item) if self.extensions.active else ""
        return f"{values}{links}{extra}"

    def _value_xml(self, name: str, item: Any, value: Any) -> str:
        """``<name>`` of ``value``; "" for None or (logged) a bad value."""
        if value is None:
            return ""
        try:
            return f"<{name}>{_VALUE_TEXT[name](value)}</{name}>"
        except ValueError as exc:
            described = "every item" if item is EVERY_ITEM else self.access.describe(item)
            logger.warning(
                "Sitemap section %r: ignored the %s of %s: %s.",
                self.sitemap.section,
                name,
                described,
                exc,
            )
            return ""

    def skip_duplicate(self, item: Any, loc: str) -> None:
        self.skip(item, f"{loc} is listed already in this file")

    def skip(self, item: Any, reason: str, *, quiet: bool = False) -> None:
        """Count ``item`` as skipped, and log why (at debug level when ``quiet``: expected)."""
        self.skipped += 1
        self.last_skip = reason
        log_skip(self.sitemap.section, self.access.describe(item), reason, quiet=quiet)


_VALUE_TEXT: dict[str, Callable[[Any], str]] = {  # ValueError for a bad value
    "changefreq": changefreq_value,
    "priority": lambda value: format_priority(priority_value(value)),
}


def new_writer(sitemap: Sitemap, stylesheet: str = "") -> UrlsetWriter:
    return UrlsetWriter(
        max_entries=max_entries(sitemap),
        max_bytes=MAX_BYTES_PER_FILE,
        namespaces=namespaces(sitemap),
        stylesheet=stylesheet,
    )


def item_access(sitemap: Sitemap) -> ItemAccess:
    if not isinstance(sitemap, ModelSitemap) or (route := url_route(sitemap)) is None:
        return ItemAccess(
            sitemap.location, instance_lastmod(sitemap), sitemap.changefreq, sitemap.priority
        )
    assert sitemap.model is not None
    layout = row_layout(sitemap)
    template = route.template()
    fill, url_of = template.fill, operator.itemgetter(slice(1, 1 + layout.url_values))
    lastmod_getter = None
    if layout.lastmod is not None:
        field = sitemap.get_lastmod_field()
        assert field is not None
        convert = raw_lastmod_converter(field, connections[sitemap.get_queryset().db])
        read_lastmod = operator.itemgetter(layout.lastmod)
        lastmod_getter = lambda row: convert(read_lastmod(row))  # noqa: E731
    label = sitemap.model._meta.label

    def localized(language: str) -> Callable[[Any], Any]:
        with translation.override(language):
            fill = route.template().fill
        return lambda row: fill(url_of(row))

    return ItemAccess(
        location=lambda row: fill(url_of(row)),
        lastmod=lastmod_getter or (lambda row: None),
        changefreq=_column(layout.changefreq) or sitemap.changefreq,
        priority=_column(layout.priority) or sitemap.priority,
        describe=lambda row: f"<{label} pk={row[0]!r}>",
        url_template=template,
        layout=layout,
        localized=localized,
    )


def _column(index: int | None) -> Callable[[Any], Any] | None:
    return None if index is None else operator.itemgetter(index)


def entry_factory(sitemap: Sitemap, context: RenderContext) -> EntryFactory:
    """The section's factory, in its ``protocol`` only without a base URL (a TLS proxy says http)."""
    conf = get_settings()
    if sitemap.protocol is not None and not (conf.BASE_URL or conf.SITES):
        context = replace(context, locations=context.locations.with_scheme(sitemap.protocol))
    if isinstance(sitemap, ContribUrlsSection):
        return UrlInfoFactory(sitemap, context, URL_INFO_ACCESS)
    access = item_access(sitemap)
    # Not a mapping is E027's; never tested for truth here: a QuerySet would read its rows.
    if isinstance(sitemap, StaticViewSitemap) and isinstance(sitemap.lastmod_sources, Mapping):
        access = replace(access, lastmod=sourced_lastmod(sitemap, context, access.lastmod))
    return EntryFactory(sitemap, context, access)


def sourced_lastmod(
    sitemap: StaticViewSitemap, context: RenderContext, own: Callable[[Any], Lastmod | None]
) -> Callable[[Any], Lastmod | None]:
    """An item's lastmod: for a URL name of ``lastmod_sources``, the newest lastmod of its
    rows, one aggregate per render (None without a dated row), else ``own``: the page's, as
    the index's figures and every render (views and builds) take it from their factory."""
    sources, cache = sitemap.lastmod_sources, context.source_lastmods

    def lastmod(item: Any) -> Lastmod | None:
        if not isinstance(item, UrlName) or item.name not in sources:
            return own(item)
        key = (sitemap.name, item.name)
        if key not in cache:
            try:
                cache[key] = newest_row_lastmod(sources[item.name], context.sections)
            except Exception as exc:  # logged per entry as a lastmod that cannot be written
                cache[key] = exc
        if isinstance(newest := cache[key], Exception):
            raise newest
        return newest

    return lastmod


def newest_row_lastmod(value: Any, sections: Iterable[Sitemap]) -> Lastmod | None:
    """The newest lastmod of a ``lastmod_sources`` value's rows; a model's are those its
    section lists (``for_site()``, a news window and all), a QuerySet's its own."""
    section, date = lastmod_source(value, sections)
    if not isinstance(value, QuerySet):
        assert section is not None
        value = keyset_pages(section).queryset
    newest: Lastmod | None = value.aggregate(newest=Max(date.name))["newest"]
    return newest


# Each of contrib's ``get_urls()`` dicts is one ``<url>``; its alternates become links.
URL_INFO_ACCESS = ItemAccess(
    location=operator.itemgetter("location"),
    lastmod=lambda info: info.get("lastmod"),
    changefreq=lambda info: info.get("changefreq"),
    priority=lambda info: info.get("priority"),
    describe=lambda info: repr(info.get("location")),
)


def url_infos(
    sitemap: ContribUrlsSection, number: int, context: RenderContext
) -> Iterator[tuple[int, Mapping[str, Any]]]:
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
    def details(self, info: Mapping[str, Any], links: str = "") -> str:
        """With one ``<xhtml:link>`` per alternate; a refused location is left out (logged)."""
        alternates = []
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
            alternates.append(alternate_link(code, href))
        return super().details(info, "".join(alternates))


def alternate_link(code: str, href: str) -> str:
    return f'<xhtml:link rel="alternate" hreflang="{escape(code)}" href="{escape(href)}"/>'


def _in_language(location: Callable[[Any], Any], language: str) -> Callable[[Any], Any]:
    def located(item: Any) -> Any:
        with translation.override(language):
            return location(item)

    return located


class LanguageEntries:
    def __init__(self, sitemap: Sitemap, factory: EntryFactory) -> None:
        self.sitemap = sitemap
        self.factory = factory
        self.known = frozenset(site_languages())
        self.default = settings.LANGUAGE_CODE
        self._refused: set[str] = set()
        # An item's location in a language, made once per language.
        self.locator = functools.cache(
            factory.access.localized or functools.partial(_in_language, factory.location)
        )

    def languages_of(self, item: Any) -> list[str]:
        """The item's languages that ``settings.LANGUAGES`` offers (no URL may carry another)."""
        languages = []
        for code in self.sitemap.get_languages_for_item(item):
            if code in self.known:
                languages.append(code)
            elif code not in self._refused:
                self._refused.add(code)
                logger.warning(
                    "Sitemap section %r: left out language %r, which settings.LANGUAGES "
                    "does not list: its URLs would not resolve.",
                    self.sitemap.section,
                    code,
                )
        return languages

    def __call__(self, item: Any, listed: set[str]) -> tuple[str | None, list[str]]:
        """The entries of ``item`` whose locations ``listed`` lacks, and those locations;
        (None, []) when it is skipped."""
        factory = self.factory
        try:
            languages = self.languages_of(item)
        except Exception as exc:  # a user's get_languages_for_item() may raise anything
            factory.skip(item, f"get_languages_for_item() raised {type(exc).__name__}: {exc}")
            return None, []
        if not languages:
            factory.skip(item, "it has no language of settings.LANGUAGES")
            return None, []
        located = []
        for code in languages:
            loc = factory.locate(item, self.locator(code))
            if loc is None:
                return None, []
            located.append((code, loc))
        lastmod_xml = factory.lastmod_xml(item)
        try:
            details = factory.details(item, self.links(located))
        except Exception as exc:  # so may changefreq(), priority() and extra_xml()
            factory.reject(item, exc)
            return None, []
        locs = list(dict.fromkeys(loc for _code, loc in located))  # no i18n_patterns: one page
        new = [loc for loc in locs if loc not in listed]
        if not new:
            factory.skip_duplicate(item, locs[0])
            return None, []
        return "".join(url_element(loc, lastmod_xml, details) for loc in new), new

    def links(self, located: list[tuple[str, str]]) -> str:
        if not self.sitemap.alternates:
            return ""
        links = list(located)
        if self.sitemap.x_default and any(code == self.default for code, _loc in located):
            loc = dict(located)[self.default]
            links.append(("x-default", loc.replace(f"/{self.default}/", "/", 1)))  # contrib's rule
        return "".join(alternate_link(code, loc) for code, loc in links)
