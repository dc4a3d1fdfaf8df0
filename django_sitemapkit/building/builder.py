"""Pre-rendering every sitemap file into a storage: the engine of ``sitemapkit_build``.

Pages are rendered by the same code the views use (``Sitemap.render_page`` and
``rendering.write_index``), so a built file and a served file are the same
bytes. A manifest makes builds incremental: a model page whose row count and
newest lastmod (its fingerprint) are what they were is kept without rendering
it; a page where only some rows were edited gets just their segments rendered
again and spliced into its old bytes (splicing.py); any other page is rendered
whole. A page is written only if its bytes (content hash) changed, and the
index announces a new lastmod for every page whose bytes changed -- also when
the change was a deletion, which no ``updated_at`` shows.
"""

from __future__ import annotations

import dataclasses
import datetime
import functools
import hashlib
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TypeVar

from django.db import InterfaceError, OperationalError, connections

from django_sitemapkit.building.splicing import can_splice, sitemap_can_splice, splice_pages
from django_sitemapkit.conf import BaseUrlError, base_url, get_settings
from django_sitemapkit.engine import rows, sections
from django_sitemapkit.engine.entries import RenderContext
from django_sitemapkit.engine.filenames import INDEX_NAME, page_filename
from django_sitemapkit.engine.pages import KeySpan, PageNotFound, PageSummary
from django_sitemapkit.engine.rendering import IndexEntry, Sections, make_context, write_index
from django_sitemapkit.engine.sections import RenderedPage
from django_sitemapkit.protocol.deflate import Piece, compress_pieces, gzip_member
from django_sitemapkit.protocol.w3c import to_aware
from django_sitemapkit.protocol.writer import SEGMENT_ENTRIES
from django_sitemapkit.publishing.publishers import (
    FileRecord,
    Manifest,
    PageLayout,
    Publisher,
    Reuse,
    Transaction,
    get_publisher,
)
from django_sitemapkit.sitemaps import ModelSitemap, Sitemap


class BuildError(Exception):
    """The build failed; nothing was published."""


@dataclass
class BuildResult:
    sections: int = 0
    written: list[str] = field(default_factory=list)
    unchanged: int = 0
    removed: list[str] = field(default_factory=list)
    urls: int = 0
    skipped: int = 0
    # Entries of the pages rendered by this build listed without their
    # lastmod, which could not be written.
    lastmods_dropped: int = 0
    bytes: int = 0
    seconds: float = 0.0
    dry_run: bool = False
    published: bool = False
    cleaned: int = 0
    # Why a build asked for some sections rebuilt every one, if it did.
    every_section_because: str | None = None
    # Sections built besides those asked for, because the last build published
    # no page of theirs (registered since, or empty then), that have pages now.
    first_published: list[str] = field(default_factory=list)

    def summary(self) -> str:
        verb = "would be written" if self.dry_run else "written"
        return (
            f"{self.sections} section{'s' if self.sections != 1 else ''}: "
            f"{len(self.written)} files {verb}, {self.unchanged} unchanged, "
            f"{len(self.removed)} removed; {self.urls:,} URLs ({self.skipped:,} skipped"
            f"{self._dropped()}), {self.bytes:,} bytes in {self.seconds:.2f} s."
        )

    def count_skipped(self, count: int) -> None:
        self.skipped += count

    def _dropped(self) -> str:
        if not self.lastmods_dropped:
            return ""
        return f", {self.lastmods_dropped:,} without their unwritable lastmod"


Progress = Callable[[int, int], None]
T = TypeVar("T")


def sha256(*pieces: Piece) -> str:
    digest = hashlib.sha256()
    for piece in pieces:
        digest.update(piece)
    return digest.hexdigest()


def resiliently(read: Callable[[], T]) -> T:
    """``read()``, again on fresh connections if the database dropped ours.

    Long builds meet servers and proxies that close idle or long-lived
    connections. Each page, and the scan that lists the pages, is a read of
    its own, so it can simply be done again -- unless a transaction is open,
    whose work a reconnect would lose: then the error propagates and the
    build fails without publishing.
    """
    try:
        return read()
    except (OperationalError, InterfaceError):
        if any(connection.in_atomic_block for connection in connections.all()):
            raise
        for connection in connections.all():
            connection.close()
        return read()


