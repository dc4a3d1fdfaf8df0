"""Page figures: all key ranges' in one ``UNION ALL`` of aggregates, each shape compiled once."""

from __future__ import annotations

import datetime
import hashlib
import uuid
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from django.core.exceptions import EmptyResultSet, FullResultSet
from django.db import connections, models
from django.db.models import Count, IntegerField, Max, Q, QuerySet, Value

from django_sitemapkit._engine.internals import compiled_sql, converted_rows
from django_sitemapkit._protocol.w3c import Lastmod, to_aware

UNION_BATCH_SIZE = 400  # SQLite refuses compound statements of over 500 SELECTs by default

# Replaced per range; within every integer type (the ORM drops out-of-range bounds), unlike filters.
TAG_PLACEHOLDER = 2_100_000_001
INTEGER_KEY_PLACEHOLDERS = (2_100_000_002, 2_100_000_003)


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


@dataclass
class _Shape:
    sql: str
    params: list[Any]
    tag_at: int
    start_at: int | None
    end_at: int | None


class RangeAggregator:
    def __init__(
        self, queryset: QuerySet[Any], lastmod_field: str | None, *, nullable: bool = False
    ) -> None:
        self.queryset = queryset.order_by()
        self._connection = connections[queryset.db]
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
        shapes: dict[tuple[bool, bool], _Shape] = {}
        for start, end in ranges:
            kind = (start is not None, end is not None)
            shape = shapes.get(kind) or self._compile(*kind)
            if shape is None:
                return self._rows_by_orm(ranges)
            shapes[kind] = shape
        rows: list[Any] = []
        with self._connection.cursor() as cursor:
            for sql, params in self._statements(ranges, shapes):
                cursor.execute(sql, params)
                rows.extend(cursor.fetchall())
        # Every statement selects the same columns as a part: its compiler converts them.
        return converted_rows(self._part(0, None, None), rows)

    def _part(self, tag: int, start: str | None, end: str | None) -> QuerySet[Any]:
        part: QuerySet[Any] = (
            self.queryset.filter(in_range(self.pk, start, end))
            .annotate(_range=Value(tag, output_field=IntegerField()))
            .values("_range")
            .annotate(**self.aggregates)
            .values_list("_range", *self.aggregates)
        )
        return part

    def _compile(self, has_start: bool, has_end: bool) -> _Shape | None:
        placeholders = self._key_placeholders()
        if placeholders is None:
            return None
        low, high = placeholders
        query = self._part(TAG_PLACEHOLDER, low if has_start else None, high if has_end else None)
        try:
            sql, compiled = compiled_sql(query)
        except (EmptyResultSet, FullResultSet):
            return None
        params = list(compiled)
        tag_at = only_position(params, TAG_PLACEHOLDER)
        start_at = only_position(params, self._prepare(low)) if has_start else None
        end_at = only_position(params, self._prepare(high)) if has_end else None
        if tag_at is None or (has_start and start_at is None) or (has_end and end_at is None):
            return None
        return _Shape(sql, params, tag_at, start_at, end_at)

    def _key_placeholders(self) -> tuple[str, str] | None:
        field = key_field(self.pk)
        low, high = INTEGER_KEY_PLACEHOLDERS
        if isinstance(field, models.IntegerField):
            return str(low), str(high)
        if isinstance(field, models.UUIDField):
            return str(uuid.UUID(int=low)), str(uuid.UUID(int=high))
        if isinstance(field, models.CharField | models.TextField):
            return "\x00sitemapkit-low\x00", "\x00sitemapkit-high\x00"
        return None

    def _prepare(self, text: str) -> Any:
        value = self.pk.get_prep_value(self.pk.to_python(text))
        return self.pk.get_db_prep_value(value, self._connection, prepared=True)

    def _statements(
        self, ranges: Sequence[KeyRange], shapes: dict[tuple[bool, bool], _Shape]
    ) -> Iterator[tuple[str, list[Any]]]:
        batch_size = UNION_BATCH_SIZE
        max_params = self._connection.features.max_query_params
        if max_params:
            per_part = max(len(shape.params) for shape in shapes.values())
            batch_size = max(1, min(batch_size, max_params // per_part))
        for first in range(0, len(ranges), batch_size):
            sqls: list[str] = []
            params: list[Any] = []
            for tag in range(first, min(first + batch_size, len(ranges))):
                start, end = ranges[tag]
                shape = shapes[(start is not None, end is not None)]
                values = list(shape.params)
                values[shape.tag_at] = type(values[shape.tag_at])(tag)
                if start is not None and shape.start_at is not None:
                    values[shape.start_at] = self._prepare(start)
                if end is not None and shape.end_at is not None:
                    values[shape.end_at] = self._prepare(end)
                sqls.append(shape.sql)
                params.extend(values)
            yield " UNION ALL ".join(sqls), params

    def _rows_by_orm(self, ranges: Sequence[KeyRange]) -> Iterator[Sequence[Any]]:
        parts = [self._part(tag, start, end) for tag, (start, end) in enumerate(ranges)]
        for first in range(0, len(parts), UNION_BATCH_SIZE):
            batch = parts[first : first + UNION_BATCH_SIZE]
            yield from batch[0].union(*batch[1:], all=True) if len(batch) > 1 else batch[0]


def in_range(pk: models.Field[Any, Any], start: str | None, end: str | None) -> Q:
    q = Q()
    if start is not None:
        q &= Q(pk__gte=pk.to_python(start))
    if end is not None:
        q &= Q(pk__lt=pk.to_python(end))
    return q


def only_position(params: Sequence[Any], value: Any) -> int | None:
    positions = [
        index
        for index, param in enumerate(params)
        if type(param) is not bool and isinstance(param, type(value)) and param == value
    ]
    return positions[0] if len(positions) == 1 else None


def key_field(pk: models.Field[Any, Any]) -> models.Field[Any, Any]:
    """The field holding a primary key's values: through parent links (multi-table inheritance)."""
    field: Any = pk
    while field.is_relation:
        field = field.target_field
    return field  # type: ignore[no-any-return]
