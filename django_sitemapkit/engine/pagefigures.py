"""The row count and newest lastmod of pages, and of their segments, in one scan.

A page asked for with its segment cuts is counted segment by segment: an
incremental build finds the edited segments of a page by their figures
(splicing.py). Where the change log tells which rows changed (loggedpages.py),
only the segments holding them are counted again (``KnownSegments``); the
others keep the figures the last build counted, as the untouched pages keep
theirs. A page's newest lastmod then comes from those segments, unless they
now hold nothing as new as the page's newest row at the last count: that row
may have been among them, so the page is counted whole.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.db.models import QuerySet

from django_sitemapkit.engine.pagetable import Page
from django_sitemapkit.engine.rangestats import Bound, KeyRange, RangeAggregator, RangeStats
from django_sitemapkit.protocol.w3c import to_aware

# Row count and newest lastmod of each page, and of its segments where asked.
Figures = dict[int, tuple[RangeStats, tuple[RangeStats, ...] | None]]


@dataclass(frozen=True)
class KnownSegments:
    """A page's segments as the last build counted them, and those to count again."""

    #: The rows of each segment at the last count.
    counts: tuple[int, ...]
    #: The positions of the segments whose rows may have changed since.
    recount: frozenset[int]
    #: The page's newest lastmod at the last count (aware), and the zone of naive values.
    newest: datetime.datetime
    tz: datetime.tzinfo


# Per page number, what the last build counted of its segments; None: count them all.
Known = Callable[[int], KnownSegments | None]


class PageFigures:
    """Counts and newest lastmods of pages of ``queryset``, keyed as ``to_key`` reads keys."""

    def __init__(
        self,
        queryset: QuerySet[Any],
        lastmod_field: str | None,
        to_key: Callable[[str | None], Any],
        *,
        parallel: bool,
    ) -> None:
        self._aggregator = RangeAggregator(queryset, lastmod_field, parallel=parallel)
        self._key = to_key

    def of(
        self,
        pages: Sequence[Page],
        segment_cuts: Mapping[int, Sequence[str]],
        known: Known | None = None,
    ) -> Figures:
        """Row count and newest lastmod of each page, and of its segments where asked.

        A page with cuts in ``segment_cuts`` that all lie within its range is
        counted segment by segment; the others whole. Where ``known`` knows a
        page's segments, only those it names are counted again. Either way
        one scan of the section: a UNION ALL of per-range aggregates.
        """
        ranges: list[KeyRange] = []
        owners: list[tuple[int, int]] = []
        segmented: dict[int, KnownSegments | None] = {}
        for page in pages:
            lower = None if page.start_key is None else Bound("gte", page.start_key)
            upper = None if page.end_key is None else Bound("lt", page.end_key)
            cuts = segment_cuts.get(page.number)
            if cuts is None or not self._cuts_within(cuts, page):
                ranges.append((lower, upper))
                owners.append((page.number, 0))
                continue
            hint = None if known is None else known(page.number)
            segmented[page.number] = hint = _matching(hint, cuts)
            # Segment s holds the keys above cut s-1 and up to cut s.
            lowers = [lower, *(Bound("gt", cut) for cut in cuts)]
            uppers = [*(Bound("lte", cut) for cut in cuts), upper]
            for position, segment in enumerate(zip(lowers, uppers, strict=True)):
                if hint is None or position in hint.recount:
                    ranges.append(segment)
                    owners.append((page.number, position))
        counted: dict[int, dict[int, RangeStats]] = {page.number: {} for page in pages}
        for (number, position), stats in zip(owners, self._aggregator.stats(ranges), strict=True):
            counted[number][position] = stats
        return self._assemble(pages, counted, segmented, segment_cuts)

    def _assemble(
        self,
        pages: Sequence[Page],
        counted: Mapping[int, Mapping[int, RangeStats]],
        segmented: Mapping[int, KnownSegments | None],
        segment_cuts: Mapping[int, Sequence[str]],
    ) -> Figures:
        """The figures of ``pages`` from the ranges ``counted`` (by page and position) and the
        segments known; a page whose newest lastmod they cannot tell is counted whole again."""
        figures: Figures = {}
        recount_whole: list[Page] = []
        for page in pages:
            parts = counted[page.number]
            if page.number not in segmented:
                figures[page.number] = (parts[0], None)
                continue
            hint = segmented[page.number]
            if hint is not None:
                parts = {
                    position: parts.get(position, RangeStats(count, None))
                    for position, count in enumerate(hint.counts)
                }
            segments = tuple(parts[position] for position in sorted(parts))
            whole = RangeStats(
                sum(part.count for part in segments),
                max((p.lastmod for p in segments if p.lastmod is not None), default=None),
            )
            if hint is not None and not _still_newest(whole.lastmod, hint):
                recount_whole.append(page)
                continue
            figures[page.number] = (whole, segments)
        if recount_whole:
            figures.update(self.of(recount_whole, segment_cuts))
        return figures

    def _cuts_within(self, cuts: Sequence[str], page: Page) -> bool:
        """Whether every cut key lies in the page's range ``[start, end)``.

        A page split since its segments were cut may end below some of them.
        Compared in Python: segment cuts are only asked for with integer keys.
        """
        start, end = self._key(page.start_key), self._key(page.end_key)
        return all(
            (start is None or key >= start) and (end is None or key < end)
            for key in map(self._key, cuts)
        )


def _matching(hint: KnownSegments | None, cuts: Sequence[str]) -> KnownSegments | None:
    """``hint`` where it knows as many segments as ``cuts`` makes."""
    return hint if hint is not None and len(hint.counts) == len(cuts) + 1 else None


def _still_newest(lastmod: datetime.datetime | datetime.date | None, hint: KnownSegments) -> bool:
    """Whether the segments counted again hold a row as new as the page's newest at the last
    count: then no row the other segments kept is newer."""
    return lastmod is not None and to_aware(lastmod, hint.tz) >= hint.newest
