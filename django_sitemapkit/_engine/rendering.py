"""The one rendering path of views and build (so their files match): bytes, ETag, lastmod."""

from __future__ import annotations

import contextlib
import datetime
import gzip
import hashlib
import logging
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cached_property
from typing import NoReturn, Protocol

from django.db import connections
from django.urls import get_resolver, get_script_prefix, get_urlconf, reverse
from django.utils import timezone

from django_sitemapkit._conf import get_settings
from django_sitemapkit._engine import rows
from django_sitemapkit._engine.entries import RenderContext, item_access
from django_sitemapkit._engine.pages import PageNotFound
from django_sitemapkit._engine.sections import listing, page_figures, render_sitemap_page
from django_sitemapkit._engine.skiplog import one_render
from django_sitemapkit._protocol.files import STYLESHEETS, Stylesheet
from django_sitemapkit._protocol.locations import InvalidLocation, LocationBuilder
from django_sitemapkit._protocol.w3c import format_lastmod, later, to_aware
from django_sitemapkit._protocol.writer import IndexWriter, UrlsetWriter, url_element
from django_sitemapkit._reversing import rendering_language
from django_sitemapkit._siteconfig import SiteConfig, rendering_site
from django_sitemapkit._sitemaps import ModelSitemap, Sitemap, StaticViewSitemap, listed_rows


class SectionRegistry(Protocol):
    """What rendering needs of a set of sections: a ``SitemapSite``."""

    name: str  # the URL namespace of its views

    def get(self, section: str) -> Sitemap | None: ...
    def __iter__(self) -> Iterator[Sitemap]: ...
    def sections(self) -> list[str]: ...
    def invalidate_listing(self, section: str) -> None: ...


class SiteSections:
    """The sections of ``sitemaps`` one site of ``SITEMAPKIT["SITES"]`` lists."""

    def __init__(self, sitemaps: SectionRegistry, site: SiteConfig) -> None:
        self.sitemaps = sitemaps
        self.site = site
        self.name = sitemaps.name

    def get(self, section: str) -> Sitemap | None:
        return self.sitemaps.get(section) if self.site.lists(section) else None

    def __iter__(self) -> Iterator[Sitemap]:
        return (sitemap for sitemap in self.sitemaps if self.site.lists(sitemap.name))

    def sections(self) -> list[str]:
        return [name for name in self.sitemaps.sections() if self.site.lists(name)]

    def invalidate_listing(self, section: str) -> None:
        self.sitemaps.invalidate_listing(section)


def site_of(sitemaps: SectionRegistry) -> SiteConfig | None:
    return sitemaps.site if isinstance(sitemaps, SiteSections) else None


URL_NAMESPACE = "sitemapkit"  # the default site's, which ``django_sitemapkit.urls`` holds

logger = logging.getLogger("django_sitemapkit")


class SectionNotFound(LookupError):
    """No section of that name is registered."""


@dataclass(frozen=True)
class RenderedFile:
    content: bytes
    last_modified: datetime.datetime | None
    url_count: int = 0
    skipped: int = 0

    @cached_property
    def etag(self) -> str:
        return f'"{hashlib.sha256(self.content).hexdigest()[:32]}"'

    def gzipped(self) -> RenderedFile:
        """The same file as gzip, byte for byte what a build writes."""
        return RenderedFile(gzipped(self.content), self.last_modified, self.url_count, self.skipped)


def gzipped(content: bytes) -> bytes:
    """``content`` gzipped without a timestamp (reproducible), at zlib's default level 6."""
    return gzip.compress(content, compresslevel=6, mtime=0)


def site_time_zone() -> datetime.tzinfo:
    """settings.TIME_ZONE, never a per-request activated zone: output must not vary by user."""
    zone = timezone.get_default_timezone()
    # The database's values are datetime.UTC-aware: the same object skips a conversion.
    return datetime.UTC if getattr(zone, "key", None) in ("UTC", "Etc/UTC") else zone


def views_routed(namespace: str = URL_NAMESPACE) -> bool:
    resolver = get_resolver(get_urlconf())
    return namespace in resolver.namespace_dict or namespace in resolver.app_dict


def index_path(namespace: str = URL_NAMESPACE) -> str:
    """Where the index lives, the one rule for every file's URL: the views' URL where they
    are routed, else the script prefix, where a web server serves the built files."""
    if views_routed(namespace):
        return reverse(f"{namespace}:index")
    return get_script_prefix() + INDEX_NAME


def index_directory(namespace: str = URL_NAMESPACE) -> str:
    """The path of the index's directory, ending in "/": all the sitemaps may list is under it."""
    return index_path(namespace).rpartition("/")[0] + "/"


