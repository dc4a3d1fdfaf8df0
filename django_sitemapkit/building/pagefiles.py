"""A build's page files: each page's record, and its plain and ``.gz`` files kept or written.

A page is written only if its bytes (content hash) changed, and the index
announces a new lastmod for every page whose bytes changed -- also when the
change was a deletion, which no ``updated_at`` shows.
"""

from __future__ import annotations

import datetime
import hashlib
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from django_sitemapkit.building.result import BuildResult
from django_sitemapkit.engine.keyranges import PageFigures
from django_sitemapkit.engine.rendering import gzipped, page_filename
from django_sitemapkit.engine.sections import RenderedPage
from django_sitemapkit.protocol.deflate import Piece
from django_sitemapkit.publishing.base import Transaction
from django_sitemapkit.publishing.manifest import FileRecord


def sha256(*pieces: Piece) -> str:
    digest = hashlib.sha256()
    for piece in pieces:
        digest.update(piece)
    return digest.hexdigest()


# Writes queued on the background thread at most (two a page: .xml and .xml.gz).
MAX_PENDING_WRITES = 4


class BackgroundWork:
    """sha256 digests, gzip and writes of page files, done on another core while the build goes on.

    hashlib, zlib and file writes let go of the GIL while they work on a large
    buffer, so hashing, compressing and writing one page cost no time while
    the next is rendered. One thread does them in the order they were given;
    a build holds at most a page or two more bytes than it would without.
    """

    def __init__(self) -> None:
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="sitemapkit-pages")
        self._pending: tuple[FileRecord, Future[str]] | None = None
        self._writes: list[Future[None]] = []

    def write(self, write: Callable[..., None], *args: Any) -> None:
        """``write(*args)`` on the worker, after everything given before it; ``wait()`` raises
        what it raised."""
        self._writes.append(self._pool.submit(write, *args))
        # A page's files are at most two writes: past a few pages, the build
        # waits for the disk rather than holding more pages in memory.
        while len(self._writes) > MAX_PENDING_WRITES or (self._writes and self._writes[0].done()):
            self._writes.pop(0).result()  # a failed write fails the build now

    def fill_in(self, record: FileRecord, pieces: Sequence[Piece]) -> None:
        """Set ``record.sha256`` to the digest of ``pieces``, at the latest by ``wait()``."""
        self._fill_in_pending()
        self._pending = (record, self._pool.submit(sha256, *pieces))

    def compress(self, content: bytes) -> Future[bytes]:
        """``content`` gzipped, on the worker."""
        return self._pool.submit(gzipped, content)

    def wait(self) -> None:
        """Every record given so far has its digest, and every write is done."""
        writes, self._writes = self._writes, []
        for write in writes:
            write.result()
        self._fill_in_pending()

    def _fill_in_pending(self) -> None:
        if self._pending is not None:
            record, digest = self._pending
            self._pending = None
            record.sha256 = digest.result()

    def __enter__(self) -> BackgroundWork:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)


