"""Incremental page renders: splice the segments whose rows changed into the old file.

A page whose fingerprint changed is usually a page where a few rows were
edited. Rendering and compressing its 50,000 entries again would cost the
page's whole share of a full build. Instead, when the page still holds as many
rows as before, the build asks the database which of its rows have a lastmod
later than the page's previous newest one (one query for all such pages),
finds the segments holding them by their keys, and renders only those
segments. Their bytes, plain and compressed, replace the old ones; every other
piece is copied from the published files (see writer.py and deflate.py for the
pieces).

The result is byte for byte what rendering the page whole gives -- a segment
holds the same rows either way -- so this is only a shortcut, and the page is
rendered whole whenever that could be untrue: the page's row count changed (a
deletion or insertion shifts every later segment), a re-rendered segment came
out with another number of entries or skips (a row moved between segments),
the old files are missing or not what the manifest describes, the keys are of
a type whose order only the database knows (text, UUIDs), or half the page
changed anyway.
"""

from __future__ import annotations

import bisect
import datetime
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from django.conf import settings
from django.db import models
from django.utils import timezone

from django_sitemapkit.deflate import GZIP_HEADER, GZIP_TRAILER_SIZE, compress_piece
from django_sitemapkit.pages import KeySpan, PageNotFound, PageSummary
from django_sitemapkit.publishing import FileRecord
from django_sitemapkit.rendering import split_pieces
from django_sitemapkit.sitemaps import ModelSitemap, RenderContext, RenderedPage
from django_sitemapkit.w3c import to_aware
from django_sitemapkit.writer import MAX_BYTES_PER_FILE, SEGMENT_ENTRIES

RenderSpan = Callable[[int, KeySpan], RenderedPage]
ReadFile = Callable[[str], bytes | None]


