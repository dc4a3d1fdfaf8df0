"""The admin's browser of the published build: its sections and files, one file's URLs, and
the build history as a chart.

Everything is read from the publisher (the manifest and the files as published), never from the
views and never rendered, so browsing costs the public views nothing. A file is parsed as a
stream, its ``<url>`` elements dropped as soon as read: a 50,000-URL file is never a tree.
"""

from __future__ import annotations

import datetime
import io
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from itertools import islice
from typing import overload
from xml.etree import ElementTree

from django_sitemapkit._engine.rendering import URL_NAMESPACE
from django_sitemapkit._protocol.extensionxml import IMAGE_NS, XHTML_NS
from django_sitemapkit._protocol.writer import SITEMAP_NS
from django_sitemapkit._publishing.base import (
    BuildRecord,
    FileRecord,
    Manifest,
    PublishError,
    SectionChange,
)
from django_sitemapkit._publishing.selection import get_publisher
from django_sitemapkit._siteconfig import SiteConfig

_URL, _LOC, _LASTMOD = (f"{{{SITEMAP_NS}}}{tag}" for tag in ("url", "loc", "lastmod"))
_LINK, _IMAGE_LOC = f"{{{XHTML_NS}}}link", f"{{{IMAGE_NS}}}image/{{{IMAGE_NS}}}loc"


@dataclass
class PublishedSet:
    """The published build of one registry (``SitemapSite``) for one site of ``SITES``."""

    registry: str
    config: SiteConfig | None
    manifest: Manifest | None
    problem: str = ""  # why the storage cannot be read (PublishError), or ""

    @property
    def site(self) -> str | None:
        return None if self.config is None else self.config.name

    @property
    def label(self) -> str:
        parts = [] if self.registry == URL_NAMESPACE else [f"SitemapSite {self.registry!r}"]
        return ", ".join(parts + ([] if self.site is None else [f"site {self.site}"]))

    @property
    def sections(self) -> dict[str, list[FileRecord]]:
        """The manifest's files by section, in page order."""
        found: dict[str, list[FileRecord]] = {}
        for record in sorted(self.manifest.pages if self.manifest else [], key=_page_order):
            found.setdefault(record.section, []).append(record)
        return found

    @property
    def built_at(self) -> str:
        return "" if self.manifest is None else at_second(self.manifest.built_at)

    @property
    def urls(self) -> int:
        return sum(r.urls for r in self.manifest.pages) if self.manifest else 0

    @property
    def skipped(self) -> int:
        return sum(r.skipped for r in self.manifest.pages) if self.manifest else 0

    def read(self, record: FileRecord) -> bytes | None:
        """The bytes of ``record``'s file as published, or None when the set has lost it."""
        assert self.manifest is not None
        return get_publisher(self.config, self.registry).read(self.manifest, record.name)


def to_seconds(value: datetime.datetime) -> str:
    """``value`` in ISO 8601 to the second, as sitemaps write lastmods: no microseconds."""
    return value.replace(microsecond=0).isoformat()


def at_second(iso: str) -> str:
    """A time the manifest records (ISO 8601), to the second."""
    return to_seconds(datetime.datetime.fromisoformat(iso))


def _page_order(record: FileRecord) -> tuple[str, int]:
    return record.section, record.number


def published_set(registry: str, site: SiteConfig | None) -> PublishedSet:
    """What is published of ``registry`` for ``site`` (one of SITES, None without SITES)."""
    try:
        manifest = get_publisher(site, registry).manifest()
    except PublishError as exc:
        return PublishedSet(registry, site, None, str(exc))
    return PublishedSet(registry, site, manifest)


@dataclass
class UrlEntry:
    """One ``<url>`` of a published file, as a person reads it."""

    loc: str
    lastmod: str | None
    alternates: list[tuple[str, str]] = field(default_factory=list)  # (hreflang, href)
    images: list[str] = field(default_factory=list)


def url_entries(data: bytes, query: str = "") -> Iterator[UrlEntry]:
    """The ``<url>`` entries of a sitemap file whose location contains ``query`` (any case),
    parsed as a stream: each entry is let go once read. ElementTree.ParseError when the bytes
    are no XML."""
    wanted = query.casefold()
    root = None
    for event, element in ElementTree.iterparse(io.BytesIO(data), events=("start", "end")):
        if root is None:
            root = element
        if event != "end" or element.tag != _URL:
            continue
        loc = (element.findtext(_LOC) or "").strip()
        if wanted in loc.casefold():
            yield UrlEntry(
                loc,
                element.findtext(_LASTMOD),
                [(a.get("hreflang", ""), a.get("href", "")) for a in element.iter(_LINK)],
                [(image.text or "").strip() for image in element.iterfind(_IMAGE_LOC)],
            )
        root.clear()  # the entries read so far: only the one being parsed stays in memory


