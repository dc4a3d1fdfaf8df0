"""The single rendering path: the views and the static build both call these.

Each function returns the finished bytes of one file plus what HTTP needs
(a strong ETag and the newest lastmod), so a file served by a view and a file
written by the build are the same bytes.
"""

from __future__ import annotations

import datetime
import gzip
import hashlib
import logging
import posixpath
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cached_property
from typing import Protocol

from django.urls import get_resolver, get_script_prefix, get_urlconf, reverse
from django.utils import timezone

from django_sitemapkit.conf import get_settings
from django_sitemapkit.engine.emptysite import empty_site_pieces
from django_sitemapkit.engine.entries import RenderContext
from django_sitemapkit.engine.filenames import INDEX_NAME, page_filename
from django_sitemapkit.engine.pages import PageNotFound
from django_sitemapkit.engine.sections import page_figures
from django_sitemapkit.engine.sections import render_page as render_section_page
from django_sitemapkit.engine.skiplog import one_render
from django_sitemapkit.languages import rendering_language
from django_sitemapkit.protocol.locations import LocationBuilder
from django_sitemapkit.protocol.stylesheet import STYLESHEET_NAME
from django_sitemapkit.protocol.w3c import format_lastmod, later, to_aware
from django_sitemapkit.protocol.writer import IndexWriter
from django_sitemapkit.siteconfig import SiteConfig, rendering_site
from django_sitemapkit.sitemaps import Sitemap


class Sections(Protocol):
    """What rendering needs of a set of sections: a ``SitemapSite``."""

    #: The URL namespace its views are routed under.
    name: str

    def get(self, section: str) -> Sitemap | None: ...

    def __iter__(self) -> Iterator[Sitemap]: ...

    def sections(self) -> list[str]: ...

    def pages_changed(self, section: str) -> None:
        """The recorded pages of ``section`` changed: drop what lists them."""


class SiteSections:
    """The sections of ``sitemaps`` one site of ``SITEMAPKIT["SITES"]`` lists."""

    def __init__(self, sitemaps: Sections, site: SiteConfig) -> None:
        self.sitemaps = sitemaps
        self.site = site
        self.name = sitemaps.name

    def get(self, section: str) -> Sitemap | None:
        return self.sitemaps.get(section) if self.site.lists(section) else None

    def __iter__(self) -> Iterator[Sitemap]:
        return (sitemap for sitemap in self.sitemaps if self.site.lists(sitemap.name))

    def sections(self) -> list[str]:
        return [name for name in self.sitemaps.sections() if self.site.lists(name)]

    def pages_changed(self, section: str) -> None:
        self.sitemaps.pages_changed(section)


def site_of(sitemaps: Sections) -> SiteConfig | None:
    """The site whose sections ``sitemaps`` are, if they are one site's."""
    return sitemaps.site if isinstance(sitemaps, SiteSections) else None


# The URL namespace of the default site, whose URLs ``django_sitemapkit.urls`` holds.
URL_NAMESPACE = "sitemapkit"

logger = logging.getLogger("django_sitemapkit")


class SectionNotFound(LookupError):
    """No section of that name is registered."""


@dataclass(frozen=True)
class RenderedFile:
    content: bytes
    last_modified: datetime.datetime | None
    url_count: int = 0
    skipped: int = 0
    # The sizes of the writer's pieces (head, segments, tail) that make up
    # ``content``: its .gz compresses them one by one, as a build does.
    piece_sizes: tuple[int, ...] = ()

    @cached_property
    def etag(self) -> str:
        return f'"{hashlib.sha256(self.content).hexdigest()[:32]}"'

    def gzipped(self) -> RenderedFile:
        """The same file as raw gzip, byte for byte what a build writes."""
        return RenderedFile(
            gzip_file(self.content), self.last_modified, self.url_count, self.skipped
        )


def gzip_file(content: bytes) -> bytes:
    """The ``.gz`` of a file: one gzip member without a timestamp, so that its bytes depend on
    nothing but ``content`` (level 6: zlib's default, the usual balance for files fetched often)."""
    return gzip.compress(content, compresslevel=6, mtime=0)


def site_time_zone() -> datetime.tzinfo:
    """settings.TIME_ZONE, never a per-request activated zone: output must not vary by user."""
    zone = timezone.get_default_timezone()
    # The database hands out datetime.UTC-aware values; the same object here
    # lets them be written without a conversion (the output is identical).
    return datetime.UTC if getattr(zone, "key", None) in ("UTC", "Etc/UTC") else zone


def views_routed(namespace: str = URL_NAMESPACE) -> bool:
    """Whether the URLconf routes a site's views under ``namespace`` (at the top)."""
    resolver = get_resolver(get_urlconf())
    return namespace in resolver.namespace_dict or namespace in resolver.app_dict


def index_path(namespace: str = URL_NAMESPACE) -> str:
    """Where the index lives: the one rule for every file's URL, robots.txt included.

    Where the views are routed, their URL. Otherwise a web server serves the
    built files, at the root of the site as Django knows it (the script
    prefix), which is where ``path("", site.urls)`` would route them.
    """
    if views_routed(namespace):
        return reverse(f"{namespace}:index")
    return get_script_prefix() + INDEX_NAME