def render_page_resiliently(
    sitemap: Sitemap, number: int, context: RenderContext, span: KeySpan | None = None
) -> RenderedPage:
    """Render one page (or ``span`` of it), again on a fresh connection if the database dropped ours."""
    return resiliently(lambda: sections.render_page(sitemap, number, context, span))


def render_section(
    sitemap: Sitemap,
    context: RenderContext,
    numbers: list[int],
    skipped: Callable[[int], None] = lambda count: None,
    pages_changed: Callable[[str], None] = lambda section: None,
) -> Iterator[tuple[int, RenderedPage]]:
    """Pages ``numbers`` of a section, then any page split off while rendering them.

    A page whose every URL is skipped has no file; ``skipped`` is told how
    many rows it held, ``pages_changed`` when a split changed the section's pages.
    """
    done: set[int] = set()
    pending = numbers
    while True:
        overflowed = False
        for number in pending:
            done.add(number)
            try:
                page = render_page_resiliently(sitemap, number, context)
            except PageNotFound as exc:
                skipped(exc.skipped)
                continue
            overflowed = overflowed or page.overflowed
            if page.pages_changed:
                pages_changed(sitemap.name)
            yield number, page
        if not overflowed:
            return
        summaries = sections.page_summaries(sitemap, context)
        pending = [s.number for s in summaries if s.number not in done]


class BackgroundDigests:
    """sha256 digests of page files, worked out on another core while the build goes on.

    hashlib lets go of the GIL while it hashes a large buffer, so the digest
    of one page costs no time while the next is rendered. One page at a
    time: a build holds at most one more page's bytes than it would without.
    """

    def __init__(self) -> None:
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="sitemapkit-sha256")
        self._pending: tuple[FileRecord, Future[str]] | None = None

    def fill_in(self, record: FileRecord, pieces: Sequence[Piece]) -> None:
        """Set ``record.sha256`` to the digest of ``pieces``, at the latest by ``wait()``."""
        self.wait()
        self._pending = (record, self._pool.submit(sha256, *pieces))

    def wait(self) -> None:
        """Every record given so far has its digest."""
        if self._pending is not None:
            record, future = self._pending
            self._pending = None
            record.sha256 = future.result()

    def __enter__(self) -> BackgroundDigests:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)


