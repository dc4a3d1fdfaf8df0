"""The manifest: what a published set holds, so that the next build can be incremental.

It names every page with its hash, size, lastmod and fingerprint, and how
the page is cut into pieces (its layout) so that a build can splice it. It
is the last file a build writes: a set without one is not published.
"""

from __future__ import annotations

import datetime
import json
from dataclasses import dataclass, field, fields
from typing import Any

from django_sitemapkit.engine.rendering import INDEX_NAME, page_filename
from django_sitemapkit.protocol.stylesheet import STYLESHEET_NAME

MANIFEST_NAME = "sitemapkit-manifest.json"
MANIFEST_VERSION = 2


@dataclass
class PageLayout:
    """How a page file is cut into pieces, so that a build can splice it.

    The pieces are the file's head, its segments of ``segment_entries``
    entries (the last one shorter), and its tail; the .gz compresses each one
    on its own (see writer.py and deflate.py).
    """

    segment_entries: int
    # The key (as text) of the last row of each segment but the last.
    cuts: list[str]
    # Rows read but skipped within each segment's key range.
    skips: list[int]
    # Bytes of each piece, plain and compressed ([] when no .gz was written).
    sizes: list[int]
    gz_sizes: list[int]


@dataclass
class FileRecord:
    """One page of the published set, as the manifest remembers it."""

    section: str
    number: int
    sha256: str
    size: int
    urls: int
    # The file's Last-Modified (ISO 8601, aware): later whenever its bytes change.
    lastmod: str | None
    skipped: int = 0
    # Row count and newest row lastmod when the page was rendered: while they
    # stay the same, an incremental build need not render the page again.
    fingerprint: str | None = None
    layout: PageLayout | None = None
    # The lastmod the index announces for this page: its figures' newest (see
    # engine.sections.page_figures), as the live index announces it.
    index_lastmod: str | None = None

    @property
    def name(self) -> str:
        return page_filename(self.section, self.number)

    def lastmod_value(self) -> datetime.datetime | None:
        return None if self.lastmod is None else datetime.datetime.fromisoformat(self.lastmod)

    def index_lastmod_value(self) -> datetime.date | datetime.datetime | None:
        if self.index_lastmod is None:
            return None
        if len(self.index_lastmod) == len("YYYY-MM-DD"):
            return datetime.date.fromisoformat(self.index_lastmod)
        return datetime.datetime.fromisoformat(self.index_lastmod)

    def segment_entries(self) -> list[int] | None:
        """The entries each segment of the page listed (all full but the last); None where the
        layout does not add up to the page."""
        if self.layout is None:
            return None
        size, segments = self.layout.segment_entries, len(self.layout.cuts) + 1
        entries = [size] * (segments - 1) + [self.urls - size * (segments - 1)]
        return entries if 0 < entries[-1] <= size else None

    def segment_rows(self) -> list[int] | None:
        """The rows each segment held at the render (its entries and skips), as a scan counts
        them; None where the record cannot tell."""
        entries = self.segment_entries()
        if entries is None or self.layout is None or len(self.layout.skips) != len(entries):
            return None
        return [
            listed + skipped for listed, skipped in zip(entries, self.layout.skips, strict=True)
        ]

    def fingerprint_lastmod(self) -> datetime.datetime | None:
        """The newest row lastmod the fingerprint recorded ("<count>|<ISO 8601>")."""
        text = (self.fingerprint or "").partition("|")[2]
        return datetime.datetime.fromisoformat(text) if text else None


@dataclass
class Manifest:
    generation: str
    built_at: str
    base_url: str
    gzip: bool
    pages: list[FileRecord] = field(default_factory=list)
    index_sha256: str = ""
    index_lastmod: str | None = None
    previous_generation: str | None = None
    # Per section, the fingerprint of its class, URL patterns and settings
    # (building/configprint.py): when it changes, the section is rendered again.
    configs: dict[str, str] = field(default_factory=dict)
    # How long the build took, in seconds.
    seconds: float | None = None
    # The href every file references its XSL stylesheet by (None: STYLESHEET
    # was off), and the hash of the stylesheet written beside the index.
    stylesheet: str | None = None
    stylesheet_sha256: str = ""
    # Whether the change log was on for this build: the next build may then
    # trust it to name every row changed since (changelog.py).
    change_log: bool = False

    def files(self) -> list[str]:
        """Every file of the set, the index included."""
        names = [record.name for record in self.pages] + [INDEX_NAME]
        if self.gzip:
            names += [name + ".gz" for name in names]
        if self.stylesheet is not None:
            names.append(STYLESHEET_NAME)
        return names

    def record_for(self, name: str) -> FileRecord | None:
        base = name.removesuffix(".gz")
        for record in self.pages:
            if record.name == base:
                return record
        return None

    def to_json(self) -> bytes:
        # One line per page; a layout's lists (a number per segment) stay on
        # that line, which keeps the file small and quick to write.
        # Field by field, not dataclasses.asdict(): that deep-copies every
        # list of every layout only to serialise it.
        head = json.dumps(
            {f.name: getattr(self, f.name) for f in fields(self) if f.name != "pages"},
            sort_keys=True,
            separators=(",", ":"),
        )
        lines = ",\n".join(
            json.dumps(_record_dict(record), sort_keys=True, separators=(",", ":"))
            for record in self.pages
        )
        return f'{head[:-1]},"pages":[\n{lines}\n]}}\n'.encode()

    @classmethod
    def from_json(cls, data: bytes) -> Manifest:
        raw = json.loads(data)
        if raw.pop("version", MANIFEST_VERSION) != MANIFEST_VERSION:
            raise ValueError("unknown manifest version")
        pages = []
        for page in raw.pop("pages"):
            layout = page.pop("layout", None)
            pages.append(
                FileRecord(**page, layout=None if layout is None else PageLayout(**layout))
            )
        return cls(pages=pages, **raw)


def _record_dict(record: FileRecord) -> dict[str, Any]:
    data = {f.name: getattr(record, f.name) for f in fields(record)}
    if record.layout is not None:
        data["layout"] = {f.name: getattr(record.layout, f.name) for f in fields(record.layout)}
    return data
