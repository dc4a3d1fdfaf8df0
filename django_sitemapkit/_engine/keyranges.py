"""Page figures: every key range's count and newest lastmod, in one ``UNION ALL`` of aggregates."""

from __future__ import annotations

import datetime
import hashlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from django.core.exceptions import EmptyResultSet, FullResultSet
from django.db import connections, models
from django.db.models import Count, IntegerField, Max, Q, QuerySet, Value

from django_sitemapkit._engine.internals import compiled_sql
from django_sitemapkit._protocol.w3c import Lastmod, to_aware

UNION_BATCH_SIZE = 400  # SQLite refuses compound statements of over 500 SELECTs by default


KeyRange = tuple[str | None, str | None]  # [start, end): keys as text, as recorded; None: open


@dataclass(frozen=True)
class PageFigures:
    """One page known without rendering: its entries (skipped ones included), its index lastmod
    (None if an entry has none), a fingerprint of its rows: ``count|newest``, a key range hash."""

    number: int
    count: int
    newest: Lastmod | None
    fingerprint: str

    @classmethod
    def of(
        cls,
        number: int,
        count: int,
        newest: Lastmod | None,
        tz: datetime.tzinfo,
        *,
        key_range: KeyRange = (None, None),
        undated: bool = False,
    ) -> PageFigures:
        """``undated``: announce none (blind to that entry's changes); fingerprint ``newest``."""
        stamp = "" if newest is None else to_aware(newest, tz).isoformat()
        fingerprint = f"{count}|{stamp}"
        if key_range != (None, None):  # a split page may keep count and newest, never its range
            bounds = "\x00".join(str(key) for key in key_range).encode()
            fingerprint += "|" + hashlib.sha256(bounds).hexdigest()[:8]
        return cls(number, count, None if undated else newest, fingerprint)


class RangeAggregator:
    def __init__(
        self, queryset: QuerySet[Any], lastmod_field: str | None, *, nullable: bool = False
    ) -> None:
        self.queryset = queryset.order_by()
        pk = queryset.model._meta.pk
        assert pk is not None
        self.pk: models.Field[Any, Any] = pk
        self.aggregates: dict[str, Any] = {"_count": Count("*")}  # not COUNT(pk): no NULL test
        if lastmod_field is not None:
            self.aggregates["_lastmod"] = Max(lastmod_field)
            if nullable:  # same scan: a page holding an undated row announces no lastmod
                self.aggregates["_dated"] = Count(lastmod_field)

    def figures(
        self, pages: Sequence[tuple[int, KeyRange]], tz: datetime.tzinfo
    ) -> list[PageFigures]:
        """The figures of each ``(number, key range)``, in order; an empty range counts 0."""
        ranges = [key_range for _number, key_range in pages]
        found = {tag: values for tag, *values in self._rows(ranges)} if ranges else {}
        figures = []
        for tag, (number, key_range) in enumerate(pages):
            count, *lastmod = found.get(tag, (0,))
            figures.append(
                PageFigures.of(
                    number,
                    count,
                    lastmod[0] if lastmod else None,
                    tz,
                    key_range=key_range,
                    undated=len(lastmod) > 1 and lastmod[1] < count,  # a NULL lastmod in range
                )
            )
        return figures

    def _rows(self, ranges: Sequence[KeyRange]) -> Iterator[Sequence[Any]]:
        """Every range's aggregates tagged with its position, a ``UNION ALL`` per batch."""
        parts = [self._part(tag, start, end) for tag, (start, end) in enumerate(ranges)]
        size = self._batch_size(parts[0])
        for first in range(0, len(parts), size):
            batch = parts[first : first + size]
            yield from batch[0].union(*batch[1:], all=True) if len(batch) > 1 else batch[0]

    def _part(self, tag: int, start: str | None, end: str | None) -> QuerySet[Any]:
        part: QuerySet[Any] = (
            self.queryset.filter(in_range(self.pk, start, end))
            .annotate(_range=Value(tag, output_field=IntegerField()))
            .values("_range")
            .annotate(**self.aggregates)
            .values_list("_range", *self.aggregates)
        )
        return part

    def _batch_size(self, part: QuerySet[Any]) -> int:
        """Parts per statement, within the database's parameters per query."""
        max_params = connections[self.queryset.db].features.max_query_params
        try:
            per_part = len(compiled_sql(part)[1])
        except (EmptyResultSet, FullResultSet):
            per_part = 0
        if not (max_params and per_part):
            return UNION_BATCH_SIZE
        return max(1, min(UNION_BATCH_SIZE, max_params // per_part))


def in_range(pk: models.Field[Any, Any], start: str | None, end: str | None) -> Q:
    q = Q()
    if start is not None:
        q &= Q(pk__gte=pk.to_python(start))
    if end is not None:
        q &= Q(pk__lt=pk.to_python(end))
    return q
