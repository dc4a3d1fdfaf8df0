"""A build's pages: kept as published (no render, no read) while their fingerprint and section
configuration stay the same, else rendered whole and written where their bytes changed."""

from __future__ import annotations

import datetime
import functools
import hashlib
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

from django.db import InterfaceError, OperationalError, connections

from django_sitemapkit._engine import sections
from django_sitemapkit._engine.entries import RenderContext
from django_sitemapkit._engine.keyranges import PageFigures
from django_sitemapkit._engine.pages import PageNotFound
from django_sitemapkit._engine.rendering import SectionRegistry, gzipped
from django_sitemapkit._engine.sections import RenderedPage
from django_sitemapkit._publishing.base import (
    FileRecord,
    SectionChange,
    Transaction,
    churn_warning,
)
from django_sitemapkit._sitemaps import Sitemap

T = TypeVar("T")

# One page compressed and written while the next renders: a page is megabytes of memory.
MAX_PENDING_PAGES = 1


class BuildError(Exception):
    """The build failed; nothing was published."""


# Told (pages done, pages in all) as each page of a build is done.
Progress = Callable[[int, int], None]


@dataclass
class BuildResult:
    # Sections built, and sections whose published files were kept (left out by --section).
    sections: int = 0
    sections_kept: int = 0
    written: list[str] = field(default_factory=list)
    unchanged: int = 0
    removed: list[str] = field(default_factory=list)
    urls: int = 0
    skipped: int = 0
    excluded: int = 0  # items is_indexable() left out: the rule, not a fault
    # Entries listed without their unwritable lastmod; images left out (over 1,000 a URL, or bad).
    lastmods_dropped: int = 0
    images_dropped: int = 0
    # Bytes of the files rendered, and of the files written (.gz included).
    bytes: int = 0
    bytes_written: int = 0
    seconds: float = 0.0
    dry_run: bool = False
    published: bool = False
    cleaned: int = 0
    # Why a build asked for some sections rebuilt every one, if it did.
    every_section_because: str | None = None
    # Sections built unasked, as the last build published no page of theirs, with pages now.
    first_published: list[str] = field(default_factory=list)
    # Sections rendered again whole: their class, URL patterns or output settings changed.
    reconfigured: list[str] = field(default_factory=list)
    # Per section: URLs listed, added, removed, redated, skipped, excluded (docs/building.md).
    changes: dict[str, SectionChange] = field(default_factory=dict)
    # Sections warned of lastmod churn; the shrink guard's refusal (a dry run's, or one forced).
    churn: list[str] = field(default_factory=list)
    refused: str | None = None
    forced: bool = False

    def summary(self) -> str:
        verb = "would be written" if self.dry_run else "written"
        kept = f", {self.sections_kept} kept" if self.sections_kept else ""
        dropped = f", {self.excluded:,} excluded" if self.excluded else ""
        if self.lastmods_dropped:
            dropped += f", {self.lastmods_dropped:,} without their unwritable lastmod"
        if self.images_dropped:
            dropped += f", {self.images_dropped:,} images dropped"
        return (
            f"{self.sections} section{'s' if self.sections != 1 else ''} built{kept}: "
            f"{len(self.written)} files {verb}, {self.unchanged} unchanged, "
            f"{len(self.removed)} removed; {self.urls:,} URLs ({self.skipped:,} skipped"
            f"{dropped}), {self.bytes_written:,} bytes {verb} "
            f"({self.bytes:,} rendered) in {self.seconds:.2f} s.{self._warnings()}"
        )

    def _warnings(self) -> str:
        text = ""
        if self.refused is not None:
            verb = "would refuse" if self.dry_run else "was overridden by --force"
            text += f" The shrink guard {verb}: {self.refused}"
        if self.churn:
            text += " " + churn_warning(self.churn)
        return text


def sha256(content: bytes) -> str:
    return hashlib.sha256(content).hexdigest()


def retry_on_fresh_connections(read: Callable[[], T]) -> T:
    """``read()``, again on fresh connections if the database dropped ours (as servers do in long
    builds), unless a transaction is open: a reconnect would lose its work, so the build fails."""
    try:
        return read()
    except (OperationalError, InterfaceError):
        if any(connection.in_atomic_block for connection in connections.all()):
            raise
        for connection in connections.all():
            connection.close()
        return read()


