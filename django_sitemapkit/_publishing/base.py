"""What every publisher provides, the manifest, and the parts of publishing they all share:
a set is published pages first, then the index, the manifest last: where files appear one by one
(a flat storage), no index names a missing page, even if a build dies; the next build trusts the
files a manifest lists, so it comes last everywhere."""

from __future__ import annotations

import contextlib
import datetime
import json
import os
import time
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field, fields
from typing import Any, Protocol

from django_sitemapkit._engine.rendering import INDEX_NAME, page_filename

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
    # The file's Last-Modified (ISO 8601, aware): later whenever its bytes change.
    lastmod: str | None
    skipped: int = 0
    excluded: int = 0  # rows is_indexable() left out
    # The page's figures when it was rendered: while they stay the same, a build keeps the page.
    fingerprint: str | None = None
    # The lastmod the index announces for this page: its figures' newest, as the live index's.
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


@dataclass
class SectionChange:
    """One section's figures in one build; URLs added, removed and whose lastmod moved are read
    from the pages whose bytes changed (a kept page lists what it listed)."""

    listed: int = 0
    added: int = 0
    removed: int = 0
    lastmod_moved: int = 0
    skipped: int = 0
    excluded: int = 0


@dataclass
class BuildRecord:
    """One published build, as the history of later manifests remembers it."""

    generation: str
    built_at: str  # ISO 8601, as Manifest.built_at
    seconds: float
    sections: dict[str, SectionChange] = field(default_factory=dict)
    # Published past the shrink guard with --force / build(force=True).
    forced: bool = False
    # Sections warned of lastmod churn: most of their dates moved while their URLs barely did.
    churn: list[str] = field(default_factory=list)

    @classmethod
    def from_raw(cls, raw: dict[str, Any]) -> BuildRecord:
        sections = {
            name: SectionChange(**_known(SectionChange, change))
            for name, change in raw.pop("sections", {}).items()
        }
        return cls(sections=sections, **_known(cls, raw))


def churn_warning(sections: list[str]) -> str:
    """The words every report (summary, status, admin) gives sections warned of lastmod churn."""
    return (
        f"Warning: most lastmods of section {', '.join(map(repr, sections))} moved in one build "
        "while its URLs barely did (a backfill or migration touching updated_at?); search "
        "engines distrust sitemaps whose dates all move at once: see 'Lastmod churn' in "
        "docs/building.md."
    )


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
    # Per section, a digest of its class, URL patterns and settings (changed: rendered again).
    configs: dict[str, str] = field(default_factory=dict)
    seconds: float | None = None
    # The href of the stylesheet every file names (None: none); the hash of the one written.
    stylesheet: str | None = None
    stylesheet_sha256: str = ""
    # The last builds published, oldest first, this one last (at most SITEMAPKIT["HISTORY"]):
    # kept here, the history travels with the files, and a refused or dry build records nothing.
    history: list[BuildRecord] = field(default_factory=list)

    def files(self) -> list[str]:
        """Every file of the set, the index included."""
        names = [record.name for record in self.pages] + [INDEX_NAME]
        if self.gzip:
            names += [name + ".gz" for name in names]
        if self.stylesheet_name is not None:
            names.append(self.stylesheet_name)
        return names

    @property
    def stylesheet_name(self) -> str | None:
        """The stylesheet's file, beside the index (``sitemap.css``, ``sitemap.xsl``), or None."""
        return None if self.stylesheet is None else self.stylesheet.rpartition("/")[2]

    def record_for(self, name: str) -> FileRecord | None:
        base = name.removesuffix(".gz")
        return next((record for record in self.pages if record.name == base), None)

    def to_json(self) -> bytes:
        # One line per page keeps the file small and quick to write.
        head = _compact(
            {f.name: _plain(getattr(self, f.name)) for f in fields(self) if f.name != "pages"}
        )
        lines = ",\n".join(
            _compact({f.name: getattr(record, f.name) for f in fields(record)})
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
        history = [BuildRecord.from_raw(build) for build in raw.pop("history", [])]
        return cls(pages=pages, history=history, **_known(cls, raw))


def _compact(value: dict[str, Any]) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def _plain(value: Any) -> Any:
    return [asdict(item) for item in value] if isinstance(value, list) else value


def _known(cls: type[Any], raw: dict[str, Any]) -> dict[str, Any]:
    names = {f.name for f in fields(cls)}
    return {key: value for key, value in raw.items() if key in names}


class BuildLocked(Exception):
    """Another build holds the lock."""


class PublishError(Exception):
    """The storage cannot publish a set safely."""


class Transaction(Protocol):
    """Files of one build, not visible to readers until ``publish()``."""

    def write(self, name: str, data: bytes) -> None: ...

    def keep(self, name: str) -> None:
        """Carry ``name`` over unchanged from the published set, without reading it."""

    def publish(self, index: dict[str, bytes], manifest: Manifest) -> None:
        """Write the index and the manifest after every page, and make the set visible."""

    def abort(self) -> None:
        """Give the build up, leaving the published set as it was."""


class Publisher(Protocol):
    """The published set in one storage."""

    description: str

    def lock(self, wait: float = 0) -> contextlib.AbstractContextManager[None]:
        """Hold the build lock, waiting up to ``wait`` seconds; raises BuildLocked."""

    def cleanup(self) -> int:
        """Remove what dead builds left behind; returns how many entries went."""

    def interrupted(self) -> bool:
        """Whether a build died writing in place, so the next one must write every file again."""

    def manifest(self) -> Manifest | None:
        """The published set's manifest, or None when nothing is published."""

    def read(self, manifest: Manifest, name: str) -> bytes | None:
        """A file of the set ``manifest`` describes, or None when it has no such file."""

    def begin(self, manifest: Manifest, previous: Manifest | None) -> Transaction:
        """A transaction writing the set ``manifest`` describes, ``previous`` being published."""


def write_index_and_manifest(
    write: Callable[[str, bytes], None], index: Mapping[str, bytes], manifest: Manifest
) -> None:
    """The last writes of a build, once every page is written: the index, then the manifest."""
    for name, data in index.items():
        write(name, data)
    write(MANIFEST_NAME, manifest.to_json())


def wait_for_lock(
    acquire: Callable[[], bool],
    holder: Callable[[], str | None],
    *,
    wait: float,
    poll: float,
    description: str,
) -> None:
    """Call ``acquire`` until True, at least once, for up to ``wait`` s; then raise BuildLocked."""
    deadline = time.monotonic() + wait
    while not acquire():
        if time.monotonic() >= deadline:
            raise BuildLocked(
                f"Another sitemapkit_build is publishing to {description} "
                f"({holder() or 'another process'}); "
                "try again when it has finished, or pass --wait SECONDS."
            )
        time.sleep(poll)


def lock_holder_label() -> str:
    now = datetime.datetime.now(tz=datetime.UTC).replace(microsecond=0).isoformat()
    return f"pid {os.getpid()} since {now}"