def page_path(
    section: str, number: int, *, gz: bool = False, namespace: str = URL_NAMESPACE
) -> str:
    if views_routed(namespace):
        name = f"{namespace}:section" + ("-gz" if gz else "")
        return reverse(name, kwargs={"section": section, "page": number})
    # Beside the index, under the name urls.py gives the page (and a build its file).
    name = page_filename(section, number) + (".gz" if gz else "")
    return posixpath.join(posixpath.dirname(index_path(namespace)), name)


def stylesheet_href(namespace: str = URL_NAMESPACE) -> str | None:
    """The href of the XSL stylesheet every file references; None when STYLESHEET is off.

    An absolute path beside the index, never an absolute URL: a browser
    applies an XSL only from the document's own origin, and a path resolves
    against whichever origin served the file (the views, or a web server
    serving the build, which holds the stylesheet beside the index too).
    """
    if not get_settings().STYLESHEET:
        return None
    return posixpath.join(posixpath.dirname(index_path(namespace)), STYLESHEET_NAME)


def make_context(base_url: str, namespace: str = URL_NAMESPACE) -> RenderContext:
    """Locations are built from ``base_url`` and must lie in the index's directory."""
    directory = posixpath.dirname(index_path(namespace))
    directory_url = base_url + directory.rstrip("/") + "/"
    return RenderContext(
        locations=LocationBuilder(
            base_url,
            directory_url=directory_url,
            strip_params=get_settings().STRIP_QUERY_PARAMS,
        ),
        tz=site_time_zone(),
        stylesheet=stylesheet_href(namespace),
    )


def render_page(section: str, number: int, *, base_url: str, sitemaps: Sections) -> RenderedFile:
    """One ``<urlset>`` file; raises SectionNotFound or PageNotFound (also for a page whose
    every item is skipped, which the index does not name)."""
    sitemap = sitemaps.get(section)
    if sitemap is None:
        raise SectionNotFound(section)
    with rendering_language(), rendering_site(site_of(sitemaps)), one_render():
        page = render_section_page(sitemap, number, make_context(base_url, sitemaps.name))
    if page.pages_changed:
        sitemaps.pages_changed(section)
    return RenderedFile(
        page.content,
        page.lastmod if page.every_entry_dated else None,
        page.url_count,
        page.skipped,
        piece_sizes=tuple(map(len, page.pieces)),
    )


@dataclass(frozen=True)
class IndexEntry:
    """One ``<sitemap>`` of the index: a page and the lastmod to announce for it."""

    section: str
    number: int
    lastmod: datetime.datetime | datetime.date | None


def write_index(
    entries: Iterable[IndexEntry], *, base_url: str, namespace: str = URL_NAMESPACE
) -> RenderedFile:
    """The ``<sitemapindex>`` naming ``entries`` in order.

    Raises PageNotFound when there is no entry (an empty index is not valid),
    IndexFull past 50,000 files. Undated when an entry is (see every_entry_dated).
    """
    tz = site_time_zone()
    gz = get_settings().INDEX_LINKS_GZIP
    writer = IndexWriter(stylesheet=stylesheet_href(namespace))
    newest: datetime.date | datetime.datetime | None = None
    undated = False
    for entry in entries:
        lastmod = None
        if entry.lastmod is not None:
            newest = later(newest, entry.lastmod, tz)
            try:
                # Always a full datetime in the index: one format per file, and a
                # date becomes midnight of its own day, never the day before.
                lastmod = format_lastmod(entry.lastmod, tz, date_only=False)
            except (OverflowError, ValueError):
                # Year 9999 read in a zone ahead of UTC is year 10000: the
                # page is listed without it, so crawlers always fetch it.
                logger.warning(
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
    pieces = [writer.content()]
    return RenderedFile(
        b"".join(pieces),
        last_modified,
        url_count=writer.count,
        piece_sizes=tuple(map(len, pieces)),
    )


def index_entries(*, base_url: str, sitemaps: Sections) -> Iterator[IndexEntry]:
    """Every non-empty page of every section, with the newest lastmod of its rows (none where
    a row has none, as contrib's index)."""
    context = make_context(base_url, sitemaps.name)
    for sitemap in sitemaps:
        for figures in page_figures(sitemap, context):
            yield IndexEntry(sitemap.name, figures.number, figures.newest)


def render_index(*, base_url: str, sitemaps: Sections) -> RenderedFile:
    """The index as the database has it now: one entry per non-empty page (or, while there
    is none, ``empty_site_file()``)."""
    with rendering_language(), rendering_site(site_of(sitemaps)), one_render():
        entries = index_entries(base_url=base_url, sitemaps=sitemaps)
        try:
            return write_index(entries, base_url=base_url, namespace=sitemaps.name)
        except PageNotFound:
            return empty_site_file(base_url=base_url, namespace=sitemaps.name)


def empty_site_file(*, base_url: str, namespace: str = URL_NAMESPACE) -> RenderedFile:
    """``/sitemap.xml`` while no section has a URL (see emptysite.py)."""
    directory = index_path(namespace).rpartition("/")[0] + "/"  # all it may list is under it
    pieces = empty_site_pieces(base_url + directory, stylesheet_href(namespace))
    return RenderedFile(b"".join(pieces), None, url_count=1, piece_sizes=tuple(map(len, pieces)))