class SectionPages:
    """The pages of the sections built, kept or rendered; listed first for the progress total."""

    def __init__(
        self,
        sitemaps: SectionRegistry,
        files: PageFiles,
        *,
        selected: set[str],
        old: dict[tuple[str, int], FileRecord],
        context: RenderContext,
        keep_sections: set[str],
        progress: Progress | None,
    ) -> None:
        self._sitemaps = sitemaps
        self._files = files
        self._old = old
        self._context = context
        self._keep_sections = keep_sections
        self._progress = progress
        # The figures of every page that lists a URL, which also give the index its lastmods.
        self._figures = {
            sitemap.name: retry_on_fresh_connections(
                functools.partial(sections.page_figures, sitemap, context)
            )
            for sitemap in sitemaps
            if not selected or sitemap.name in selected
        }
        self._total = sum(len(pages) for pages in self._figures.values())
        self._done = 0

    def wanted(self, sitemap: Sitemap) -> bool:
        return sitemap.name in self._figures

    def keep_published(self, sitemap: Sitemap) -> list[FileRecord]:
        """The published pages of a section not built this time, their files kept as they are."""
        records = [r for (section, _), r in sorted(self._old.items()) if section == sitemap.name]
        for record in records:
            self._files.keep(record, count=False)
        return records

    def build(self, sitemap: Sitemap) -> list[FileRecord]:
        """Each page listed, kept as published while its figures stay the same, else rendered;
        then those split off while rendering, listed anew (with no figures of their own yet)."""
        name = sitemap.name
        may_keep = name in self._keep_sections and sections.fingerprints_reliable(sitemap)
        pending: dict[int, PageFigures | None] = {f.number: f for f in self._figures[name]}
        done: set[int] = set()
        records: list[FileRecord] = []
        while pending:
            overflowed = False
            to_render = []
            # Kept pages first: queued behind a page being written, each would wait for it.
            for number, figures in pending.items():
                done.add(number)
                before = self._old.get((name, number))
                if may_keep and before and figures and before.fingerprint == figures.fingerprint:
                    kept = replace(before, index_lastmod=index_lastmod(figures, None))
                    records.append(self._files.keep(kept))
                    self._advance()
                else:
                    to_render.append((number, figures, before))
            for number, figures, before in to_render:
                if (page := self._render(sitemap, number)) is not None:
                    overflowed = overflowed or page.overflowed
                    records.append(self._files.write(name, number, page, before, figures))
                    # Not held while the next page renders: a page is megabytes.
                    del page
                    self._advance()
            if not overflowed:
                break
            listed = sections.page_figures(sitemap, self._context)
            pending = {f.number: None for f in listed if f.number not in done}
        return sorted(records, key=lambda record: record.number)

    def _render(self, sitemap: Sitemap, number: int) -> RenderedPage | None:
        """Page ``number``; None if its every URL is skipped (it has no file; its rows count)."""
        try:
            page = retry_on_fresh_connections(
                functools.partial(sections.render_sitemap_page, sitemap, number, self._context)
            )
        except PageNotFound as exc:
            result = self._files.result
            result.skipped += exc.skipped
            result.excluded += exc.excluded
            change = result.changes.setdefault(sitemap.name, SectionChange())
            change.skipped += exc.skipped
            change.excluded += exc.excluded
            return None
        if page.pages_recut:
            self._sitemaps.invalidate_listing(sitemap.name)
        return page

    def _advance(self) -> None:
        self._done += 1
        if self._progress is not None:
            # Pages split off while rendering come on top of the total.
            self._progress(self._done, max(self._total, self._done))


def index_lastmod(figures: PageFigures | None, newest: datetime.datetime | None) -> str | None:
    """The page's lastmod in the index: its figures' newest, as the live index announces it;
    a page split off while rendering has no figures yet: its render's ``newest``."""
    dated = newest if figures is None else figures.newest
    return None if dated is None else dated.isoformat()


