"""The manifest: what a published set holds, so that the next build can be incremental.

It names every page with its hash, size, lastmod and fingerprint. It is the
last file a build writes: a set without one is not published.
"""

from __future__ import annotations

import datetime
import json
from dataclasses import dataclass, field, fields
from typing import Any

from django_sitemapkit.engine.filenames import INDEX_NAME, page_filename
from django_sitemapkit.protocol.stylesheet import STYLESHEET_NAME

MANIFEST_NAME = "sitemapkit-manifest.json"
MANIFEST_VERSION = 1


@dataclass
class FileRecord:
    """One page of the published set, as the manifest remembers it."""

    section: str
    number: int
    sha256: str
    size: int
    urls: int
    # The lastmod the index announces for this page (ISO 8601, aware).
    lastmod: str | None
    skipped: int = 0
    # Row count and newest row lastmod when the page was rendered: while they
    # stay the same, an incremental build keeps the page as published.
    fingerprint: str | None = None

    @property
    def name(self) -> str:
        return page_filename(self.section, self.number)

    def lastmod_value(self) -> datetime.datetime | None:
        return None if self.lastmod is None else datetime.datetime.fromisoformat(self.lastmod)


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
    # (building/builder.py): when it changes, the section is rendered again.
    configs: dict[str, str] = field(default_factory=dict)
    # How long the build took, in seconds.
    seconds: float | None = None
    # The href every file references its XSL stylesheet by (None: STYLESHEET
    # was off), and the hash of the stylesheet written beside the index.
    stylesheet: str | None = None
    stylesheet_sha256: str = ""

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
        # One line per page keeps the file small and quick to write.
        head = json.dumps(
            {f.name: getattr(self, f.name) for f in fields(self) if f.name != "pages"},
            sort_keys=True,
            separators=(",", ":"),
        )
        lines = ",\n".join(
            json.dumps(
                {f.name: getattr(record, f.name) for f in fields(record)},
                sort_keys=True,
                separators=(",", ":"),
            )
            for record in self.pages
        )
        return f'{head[:-1]},"pages":[\n{lines}\n]}}\n'.encode()

    @classmethod
    def from_json(cls, data: bytes) -> Manifest:
        raw = json.loads(data)
        if raw.pop("version", MANIFEST_VERSION) != MANIFEST_VERSION:
            raise ValueError("unknown manifest version")
        # What earlier versions recorded and this one does not use is left out.
        pages = [FileRecord(**_known(FileRecord, page)) for page in raw.pop("pages")]
        return cls(pages=pages, **_known(cls, raw))


def _known(cls: type[Any], raw: dict[str, Any]) -> dict[str, Any]:
    names = {f.name for f in fields(cls)}
    return {key: value for key, value in raw.items() if key in names}
