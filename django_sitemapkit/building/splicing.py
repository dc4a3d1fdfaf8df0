"""Incremental page renders: splice the segments whose rows changed into the old file.

A page whose fingerprint changed is usually a page where a few rows were
edited. Rendering and compressing its 50,000 entries again would cost the
page's whole share of a full build. Instead, the build's scan of the section
(the one that gives each page's row count and newest lastmod) counts each
1,000-row segment of the previous render on its own too. Where every segment
still holds as many rows as before, the segments with a lastmod later than the
page's previous newest one hold the edits, and only they are rendered again.
Their bytes, plain and compressed, replace the old ones; every other piece is
copied from the published files (see writer.py and deflate.py for the pieces).

The result is byte for byte what rendering the page whole gives -- a segment
holds the same rows either way -- so this is only a shortcut, and the page is
rendered whole whenever that could be untrue: a segment's row count changed (a
deletion or insertion shifts every later segment), the page was split below
its old segments, a re-rendered segment came out with another number of
entries or skips or with other URLs (a file lists each URL once, which only
the whole page can tell), the old files are missing or not what the manifest
describes, the keys are of a type whose order only the database knows (text,
UUIDs), or half the page changed anyway.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence

from django.db import models

from django_sitemapkit.engine.entries import RenderContext
from django_sitemapkit.engine.pages import KeySpan, PageNotFound, PageSummary
from django_sitemapkit.engine.rangestats import RangeStats
from django_sitemapkit.engine.rendering import split_pieces
from django_sitemapkit.engine.rows import keys_sort_alike
from django_sitemapkit.engine.sections import RenderedPage
from django_sitemapkit.protocol.deflate import GZIP_HEADER, GZIP_TRAILER_SIZE, Piece, compress_piece
from django_sitemapkit.protocol.w3c import to_aware
from django_sitemapkit.protocol.writer import MAX_BYTES_PER_FILE, SEGMENT_ENTRIES
from django_sitemapkit.publishing.manifest import FileRecord
from django_sitemapkit.sitemaps import ModelSitemap

RenderSpan = Callable[[int, KeySpan], RenderedPage]
# Each entry's location as the writer wrote it (escaped, so never holding "<").
_LOC = re.compile(rb"<loc>([^<]*)</loc>")
ReadFile = Callable[[str], Piece | None]


def sitemap_can_splice(sitemap: ModelSitemap) -> bool:
    """Splicing needs a datetime lastmod (a date cannot tell edits of one day apart),
    keys that Python orders as the database does (integers), and one entry per
    row (an ``i18n`` row has one per language)."""
    return (
        isinstance(sitemap.get_lastmod_field(), models.DateTimeField)
        and keys_sort_alike(sitemap)
        and not sitemap.i18n
    )


def can_splice(record: FileRecord | None, *, gzip: bool) -> bool:
    """Whether the previous build left what splicing ``record``'s page needs."""
    if record is None or record.layout is None or record.fingerprint_lastmod() is None:
        return False
    layout = record.layout
    segments = len(layout.cuts) + 1
    return (
        layout.segment_entries == SEGMENT_ENTRIES
        and len(layout.skips) == segments
        and len(layout.sizes) == segments + 2
        and (not gzip or len(layout.gz_sizes) == segments + 2)
    )


def splice_pages(
    records: dict[int, FileRecord],
    summaries: dict[int, PageSummary],
    context: RenderContext,
    *,
    read: ReadFile,
    render: RenderSpan,
    gzip: bool,
    logged: Mapping[int, Collection[str]] | None = None,
) -> Iterator[tuple[int, RenderedPage | None]]:
    """Each page of ``records`` that may be spliced, with its spliced page or None.

    ``records`` holds the previous build's record of each page to try (each
    passing ``can_splice``) and ``summaries`` each page's summary now, with
    the row count and newest lastmod of each of its old segments (see
    ``KeysetPages.summaries``); the pages given None, or not given at all,
    must be rendered whole. ``logged`` holds, by page, the keys of rows the
    change log names (changelog.py): their segments are rendered again
    whatever their figures say. Pages come one at a time, so a build holds one
    page's bytes at once.
    """
    logged = logged or {}
    for number, record in records.items():
        summary = summaries.get(number)
        if summary is None or summary.segments is None:
            continue  # gone, or split below its old segments since
        dirty = edited_segments(record, summary.segments, context, logged.get(number, ()))
        if dirty is not None:
            yield number, _splice(number, record, dirty, context, read, render, gzip)


def edited_segments(
    record: FileRecord,
    segments: Sequence[RangeStats],
    context: RenderContext,
    logged: Collection[str] = (),
) -> list[int] | None:
    """The positions of the segments of ``record``'s page whose rows were edited.

    None unless every segment still holds the rows it held (a deletion or
    insertion shifts every later segment; a row that left one segment while
    another came to a second leaves the page's count alone but not theirs).
    A segment was edited when it has a row whose lastmod is later than the
    page's newest at its last render, or a row of ``logged`` (keys of the page).
    """
    layout = record.layout
    previous_newest = record.fingerprint_lastmod()
    if layout is None or previous_newest is None or len(segments) != len(layout.cuts) + 1:
        return None
    rows = record.segment_rows()
    if rows is None:
        return None
    dirty = set(segments_holding(record, logged))
    for position, stats in enumerate(segments):
        if stats.count != rows[position]:
            return None
        if stats.lastmod is not None and to_aware(stats.lastmod, context.tz) > previous_newest:
            dirty.add(position)
    return sorted(dirty)