def changed_lastmod(
    newest: datetime.datetime | None,
    published: bool,
    previous: str | None,
    started: datetime.datetime,
) -> str | None:
    """The Last-Modified of a file whose bytes changed (``newest``: its newest entry's lastmod,
    None where an entry has none: so is the file's; ``previous``: what its old bytes announced, if
    ``published``), later than the old one: a client holding the old bytes must never be told
    they are current. When no row says so (a deletion, an edited location), the build's time, a
    second after ``previous`` at least."""
    if newest is None:
        return None
    before = None if previous is None else datetime.datetime.fromisoformat(previous)
    if not published or (before is not None and newest > before):
        return newest.isoformat()
    if before is None:
        return started.isoformat()
    return max(started, before + datetime.timedelta(seconds=1)).isoformat()


class PageFiles:
    """The page files of the generation being built, each kept from the last one or written anew,
    on a thread of their own while the next page renders (hashlib, zlib and writes release the
    GIL). Without a transaction (a dry run) files are only counted."""

    def __init__(
        self,
        transaction: Transaction | None,
        result: BuildResult,
        *,
        rewrite: bool,
        gzip: bool,
        started: datetime.datetime,
    ) -> None:
        self.result = result
        self._transaction = transaction
        # Write every rendered page, also where the published files hold its bytes.
        self._rewrite = rewrite
        self._gzip = gzip
        self._started = started
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="sitemapkit-pages")
        self._pending: list[Future[None]] = []

    def keep(self, record: FileRecord, *, count: bool = True) -> FileRecord:
        """Keep the published files of ``record``'s page; ``count``: its URLs are this build's."""
        if count:
            self.result.urls += record.urls
            self.result.skipped += record.skipped
            self.result.excluded += record.excluded
        self._queue(self._keep_files, record.name)
        return record

    def write(
        self,
        section: str,
        number: int,
        page: RenderedPage,
        before: FileRecord | None,
        figures: PageFigures | None,
    ) -> FileRecord:
        """The record of a rendered page, whose files are written unless ``before``'s hold its
        bytes (its digest is filled in by ``settle()``)."""
        newest = page.lastmod if page.every_entry_dated else None
        record = FileRecord(
            section=section,
            number=number,
            sha256="",
            size=len(page.content),
            urls=page.url_count,
            lastmod=None,  # set by _store, once its bytes are compared with the published ones
            index_lastmod=index_lastmod(figures, newest),
            skipped=page.skipped,
            excluded=page.excluded,
            # Cut short while rendering, it holds fewer rows than its figures: rendered next time.
            fingerprint=None if page.overflowed or figures is None else figures.fingerprint,
        )
        result = self.result
        result.urls += page.url_count
        result.skipped += page.skipped
        result.excluded += page.excluded
        result.lastmods_dropped += page.lastmods_dropped
        result.images_dropped += page.images_dropped
        result.bytes += len(page.content)
        self._queue(self._store, record, before, page.content, newest)
        return record

    def settle(self) -> None:
        """Wait until every page given so far is stored, its record with its digest."""
        pending, self._pending = self._pending, []
        for future in pending:
            future.result()

    def close(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)

    def _queue(self, work: Callable[..., None], *args: Any) -> None:
        self._pending.append(self._pool.submit(work, *args))
        # Past a few pages, the build waits for the disk rather than holding more pages.
        while len(self._pending) > MAX_PENDING_PAGES or (self._pending and self._pending[0].done()):
            self._pending.pop(0).result()  # a failed write fails the build now

    def _store(
        self,
        record: FileRecord,
        before: FileRecord | None,
        content: bytes,
        newest: datetime.datetime | None,
    ) -> None:
        record.sha256 = sha256(content)
        if before is not None and before.sha256 == record.sha256:
            # Its old bytes (a --full build rewrites them): nothing new to fetch.
            record.lastmod = before.lastmod
            if not self._rewrite:
                self._keep_files(record.name)
                return
        else:
            previous = None if before is None else before.lastmod
            record.lastmod = changed_lastmod(newest, before is not None, previous, self._started)
        self._write(record.name, content)
        if self._gzip:
            self._write(record.name + ".gz", gzipped(content))

    def _keep_files(self, name: str) -> None:
        names = [name, name + ".gz"] if self._gzip else [name]
        self.result.unchanged += len(names)
        if self._transaction is not None:
            for kept in names:
                self._transaction.keep(kept)

    def _write(self, name: str, data: bytes) -> None:
        self.result.written.append(name)
        self.result.bytes_written += len(data)
        if self._transaction is not None:
            self._transaction.write(name, data)
