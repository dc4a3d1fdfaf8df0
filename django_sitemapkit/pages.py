"""Stable, dense pages for model sections.

A page is a half-open range of primary keys, ``[start_key, end_key)``, stored
in the ``SitemapPage`` table. The ranges are cut by row count the first time a
section is paginated (so every page starts full, however sparse the queryset
is within the table), and afterwards they only ever change by splitting:

* editing a row changes only the page whose range holds its key;
* deleting or unpublishing a row makes its own page one row shorter and
  moves no boundary, so no other page changes;
* new rows with higher keys land in the last, open-ended page; when a page
  holds more than ``limit`` rows (or its file would pass the byte limit),
  it is split at a key and the upper part becomes a new page with the next
  free number. Earlier pages never change because of growth.

Fixed arithmetic key ranges would be just as stable but nearly empty for a
queryset that keeps 1 % of a table; re-cutting by count on every request
would be dense but would shift every later page on each deletion. Persisting
the cuts gives both. Deletions can leave pages under-full; they are never
merged automatically because merging would change a page that no edit
touched.

No query uses OFFSET over the section: a page is an index range scan, and the
index's per-page lastmod comes from one ``UNION ALL`` of per-range aggregates
(see rangestats.py). An incremental build asks the same scan for the figures
of each segment of each page, which is how splicing.py finds edited segments.
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from django.db import IntegrityError, models, router, transaction
from django.db.models import Max, Q, QuerySet

from django_sitemapkit.rangestats import Bound, KeyRange, RangeAggregator, RangeStats

if TYPE_CHECKING:
    from django_sitemapkit.models import SitemapPage


def _page_model() -> type[SitemapPage]:
    # Imported late: the package's __init__ imports this module while Django
    # is still loading apps, before models may be imported.
    from django_sitemapkit.models import SitemapPage

    return SitemapPage


class PageNotFound(LookupError):
    """The section has no such page, or no URL to list on it."""

    def __init__(self, number: int, *, skipped: int = 0) -> None:
        super().__init__(number)
        # Rows the page holds whose every URL was skipped.
        self.skipped = skipped


@dataclass(frozen=True)
class PageSummary:
    """What the index needs of one page."""

    number: int
    count: int
    lastmod: datetime.datetime | datetime.date | None
    # The count and newest lastmod of each of the page's segments, when
    # summaries() was asked for them (see there).
    segments: tuple[RangeStats, ...] | None = None


@dataclass(frozen=True)
class KeySpan:
    """Part of a page: the rows with keys above ``after`` and up to ``through``.

    Keys are in their text form, as stored; None leaves that side open (the
    page's own bound applies).
    """

    after: str | None = None
    through: str | None = None


class KeysetPages:
    """The pages of one model section."""

    def __init__(
        self,
        section: str,
        queryset: QuerySet[Any],
        *,
        limit: int,
        lastmod_field: str | None,
    ) -> None:
        self.section = section
        self.queryset = queryset
        self.limit = limit
        self.lastmod_field = lastmod_field
        pk_field = queryset.model._meta.pk
        assert pk_field is not None
        self.pk_field: models.Field[Any, Any] = pk_field
        self.model = _page_model()
        self.db = router.db_for_write(self.model)

    # -- boundaries ----------------------------------------------------------

    def _pages(self) -> list[SitemapPage]:
        pages = list(self.model.objects.using(self.db).filter(section=self.section))
        if pages:
            return pages
        # First use: one page covering every key; summaries() cuts it by count.
        try:
            with transaction.atomic(using=self.db):
                self.model.objects.using(self.db).create(section=self.section, number=1)
        except IntegrityError:
            pass  # another process created it first
        return list(self.model.objects.using(self.db).filter(section=self.section))

    def _key(self, text: str | None) -> Any:
        return None if text is None else self.pk_field.to_python(text)

    def _range_q(self, page: SitemapPage, span: KeySpan | None = None) -> Q:
        """The rows of ``page``, or of ``span`` within it.

        One bound per side: a span's bounds lie within the page's, and
        SQLite ranges a scan by only one of several bounds on a key.
        """
        span = span or KeySpan()
        q = Q()
        if span.after is not None:
            q &= Q(pk__gt=self._key(span.after))
        elif page.start_key is not None:
            q &= Q(pk__gte=self._key(page.start_key))
        if span.through is not None:
            q &= Q(pk__lte=self._key(span.through))
        elif page.end_key is not None:
            q &= Q(pk__lt=self._key(page.end_key))
        return q

    def page_queryset(self, number: int, span: KeySpan | None = None) -> QuerySet[Any]:
        """The rows of page ``number`` (or of ``span`` within it) in key order.

        Raises PageNotFound.
        """
        if number < 1:
            raise PageNotFound(number)
        manager = self.model.objects.using(self.db)
        page = manager.filter(section=self.section, number=number).first()
        if page is None and number == 1:
            # Page 1 asked for before the section was ever paginated.
            page = next((p for p in self._pages() if p.number == 1), None)
        if page is None:
            raise PageNotFound(number)
        return self.queryset.filter(self._range_q(page, span)).order_by("pk")

    # -- the index -----------------------------------------------------------

    def summaries(
        self, segment_cuts: Mapping[int, Sequence[str]] | None = None, *, parallel: bool = False
    ) -> list[PageSummary]:
        """Every non-empty page with its row count and newest lastmod.

        Splits pages that grew past ``limit`` first, so the result never names
        a page that would have to be cut short. ``segment_cuts`` (an
        incremental build's record of where each page's segments end, by page
        number) asks for the same figures per segment, in the same scan, for
        every page whose cuts still lie within its range. ``parallel`` lets a
        second connection scan half of the section meanwhile (builds; see
        RangeAggregator).
        """
        cuts = segment_cuts or {}
        pages = self._pages()
        stats = self._aggregate(pages, cuts, parallel)
        overfull = [page for page in pages if stats[page.number][0].count > self.limit]
        if overfull:
            for page in overfull:
                self._split_by_count(page)
            pages = self._pages()
            stats = self._aggregate(pages, cuts, parallel)
        return [
            PageSummary(
                number=page.number,
                count=stats[page.number][0].count,
                lastmod=stats[page.number][0].lastmod,
                segments=stats[page.number][1],
            )
            for page in sorted(pages, key=lambda p: p.number)
            if stats[page.number][0].count > 0
        ]

    def _aggregate(
        self,
        pages: Sequence[SitemapPage],
        segment_cuts: Mapping[int, Sequence[str]],
        parallel: bool = False,
    ) -> dict[int, tuple[RangeStats, tuple[RangeStats, ...] | None]]:
        """Row count and newest lastmod of each page, and of its segments where asked.

        A page with cuts in ``segment_cuts`` that all lie within its range is
        counted segment by segment (see ``summaries``); the others whole. Either
        way one scan of the section: a UNION ALL of per-range aggregates.
        """
        ranges: list[KeyRange] = []
        owners: list[int] = []
        segmented: set[int] = set()
        for page in pages:
            lower = None if page.start_key is None else Bound("gte", page.start_key)
            upper = None if page.end_key is None else Bound("lt", page.end_key)
            cuts = segment_cuts.get(page.number)
            if cuts is not None and self._cuts_within(cuts, page):
                segmented.add(page.number)
                # Segment s holds the keys above cut s-1 and up to cut s.
                lowers = [lower, *(Bound("gt", cut) for cut in cuts)]
                uppers = [*(Bound("lte", cut) for cut in cuts), upper]
                for segment in zip(lowers, uppers, strict=True):
                    ranges.append(segment)
                    owners.append(page.number)
            else:
                ranges.append((lower, upper))
                owners.append(page.number)
        aggregator = RangeAggregator(self.queryset, self.lastmod_field, parallel=parallel)
        by_page: dict[int, list[RangeStats]] = {page.number: [] for page in pages}
        for owner, range_stats in zip(owners, aggregator.stats(ranges), strict=True):
            by_page[owner].append(range_stats)
        result: dict[int, tuple[RangeStats, tuple[RangeStats, ...] | None]] = {}
        for number, parts in by_page.items():
            lastmods = [part.lastmod for part in parts if part.lastmod is not None]
            whole = RangeStats(
                sum(part.count for part in parts),
                max(lastmods) if lastmods else None,
            )
            result[number] = (whole, tuple(parts) if number in segmented else None)
        return result

    def _cuts_within(self, cuts: Sequence[str], page: SitemapPage) -> bool:
        """Whether every cut key lies in the page's range ``[start, end)``.

        A page split since its segments were cut may end below some of them.
        Compared in Python: segment cuts are only asked for with integer keys.
        """
        start, end = self._key(page.start_key), self._key(page.end_key)
        return all(
            (start is None or key >= start) and (end is None or key < end)
            for key in map(self._key, cuts)
        )

    # -- splitting -----------------------------------------------------------

    def _split_by_count(self, page: SitemapPage) -> None:
        """Cut ``page`` every ``limit`` rows; each cut is an index range scan."""
        current: SitemapPage | None = page
        while current is not None:
            keys = (
                self.queryset.filter(self._range_q(current))
                .order_by("pk")
                .values_list("pk", flat=True)[self.limit : self.limit + 1]
            )
            cut = next(iter(keys), None)
            if cut is None:
                return
            current = self.split(current, cut)

    def split(self, page: SitemapPage | int, at_key: Any) -> SitemapPage | None:
        """Split a page at ``at_key``: the rows from that key on become a new last page.

        Returns the new page, or None when another process changed the page
        meanwhile (its own split then stands).
        """
        number = page if isinstance(page, int) else page.number
        key_text = str(at_key)
        for _attempt in range(3):
            try:
                with transaction.atomic(using=self.db):
                    manager = self.model.objects.using(self.db)
                    current = manager.select_for_update().get(section=self.section, number=number)
                    if not isinstance(page, int) and (
                        current.start_key != page.start_key or current.end_key != page.end_key
                    ):
                        return None
                    if current.start_key == key_text:
                        return None  # nothing below the cut: not a split
                    last = manager.filter(section=self.section).aggregate(m=Max("number"))["m"]
                    new_page = manager.create(
                        section=self.section,
                        number=last + 1,
                        start_key=key_text,
                        end_key=current.end_key,
                    )
                    current.end_key = key_text
                    current.save(update_fields=["end_key"])
                    return new_page
            except IntegrityError:
                continue  # a concurrent split took that number; try the next one
        return None