def segments_holding(record: FileRecord, keys: Collection[str]) -> set[int]:
    """The positions of the segments of ``record``'s page whose key ranges hold ``keys``."""
    assert record.layout is not None
    cuts = [int(cut) for cut in record.layout.cuts]
    return {bisect.bisect_left(cuts, int(key)) for key in keys}


def _splice(
    number: int,
    record: FileRecord,
    dirty: Sequence[int],
    context: RenderContext,
    read: ReadFile,
    render: RenderSpan,
    gzip: bool,
) -> RenderedPage | None:
    """``record``'s page with its ``dirty`` segments rendered again, or None if it must be whole."""
    layout = record.layout
    assert layout is not None
    entries = record.segment_entries()
    if entries is None or not dirty or 2 * len(dirty) > len(layout.cuts) + 1:
        return None
    page = _SplicedPage.read(record, read, gzip)
    if page is None:
        return None
    bounds: list[str | None] = [None, *layout.cuts, None]
    for position in dirty:
        try:
            part = render(number, KeySpan(after=bounds[position], through=bounds[position + 1]))
        except PageNotFound:
            return None  # every row of the segment is skipped now
        if not page.fits(position, part, entries[position]):
            return None
        page.replace(position, part)
    return page.rendered(context)


class _SplicedPage:
    """A page's published pieces, plain and compressed, as re-rendered segments replace some."""

    def __init__(self, record: FileRecord, pieces: list[Piece], compressed: list[Piece] | None):
        assert record.layout is not None
        self._record = record
        self._layout = record.layout
        self._pieces = pieces
        self._compressed = compressed
        # The pieces still copied from the published files, and where they are there.
        self._reused = dict(zip(range(len(pieces)), _offsets(self._layout.sizes, 0), strict=True))
        self._reused_gz = (
            {}
            if compressed is None
            else dict(
                zip(
                    range(len(compressed)),
                    _offsets(self._layout.gz_sizes, len(GZIP_HEADER)),
                    strict=True,
                )
            )
        )
        self._newest = record.fingerprint_lastmod()
        self._identical = True
        self._dropped = 0
        self._images_dropped = 0

    @classmethod
    def read(cls, record: FileRecord, read: ReadFile, gzip: bool) -> _SplicedPage | None:
        """The page's published files in pieces; None if missing or not what ``record`` describes."""
        layout = record.layout
        assert layout is not None
        old_xml = read(record.name)
        if old_xml is None or len(old_xml) != sum(layout.sizes) or len(old_xml) != record.size:
            return None
        pieces = split_pieces(old_xml, layout.sizes)
        if not gzip:
            return cls(record, pieces, None)
        old_gz = read(record.name + ".gz")
        expected = len(GZIP_HEADER) + sum(layout.gz_sizes) + GZIP_TRAILER_SIZE
        if old_gz is None or len(old_gz) != expected or old_gz[: len(GZIP_HEADER)] != GZIP_HEADER:
            return None
        compressed = split_pieces(old_gz[len(GZIP_HEADER) : -GZIP_TRAILER_SIZE], layout.gz_sizes)
        return cls(record, pieces, compressed)

    def fits(self, position: int, part: RenderedPage, entries: int) -> bool:
        """Whether ``part``, the segment at ``position`` rendered again, may take its old place."""
        if (
            part.overflowed
            or part.url_count != entries
            or part.skipped != self._layout.skips[position]
            or len(part.pieces) != 3
            # The head or tail changed (namespaces, say): not a splice.
            or part.pieces[0] != self._pieces[0]
            or part.pieces[-1] != self._pieces[-1]
        ):
            return False
        # An edited URL may now repeat one listed in another segment, or free
        # one that was skipped there as a repeat of it: only the whole page's
        # render knows.
        return _locations(part.pieces[1]) == _locations(self._pieces[position + 1])

    def replace(self, position: int, part: RenderedPage) -> None:
        """Put ``part``'s segment in place of the old one at ``position``."""
        segment = part.pieces[1]
        self._identical = self._identical and segment == self._pieces[position + 1]
        self._dropped += part.lastmods_dropped
        self._images_dropped += part.images_dropped
        self._pieces[position + 1] = segment
        del self._reused[position + 1]
        if self._compressed is not None:
            self._compressed[position + 1] = compress_piece(segment, last=False)
            del self._reused_gz[position + 1]
        if part.lastmod is not None and (self._newest is None or part.lastmod > self._newest):
            self._newest = part.lastmod

    def rendered(self, context: RenderContext) -> RenderedPage | None:
        """The spliced page, or None if it no longer fits in a file."""
        if sum(map(len, self._pieces)) > MAX_BYTES_PER_FILE:
            return None
        record = self._record
        return RenderedPage(
            self._pieces,
            record.urls,
            record.skipped,
            None if self._newest is None else to_aware(self._newest, context.tz),
            segment_cuts=list(self._layout.cuts),
            segment_skips=list(self._layout.skips),
            compressed=self._compressed,
            reused=self._reused,
            reused_gz=self._reused_gz,
            digest=record.sha256 if self._identical else None,
            lastmods_dropped=self._dropped,
            images_dropped=self._images_dropped,
        )


def _locations(segment: Piece) -> list[bytes]:
    """The ``<loc>`` values of a rendered segment, in order."""
    return _LOC.findall(segment)


def _offsets(sizes: Sequence[int], start: int) -> list[int]:
    """Where each piece of ``sizes`` begins, the first at ``start``."""
    offsets = []
    for size in sizes:
        offsets.append(start)
        start += size
    return offsets