class Builder:
    def __init__(
        self,
        *,
        publisher: Publisher | None = None,
        sitemaps: Sections,
        full: bool = False,
        dry_run: bool = False,
        progress: Progress | None = None,
        rerender: bool = False,
    ) -> None:
        conf = get_settings()
        try:
            self.base_url = base_url()
        except BaseUrlError as exc:
            raise BuildError(str(exc)) from None
        self.publisher = publisher or get_publisher()
        self.sitemaps = sitemaps
        self.full = full
        # Render every page and compare bytes, even where fingerprints match.
        self.rerender = rerender
        self.dry_run = dry_run
        self.gzip = conf.GZIP
        self.progress = progress
        # The lastmod announced for a page whose bytes changed while its rows'
        # newest lastmod did not (a deletion): the moment of this build.
        self.started = datetime.datetime.now(tz=datetime.UTC).replace(microsecond=0)

    def run(self, sections: list[str] | None = None, *, wait: float = 0) -> BuildResult:
        unknown = sorted(set(sections or []) - set(self.sitemaps.sections()))
        if unknown:
            raise BuildError(
                f"Unknown section {', '.join(map(repr, unknown))}; registered: "
                f"{', '.join(self.sitemaps.sections()) or 'none'}."
            )
        start = time.perf_counter()
        with self.publisher.lock(wait=wait):
            result = BuildResult(dry_run=self.dry_run)
            if not self.dry_run:
                result.cleaned = self.publisher.cleanup()
            previous = self.publisher.manifest()
            manifest = Manifest(
                generation=f"{self.started:%Y%m%dT%H%M%S}-{uuid.uuid4().hex[:8]}",
                built_at=self.started.isoformat(),
                base_url=self.base_url,
                gzip=self.gzip,
                previous_generation=None if previous is None else previous.generation,
            )
            selected = set(sections or [])
            unpublished: set[str] = set()
            if selected:
                result.every_section_because = self._stale_pages_reason(previous)
                if result.every_section_because is not None:
                    selected = set()
                else:
                    # A section without published pages (registered since the
                    # last build, or empty then) has no files to keep: left
                    # out, it would be missing from the index.
                    assert previous is not None
                    have_pages = {record.section for record in previous.pages}
                    unpublished = set(self.sitemaps.sections()) - selected - have_pages
                    selected |= unpublished
            transaction = None if self.dry_run else self.publisher.begin(manifest, previous)
            try:
                with BackgroundDigests() as digests:
                    self._build(manifest, previous, transaction, selected, result, digests)
            except BaseException:
                if transaction is not None:
                    transaction.abort()
                raise
            with_pages = {record.section for record in manifest.pages}
            result.first_published = sorted(unpublished & with_pages)
        result.seconds = time.perf_counter() - start
        return result

    def _build(
        self,
        manifest: Manifest,
        previous: Manifest | None,
        transaction: Transaction | None,
        selected: set[str],
        result: BuildResult,
        digests: BackgroundDigests,
    ) -> None:
        old = {} if previous is None else {record.name: record for record in previous.pages}
        # Previous gzip files can be reused only if the previous build made them.
        old_gzip = previous is not None and previous.gzip
        context = make_context(self.base_url, self.sitemaps.name)
        # One pass over the sections' page lists first, for the progress total.
        wanted = [sitemap for sitemap in self.sitemaps if _wanted(sitemap, selected)]
        splice_records = {
            sitemap.name: self._splice_records(sitemap, previous, old) for sitemap in wanted
        }
        summaries = {
            sitemap.name: resiliently(
                functools.partial(self._summaries, sitemap, context, splice_records[sitemap.name])
            )
            for sitemap in wanted
        }
        total = sum(len(pages) for pages in summaries.values())
        done = 0

        def keep(name: str) -> None:
            result.unchanged += 1
            if transaction is not None:
                transaction.keep(name)

        def write(name: str, data: Sequence[Piece], reused: dict[int, int] | None = None) -> None:
            result.written.append(name)
            if transaction is not None:
                transaction.write(name, data, Reuse(name, reused) if reused else None)

        def advance() -> None:
            nonlocal done
            done += 1
            if self.progress is not None:
                self.progress(done, max(total, done))

        def keep_record(record: FileRecord) -> None:
            keep(record.name)
            if self.gzip and old_gzip:
                keep(record.name + ".gz")

        for sitemap in self.sitemaps:
            result.sections += 1
            if sitemap.name not in summaries:
                # Not rebuilt this time: its published files stay as they are.
                for record in sorted(old.values(), key=lambda r: r.number):
                    if record.section == sitemap.name:
                        manifest.pages.append(record)
                        keep_record(record)
                continue
            # Pages whose row count and newest lastmod are what they were at the
            # last render are kept without rendering them again.
            trust_fingerprints = self._trust_fingerprints(sitemap, previous)
            records: list[FileRecord] = []
            # Pages whose digest comes later, to compare with their published one.
            awaiting_digest: list[tuple[FileRecord, FileRecord]] = []
            fingerprints: dict[int, str] = {}
            to_render: list[int] = []
            for summary in summaries[sitemap.name]:
                fingerprint = _fingerprint(summary, context)
                before = old.get(page_filename(sitemap.name, summary.number))
                if trust_fingerprints and before is not None and before.fingerprint == fingerprint:
                    records.append(before)
                    keep_record(before)
                    result.urls += before.urls
                    result.skipped += before.skipped
                    advance()
                else:
                    fingerprints[summary.number] = fingerprint
                    to_render.append(summary.number)
            to_splice = {
                number: record
                for number, record in splice_records[sitemap.name].items()
                if number in to_render
            }
            for number, page in self._render_pages(
                sitemap, to_render, to_splice, summaries[sitemap.name], context, previous, result
            ):
                name = page_filename(sitemap.name, number)
                before = old.get(name)
                # A full build writes every page and a spliced page's bytes
                # changed unless its digest is known: their digests are only
                # for the manifest, and are worked out while the build goes on.
                defer_digest = page.digest is None and (self.full or bool(page.reused))
                digest = page.digest or ("" if defer_digest else sha256(*page.pieces))
                same_bytes = before is not None and before.sha256 == digest
                unchanged = same_bytes and not self.full and (old_gzip or not self.gzip)
                compressed: Sequence[Piece] = []
                if not unchanged and self.gzip:
                    compressed = page.compressed or compress_pieces(page.pieces)
                record = FileRecord(
                    section=sitemap.name,
                    number=number,
                    sha256=digest,
                    size=page.size,
                    urls=page.url_count,
                    lastmod=self._announced_lastmod(page, before, same_bytes),
                    skipped=page.skipped,
                    # A page cut short while rendering holds fewer rows than
                    # its summary counted: render it again next time.
                    fingerprint=None if page.overflowed else fingerprints.get(number),
                    layout=_layout(page, compressed, kept=before if unchanged else None),
                )
                records.append(record)
                if defer_digest:
                    digests.fill_in(record, page.pieces)
                    if before is not None:
                        awaiting_digest.append((record, before))
                if unchanged:
                    assert before is not None
                    keep_record(before)
                else:
                    write(name, page.pieces, page.reused)
                    if self.gzip:
                        # gzip_member puts the gzip header before the pieces.
                        reused_gz = {index + 1: offset for index, offset in page.reused_gz.items()}
                        write(name + ".gz", gzip_member(page.pieces, compressed), reused_gz)
                result.urls += page.url_count
                result.skipped += page.skipped
                result.lastmods_dropped += page.lastmods_dropped
                result.bytes += page.size
                advance()
            digests.wait()
            for record, before in awaiting_digest:
                if record.sha256 == before.sha256:
                    # Rewritten byte for byte (a --full build of unchanged
                    # rows): crawlers have nothing new to fetch.
                    record.lastmod = before.lastmod
            manifest.pages.extend(sorted(records, key=lambda r: r.number))

        try:
            index = write_index(
                (IndexEntry(r.section, r.number, r.lastmod_value()) for r in manifest.pages),
                base_url=self.base_url,
                namespace=self.sitemaps.name,
            )
        except PageNotFound:
            raise BuildError("No section has a URL to list: nothing to publish.") from None
        manifest.index_sha256 = sha256(index.content)
        manifest.index_lastmod = (
            None if index.last_modified is None else index.last_modified.isoformat()
        )
        index_files = {INDEX_NAME: index.content}
        if self.gzip:
            index_files[INDEX_NAME + ".gz"] = index.gzipped().content
        result.bytes += len(index.content)
        index_unchanged = previous is not None and previous.index_sha256 == manifest.index_sha256
        current = set(manifest.files())
        result.removed = (
            [] if previous is None else [n for n in previous.files() if n not in current]
        )
        if index_unchanged and not result.written and not result.removed and not self.full:
            result.unchanged += len(index_files)
            if transaction is not None:
                transaction.abort()  # nothing changed: keep the published set as it is
            return
        result.written.extend(index_files)
        if transaction is not None:
            transaction.publish(index_files, manifest)
            result.published = True

    def _render_pages(
        self,
        sitemap: Sitemap,
        numbers: list[int],
        to_splice: dict[int, FileRecord],
        summaries: list[PageSummary],
        context: RenderContext,
        previous: Manifest | None,
        result: BuildResult,
    ) -> Iterator[tuple[int, RenderedPage]]:
        """Pages ``numbers``: spliced where possible (``to_splice``), else rendered whole."""
        spliced: set[int] = set()
        if to_splice and previous is not None:
            for number, page in self._splice(sitemap, to_splice, summaries, context, previous):
                if page is not None:
                    spliced.add(number)
                    yield number, page
        rest = [number for number in numbers if number not in spliced]
        yield from render_section(
            sitemap, context, rest, result.count_skipped, self.sitemaps.pages_changed
        )

    def _splice(
        self,
        sitemap: Sitemap,
        records: dict[int, FileRecord],
        summaries: list[PageSummary],
        context: RenderContext,
        previous: Manifest,
    ) -> Iterator[tuple[int, RenderedPage | None]]:
        """The pages of ``records`` rebuilt from their old files and edited segments."""
        return splice_pages(
            records,
            {summary.number: summary for summary in summaries},
            context,
            read=lambda name: self.publisher.read_view(previous, name),
            render=lambda number, span: render_page_resiliently(sitemap, number, context, span),
            gzip=self.gzip,
        )

    def _summaries(
        self, sitemap: Sitemap, context: RenderContext, splice_records: dict[int, FileRecord]
    ) -> list[PageSummary]:
        """The section's pages; for pages that may be spliced, with their segments' figures.

        A model section is scanned on two connections at once where it can be:
        the scan is most of an incremental build's time.
        """
        if not isinstance(sitemap, ModelSitemap):
            return sections.page_summaries(sitemap, context)
        cuts = {
            number: record.layout.cuts
            for number, record in splice_records.items()
            if record.layout is not None
        }
        return rows.keyset_pages(sitemap).summaries(cuts, parallel=True)

    def _stale_pages_reason(self, previous: Manifest | None) -> str | None:
        """Why no published page can be kept as it is, or None if they can.

        A page lists absolute URLs of the ``BASE_URL`` it was built for, and
        has a ``.gz`` only if ``GZIP`` was on: keeping it under other
        settings would publish URLs of another host, or an index linking
        ``.gz`` files that do not exist.
        """
        if previous is None:
            return "nothing was published before"
        if previous.base_url != self.base_url:
            return f"BASE_URL was {previous.base_url} at the last build"
        if self.gzip and not previous.gzip:
            return "GZIP was off at the last build"
        return None

    def _trust_fingerprints(self, sitemap: Sitemap, previous: Manifest | None) -> bool:
        """Whether pages of ``sitemap`` with unchanged fingerprints may be kept."""
        return (
            sections.fingerprints_reliable(sitemap)
            and not self.full
            and not self.rerender
            and self._stale_pages_reason(previous) is None
        )

    def _splice_records(
        self, sitemap: Sitemap, previous: Manifest | None, old: dict[str, FileRecord]
    ) -> dict[int, FileRecord]:
        """The previous records of the pages of ``sitemap`` that may be spliced, by number."""
        if not (
            isinstance(sitemap, ModelSitemap)
            and self._trust_fingerprints(sitemap, previous)
            and sitemap_can_splice(sitemap)
        ):
            return {}
        return {
            record.number: record
            for record in old.values()
            if record.section == sitemap.name and can_splice(record, gzip=self.gzip)
        }

    def _announced_lastmod(
        self, page: RenderedPage, before: FileRecord | None, same_bytes: bool
    ) -> str | None:
        newest = page.lastmod
        if before is None:
            return None if newest is None else newest.isoformat()
        if same_bytes:
            return before.lastmod
        previous = before.lastmod_value()
        if newest is not None and (previous is None or newest > previous):
            return newest.isoformat()
        # The bytes changed but no row says so (a deletion, an unpublished
        # row, a changed location): announce the build's own time.
        return self.started.isoformat()


def _layout(
    page: RenderedPage, compressed: Sequence[Piece], *, kept: FileRecord | None
) -> PageLayout | None:
    """The pieces of the page's files; ``kept``: the record whose files are kept instead."""
    layout = PageLayout(
        segment_entries=SEGMENT_ENTRIES,
        # The rows just read, even for kept bytes: the same bytes may come
        # from other rows (keys) than last time.
        cuts=[str(key) for key in page.segment_cuts],
        skips=list(page.segment_skips),
        sizes=[len(piece) for piece in page.pieces],
        gz_sizes=[len(piece) for piece in compressed],
    )
    if kept is None:
        return layout
    # A kept .gz is the old file: only the old layout knows its pieces.
    if kept.layout is None or kept.layout.sizes != layout.sizes:
        return None
    return dataclasses.replace(layout, gz_sizes=kept.layout.gz_sizes)


def _fingerprint(summary: PageSummary, context: RenderContext) -> str:
    lastmod = "" if summary.lastmod is None else to_aware(summary.lastmod, context.tz).isoformat()
    return f"{summary.count}|{lastmod}"


def _wanted(sitemap: Sitemap, selected: set[str]) -> bool:
    return not selected or sitemap.name in selected