class PageFiles:
    """The page files of the generation being built, each kept from the last one or written anew.

    Every file is counted in ``result``; without a transaction (a dry run)
    files are only counted.
    """

    def __init__(
        self,
        transaction: Transaction | None,
        result: BuildResult,
        background: BackgroundWork,
        *,
        full: bool,
        gzip: bool,
        old_gzip: bool,
        started: datetime.datetime,
    ) -> None:
        self._transaction = transaction
        self._result = result
        self._background = background
        self._full = full
        self._gzip = gzip
        # Previous gzip files can be reused only if the previous build made them.
        self._old_gzip = old_gzip
        self._started = started
        # Pages whose digest comes later, to compare with their published one.
        self._awaiting_digest: list[tuple[FileRecord, FileRecord]] = []
        # The page whose .gz is being compressed: written when it is done.
        self._compressing: tuple[str, Future[bytes]] | None = None

    def keep_files(self, record: FileRecord) -> None:
        """Keep the published files of ``record``'s page (and its ``.gz``, if this build has them)."""
        self._keep(record.name)
        if self._gzip and self._old_gzip:
            self._keep(record.name + ".gz")

    def keep_page(self, record: FileRecord) -> None:
        """Keep a page of a section being built whose rows did not change: files and figures."""
        self.keep_files(record)
        self._result.urls += record.urls
        self._result.skipped += record.skipped

    def record(
        self,
        section: str,
        number: int,
        page: RenderedPage,
        *,
        before: FileRecord | None,
        figures: PageFigures | None,
    ) -> FileRecord:
        """The record of a rendered page, whose files are written unless ``before``'s hold its bytes.

        ``figures``: the page's, whose ``newest`` the index announces (None: a
        page split off while rendering, dated by its render until the next build).
        """
        # A full build writes every page: its digests are only for the
        # manifest, and are worked out while the build goes on.
        defer_digest = self._full
        digest = "" if defer_digest else sha256(page.content)
        same_bytes = before is not None and before.sha256 == digest
        unchanged = same_bytes and not self._full and (self._old_gzip or not self._gzip)
        self._finish_compressing()
        compressing = not unchanged and self._gzip
        record = FileRecord(
            section=section,
            number=number,
            sha256=digest,
            size=page.size,
            urls=page.url_count,
            lastmod=self._announced_lastmod(page, before, same_bytes),
            skipped=page.skipped,
            # A page cut short while rendering holds fewer rows than its
            # summary counted: render it again next time.
            fingerprint=None if page.overflowed or figures is None else figures.fingerprint,
            index_lastmod=index_lastmod(figures) if figures else self._render_index_lastmod(page),
        )
        if defer_digest:
            self._background.fill_in(record, [page.content])
            if before is not None:
                self._awaiting_digest.append((record, before))
        name = page_filename(section, number)
        if unchanged:
            assert before is not None
            self.keep_files(before)
        elif compressing:
            self._write(name, [page.content])
            future = self._background.compress(page.content)
            self._compressing = (name, future)
        else:
            self._write(name, [page.content])
        self._count(page)
        return record

    def _finish_compressing(self) -> None:
        """Write the .gz of the page being compressed, once its bytes are there."""
        if self._compressing is None:
            return
        name, future = self._compressing
        self._compressing = None
        self._write(name + ".gz", [future.result()])

    def settle(self) -> None:
        """Every page recorded so far is written and has its digest, and its old lastmod if its
        bytes are the old ones."""
        self._finish_compressing()
        self._background.wait()
        for record, before in self._awaiting_digest:
            if record.sha256 == before.sha256:
                # Rewritten byte for byte (a --full build of unchanged rows):
                # crawlers have nothing new to fetch.
                record.lastmod = before.lastmod
        self._awaiting_digest.clear()

    def _keep(self, name: str) -> None:
        self._result.unchanged += 1
        if self._transaction is not None:
            self._background.write(self._transaction.keep, name)

    def _write(self, name: str, data: Sequence[Piece]) -> None:
        self._result.written.append(name)
        self._result.bytes_written += sum(map(len, data))
        if self._transaction is not None:
            self._background.write(self._transaction.write, name, data, None)

    def _count(self, page: RenderedPage) -> None:
        self._result.urls += page.url_count
        self._result.skipped += page.skipped
        self._result.lastmods_dropped += page.lastmods_dropped
        self._result.images_dropped += page.images_dropped
        self._result.bytes += page.size

    def _render_index_lastmod(self, page: RenderedPage) -> str | None:
        newest = page.lastmod if page.every_entry_dated else None
        return None if newest is None else newest.isoformat()

    def _announced_lastmod(
        self, page: RenderedPage, before: FileRecord | None, same_bytes: bool
    ) -> str | None:
        if before is not None and same_bytes:
            return before.lastmod
        if not page.every_entry_dated:
            # The newest of some entries would not move when the others change
            # (as the live index and views, and contrib, announce none then).
            return None
        previous = None if before is None else before.lastmod_value()
        return changed_lastmod(page.lastmod, before is not None, previous, self._started)


def index_lastmod(figures: PageFigures) -> str | None:
    """What the index announces for a page: its figures' newest, as the live index does."""
    return None if figures.newest is None else figures.newest.isoformat()


def changed_lastmod(
    newest: datetime.datetime | None,
    published: bool,
    previous: datetime.datetime | None,
    started: datetime.datetime,
) -> str:
    """The Last-Modified of a file whose bytes changed: later than any announced for its old bytes.

    ``newest`` is its newest entry's lastmod; ``published``: a file of its
    name was published before, announced with ``previous``. When the bytes
    changed but no row says so (a deletion, a row dated before the newest,
    an edited location) or the old file announced none, the build's own
    time; a second after ``previous`` at least, since that time is whole
    seconds and a build may follow another within one.
    """
    if newest is not None and (not published or (previous is not None and newest > previous)):
        return newest.isoformat()
    if previous is None:
        return started.isoformat()
    return max(started, previous + datetime.timedelta(seconds=1)).isoformat()