def sitemap_can_splice(sitemap: ModelSitemap) -> bool:
    """Splicing needs a datetime lastmod (a date cannot tell edits of one day apart)
    and keys that Python orders as the database does (integers)."""
    return isinstance(sitemap.get_lastmod_field(), models.DateTimeField) and (
        sitemap.keys_sort_alike()
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


def splice_since(
    records: dict[int, FileRecord], context: RenderContext
) -> dict[int, datetime.datetime]:
    """For each page of ``records``: its previous newest lastmod, as the database compares it.

    Rows with a later lastmod are the page's edits since it was rendered.
    """
    since = {}
    for number, record in records.items():
        previous_newest = record.fingerprint_lastmod()
        if previous_newest is None:
            continue
        if not settings.USE_TZ:
            # Naive database values are in the site's zone (see to_aware).
            previous_newest = timezone.make_naive(previous_newest, context.tz)
        since[number] = previous_newest
    return since


def splice_pages(
    sitemap: ModelSitemap,
    records: dict[int, FileRecord],
    summaries: dict[int, PageSummary],
    context: RenderContext,
    *,
    read: ReadFile,
    render: RenderSpan,
    gzip: bool,
) -> Iterator[tuple[int, RenderedPage | None]]:
    """Each page of ``records`` that may be spliced, with its spliced page or None.

    ``records`` holds the previous build's record of each page to try (each
    passing ``can_splice``) and ``summaries`` each page's summary now; the
    pages given None, or not given at all, must be rendered whole. Pages come
    one at a time, so a build holds one page's bytes at once.
    """
    since = splice_since(records, context)
    # Same row count: edits only (or as many rows came as went, which a
    # re-rendered segment's entry count gives away).
    since = {
        number: moment
        for number, moment in since.items()
        if number in summaries
        and summaries[number].count == records[number].urls + records[number].skipped
    }
    if not since:
        return
    pages = sitemap.keyset_pages()
    key = pages.pk_field.to_python
    # A page split since its render (rows came and it passed ``limit``) may
    # now end below some of its old segments, whose bytes would then list rows
    # of the new page: such a page is rendered whole.
    stored = pages.stored_pages(list(since))
    for number in list(since):
        layout = records[number].layout
        assert layout is not None
        if number not in stored or not _within(
            [key(text) for text in layout.cuts], *pages.key_range(stored[number])
        ):
            del since[number]
            stored.pop(number, None)
    for number, keys in pages.changed_keys(stored, since).items():
        yield number, _splice(number, records[number], keys, key, context, read, render, gzip)


def _splice(
    number: int,
    record: FileRecord,
    changed: Sequence[Any],
    key: Callable[[str], Any],
    context: RenderContext,
    read: ReadFile,
    render: RenderSpan,
    gzip: bool,
) -> RenderedPage | None:
    layout = record.layout
    assert layout is not None
    segments = len(layout.cuts) + 1
    # Every segment holds SEGMENT_ENTRIES entries but the last.
    entries = [SEGMENT_ENTRIES] * (segments - 1)
    entries.append(record.urls - SEGMENT_ENTRIES * (segments - 1))
    if not 0 < entries[-1] <= SEGMENT_ENTRIES:
        return None
    # Segment s holds the keys above cut s-1 and up to cut s.
    cuts = [key(text) for text in layout.cuts]
    dirty = sorted({bisect.bisect_left(cuts, changed_key) for changed_key in changed})
    if not dirty or 2 * len(dirty) > segments:
        return None

    old_xml = read(record.name)
    if old_xml is None or len(old_xml) != sum(layout.sizes) or len(old_xml) != record.size:
        return None
    pieces = split_pieces(old_xml, layout.sizes)
    compressed: list[bytes] | None = None
    if gzip:
        old_gz = read(record.name + ".gz")
        expected = len(GZIP_HEADER) + sum(layout.gz_sizes) + GZIP_TRAILER_SIZE
        if old_gz is None or len(old_gz) != expected or not old_gz.startswith(GZIP_HEADER):
            return None
        compressed = split_pieces(old_gz[len(GZIP_HEADER) : -GZIP_TRAILER_SIZE], layout.gz_sizes)

    reused = dict(zip(range(len(pieces)), _offsets(layout.sizes, 0), strict=True))
    reused_gz = (
        {}
        if compressed is None
        else dict(
            zip(range(len(compressed)), _offsets(layout.gz_sizes, len(GZIP_HEADER)), strict=True)
        )
    )
    bounds: list[str | None] = [None, *layout.cuts, None]
    newest = record.fingerprint_lastmod()
    for position in dirty:
        try:
            part = render(number, KeySpan(after=bounds[position], through=bounds[position + 1]))
        except PageNotFound:
            return None  # every row of the segment is skipped now
        if (
            part.overflowed
            or part.url_count != entries[position]
            or part.skipped != layout.skips[position]
            or len(part.chunks) != 3
            # The head or tail changed (namespaces, say): not a splice.
            or part.chunks[0] != pieces[0]
            or part.chunks[-1] != pieces[-1]
        ):
            return None
        segment = part.chunks[1]
        pieces[position + 1] = segment
        del reused[position + 1]
        if compressed is not None:
            compressed[position + 1] = compress_piece(segment, last=False)
            del reused_gz[position + 1]
        if part.lastmod is not None and (newest is None or part.lastmod > newest):
            newest = part.lastmod
    if sum(map(len, pieces)) > MAX_BYTES_PER_FILE:
        return None
    return RenderedPage(
        pieces,
        record.urls,
        record.skipped,
        None if newest is None else to_aware(newest, context.tz),
        segment_cuts=list(layout.cuts),
        segment_skips=list(layout.skips),
        compressed=compressed,
        reused=reused,
        reused_gz=reused_gz,
    )


def _within(keys: Sequence[Any], start: Any, end: Any) -> bool:
    """Whether every key lies in ``[start, end)`` (None: open)."""
    return all((start is None or k >= start) and (end is None or k < end) for k in keys)


def _offsets(sizes: Sequence[int], start: int) -> list[int]:
    """Where each piece of ``sizes`` begins, the first at ``start``."""
    offsets = []
    for size in sizes:
        offsets.append(start)
        start += size
    return offsets