def page_path(
    section: str, number: int, *, gz: bool = False, namespace: str = URL_NAMESPACE
) -> str:
    if views_routed(namespace):
        name = f"{namespace}:section" + ("-gz" if gz else "")
        return reverse(name, kwargs={"section": section, "page": number})
    # Beside the index, under the name urls.py gives the page (and a build its file).
    return index_directory(namespace) + page_filename(section, number) + (".gz" if gz else "")


def stylesheet() -> Stylesheet | None:
    """The stylesheet every file names (``STYLESHEET``), or None."""
    kind = get_settings().STYLESHEET
    return None if kind is None else STYLESHEETS[kind]


def stylesheet_href(namespace: str = URL_NAMESPACE) -> str | None:
    """The stylesheet's href (None: none), beside the index: browsers apply an XSL stylesheet
    only from the file's own origin, and the CSS one is served the same way."""
    sheet = stylesheet()
    return None if sheet is None else index_directory(namespace) + sheet.name


def stylesheet_instruction(namespace: str = URL_NAMESPACE) -> str:
    """The ``<?xml-stylesheet?>`` line of every file, or "" (no stylesheet)."""
    sheet, href = stylesheet(), stylesheet_href(namespace)
    return "" if sheet is None or href is None else sheet.instruction(href)


def make_context(
    base_url: str, namespace: str = URL_NAMESPACE, sitemaps: SectionRegistry | None = None
) -> RenderContext:
    """One render's context (a build's, a request's); ``sitemaps``: the sections rendered."""
    directory_url = base_url + index_directory(namespace)
    strip = get_settings().STRIP_QUERY_PARAMS
    locations = LocationBuilder(base_url, directory_url=directory_url, strip_params=strip)
    # A site's sections are some of its registry's: lastmod_sources' models are registered there.
    registry = sitemaps.sitemaps if isinstance(sitemaps, SiteSections) else sitemaps
    return RenderContext(
        locations,
        tz=site_time_zone(),
        stylesheet=stylesheet_instruction(namespace),
        sections=() if registry is None else registry,
    )


def render_page(
    section: str, number: int, *, base_url: str, sitemaps: SectionRegistry
) -> RenderedFile:
    """One ``<urlset>`` file; SectionNotFound, or PageNotFound (also when every item is skipped)."""
    sitemap = sitemaps.get(section)
    if sitemap is None:
        raise SectionNotFound(section)
    with rendering_language(), rendering_site(site_of(sitemaps)), one_render():
        page = render_sitemap_page(sitemap, number, make_context(base_url, sitemaps.name, sitemaps))
    if page.pages_recut:
        sitemaps.invalidate_listing(section)
    return RenderedFile(
        page.content, page.lastmod if page.every_entry_dated else None, page.url_count, page.skipped
    )


@dataclass(frozen=True)
class IndexEntry:
    section: str
    number: int
    lastmod: datetime.datetime | datetime.date | None


def write_index(
    entries: Iterable[IndexEntry], *, base_url: str, namespace: str = URL_NAMESPACE
) -> RenderedFile:
    """The ``<sitemapindex>`` naming ``entries`` in order; PageNotFound when there is none
    (an empty index is invalid), IndexFull past 50,000. Undated when an entry is."""
    tz = site_time_zone()
    gz = get_settings().INDEX_LINKS_GZIP
    writer = IndexWriter(stylesheet=stylesheet_instruction(namespace))
    newest: datetime.date | datetime.datetime | None = None
    undated = False
    for entry in entries:
        lastmod = None
        if entry.lastmod is not None:
            newest = later(newest, entry.lastmod, tz)
            try:
                # Always a datetime: one format per file, a date being midnight of its day.
                lastmod = format_lastmod(entry.lastmod, tz, date_only=False)
            except (OverflowError, ValueError):
                logger.warning(  # 9999 ahead of UTC is year 10000: crawlers will always fetch it
                    "Sitemap index: listed page %d of section %r without lastmod: "
                    "%s cannot be written in %s.",
                    entry.number,
                    entry.section,
                    entry.lastmod,
                    tz,
                )
        undated = undated or lastmod is None
        path = page_path(entry.section, entry.number, gz=gz, namespace=namespace)
        writer.add(base_url + path, lastmod)
    if writer.count == 0:
        raise PageNotFound(0)
    last_modified = None if newest is None or undated else to_aware(newest, tz)
    return RenderedFile(writer.content(), last_modified, url_count=writer.count)