class UrlList(Sequence[UrlEntry]):
    """A file's entries matching a query, as ``Paginator`` reads them: counted by one pass (the
    manifest's count when nothing is searched), each page's slice by another that stops at it."""

    def __init__(self, data: bytes, query: str, urls: int) -> None:
        self.data, self.query = data, query
        self.urls = None if query else urls

    def __len__(self) -> int:
        if self.urls is None:
            self.urls = sum(1 for _ in url_entries(self.data, self.query))
        return self.urls

    @overload
    def __getitem__(self, index: int) -> UrlEntry: ...
    @overload
    def __getitem__(self, index: slice) -> list[UrlEntry]: ...
    def __getitem__(self, index: int | slice) -> UrlEntry | list[UrlEntry]:
        if isinstance(index, slice):
            return list(islice(url_entries(self.data, self.query), index.start, index.stop))
        return self[index : index + 1][0]


# The chart's frame in SVG user units, and its colours (Okabe and Ito's, told apart by
# colour-blind readers too); a section past the eighth takes the first colour again.
WIDTH, HEIGHT, LEFT, RIGHT, TOP, BOTTOM = 720, 320, 70, 20, 20, 40
COLOURS = ["#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9", "#000000", "#f0e442"]


@dataclass
class Line:
    section: str
    colour: str
    points: list[tuple[float, float, int]]  # x, y and the URLs listed, one per build

    @property
    def path(self) -> str:
        return " ".join(f"{x:.1f},{y:.1f}" for x, y, _ in self.points)


@dataclass
class HistoryChart:
    """URLs listed per section across the builds of a history, laid out for an inline SVG."""

    builds: list[BuildRecord]
    sections: list[str]
    lines: list[Line]
    y_ticks: list[tuple[float, int]]  # y and the value it marks
    x_ticks: list[tuple[float, int]]  # x and the build's number, 1 = the oldest kept
    width: int = WIDTH
    height: int = HEIGHT
    left: int = LEFT
    right: int = WIDTH - RIGHT
    top: int = TOP
    bottom: int = HEIGHT - BOTTOM

    @property
    def rows(self) -> list[tuple[int, str, BuildRecord, list[SectionChange | None], int]]:
        """The table beside the chart: each build, numbered and timed, with its sections'
        figures and the URLs it skipped in all."""
        return [
            (
                n,
                at_second(b.built_at),
                b,
                [b.sections.get(s) for s in self.sections],
                sum(c.skipped for c in b.sections.values()),
            )
            for n, b in enumerate(self.builds, start=1)
        ]


def history_chart(history: list[BuildRecord]) -> HistoryChart:
    sections = sorted({name for build in history for name in build.sections})
    top = _round_up(max((c.listed for b in history for c in b.sections.values()), default=0))
    span = max(len(history) - 1, 1)

    def x(n: int) -> float:
        return LEFT + (WIDTH - LEFT - RIGHT) * (n / span if len(history) > 1 else 0.5)

    def y(value: int) -> float:
        return HEIGHT - BOTTOM - (HEIGHT - TOP - BOTTOM) * value / top

    lines = [
        Line(
            section,
            COLOURS[i % len(COLOURS)],
            [
                (x(n), y(c.listed), c.listed)
                for n, b in enumerate(history)
                if (c := b.sections.get(section)) is not None
            ],
        )
        for i, section in enumerate(sections)
    ]
    step = max(1, -(-len(history) // 10))  # at most about ten labels under the axis
    return HistoryChart(
        history,
        sections,
        lines,
        [(y(top * k // 4), top * k // 4) for k in range(5)],
        [(x(n), n + 1) for n in range(0, len(history), step)],
    )


def _round_up(value: int) -> int:
    """The axis' top: ``value`` rounded up to 1, 2 or 5 times a power of ten (4 at least)."""
    scale = 1
    while True:
        for factor in (1, 2, 5):
            if value <= factor * scale and factor * scale >= 4:
                return factor * scale
        scale *= 10