def render_index(*, base_url: str, sitemaps: SectionRegistry) -> RenderedFile:
    """The index as the database has it now: each page listing a URL, with its figures' lastmod
    (none where a row has none, as contrib's); while there is none, ``empty_site_file()``."""
    with rendering_language(), rendering_site(site_of(sitemaps)), one_render():
        context = make_context(base_url, sitemaps.name, sitemaps)
        entries = (
            IndexEntry(sitemap.name, figures.number, figures.newest)
            for sitemap in sitemaps
            for figures in listing(sitemap, context, page_figures(sitemap, context))
        )
        try:
            return write_index(entries, base_url=base_url, namespace=sitemaps.name)
        except PageNotFound:
            return empty_site_file(base_url=base_url, namespace=sitemaps.name)


def empty_site_file(*, base_url: str, namespace: str = URL_NAMESPACE) -> RenderedFile:
    """``/sitemap.xml`` while no section has a URL: a ``<urlset>`` of its directory, undated."""
    writer = UrlsetWriter(stylesheet=stylesheet_instruction(namespace))
    writer.add_xml(url_element(base_url + index_directory(namespace)))
    return RenderedFile(writer.content(), None, url_count=1)


INDEX_NAME = "sitemap.xml"
PAGE_NUMBER = "[1-9][0-9]{0,8}"  # canonical (no 0, no leading zeros): one URL a file


def page_filename(section: str, number: int) -> str:
    return f"sitemap-{section}-{number}.xml"


INDEX_AT_ROOT_HINT = (
    'Include the sitemap URLs at the root of the site: path("", site.urls), '
    "or leave the include out where a web server serves the files sitemapkit_build writes."
)


class IndexDirectory:
    """The directory of the sitemap index, which holds every URL the sitemaps may list."""

    def __init__(self, base_url: str, namespace: str = URL_NAMESPACE) -> None:
        self.index_path = index_path(namespace)
        # The site's builder refuses only what is wrong anywhere, skipped for its own reason.
        self.inside = make_context(base_url, namespace).locations
        self.site = LocationBuilder(base_url, strip_params=get_settings().STRIP_QUERY_PARAMS)

    def misplaced(self, sitemap: Sitemap, *, query: bool = False) -> str | None:
        """What lists a URL of ``sitemap`` outside the directory, if any (``query``: read a row)."""
        if self.inside.directory_url == self.site.directory_url:
            return None  # the site's root holds every URL
        try:
            samples = _sample_locations(sitemap, query=query)
        except Exception:  # fails again where rendered, which skips the item and says why
            return None
        for raw, is_prefix in samples:
            try:
                url = self.site.build(raw)
            except InvalidLocation:
                continue
            directory = self.inside.directory_url
            # A prefix above the directory ("/" for "/sitemapkit/") leaves it to the rest.
            if not url.startswith(directory) and not (is_prefix and directory.startswith(url)):
                what = f"URLs starting {url}" if is_prefix else url
                return (
                    f"lists {what}, outside {directory}, the directory of the sitemap index "
                    f"{self.index_path}: a sitemap may only list URLs under its own directory."
                )
        return None


def _sample_locations(sitemap: Sitemap, *, query: bool) -> list[tuple[object, bool]]:
    """Cheap locations of ``sitemap``: (what location() gives, is it only a prefix)."""
    if not isinstance(sitemap, ModelSitemap):
        items = sitemap.items()
        if not isinstance(sitemap, StaticViewSitemap):
            if not query and not isinstance(items, list | tuple):
                return []  # a QuerySet or another lazy sequence: reading it is a query
            items = items[:1]
        return [(sitemap.location(item), False) for item in items]
    samples: list[tuple[object, bool]] = []
    route = rows.url_route(sitemap)
    if route is not None and (parts := route.template().parts) is not None:
        samples.append((parts[0], True))
    if query and sitemap.model is not None:
        queryset = listed_rows(sitemap)
        if route is not None:  # column rows
            queryset = queryset.values_list(*rows.row_layout(sitemap).columns)
        row = queryset.first()
        if row is not None:
            samples.append((item_access(sitemap).location(row), False))
    return samples


def _refuse_database(*args: object, **kwargs: object) -> NoReturn:
    raise RuntimeError("system checks do not query the database")


@contextlib.contextmanager
def without_database() -> Iterator[None]:
    """Refuse this thread's database access, as SimpleTestCase does: checks run before every
    command, migrate included, and must not read tables that may not exist yet."""
    patched = [(c, vars(c).get("ensure_connection")) for c in connections.all()]
    for connection, _ in patched:
        setattr(connection, "ensure_connection", _refuse_database)  # noqa: B010
    try:
        yield
    finally:
        for connection, previous in patched:
            if previous is None:
                delattr(connection, "ensure_connection")
            else:
                setattr(connection, "ensure_connection", previous)  # noqa: B010
