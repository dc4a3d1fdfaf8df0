"""A page's figures, and those of every key-range page of a section in one ``UNION ALL`` of
per-range aggregates (about the cost of one aggregate). Building each part with the ORM would
cost more: each shape of range is compiled once with placeholder values, its SQL repeated with
each range's parameters (built by the ORM where a placeholder cannot be found: same result)."""

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

# SQLite refuses compound statements of more than 500 SELECTs by default.
UNION_BATCH_SIZE = 400

# Replaced by each range's values. Within every integer type's range (the ORM drops an
# out-of-range bound) and unlike anything a queryset filters on.
TAG_PLACEHOLDER = 2_100_000_001
INTEGER_KEY_PLACEHOLDERS = (2_100_000_002, 2_100_000_003)


# [start_key, end_key): keys in their text form, as recorded; None leaves that side open.
KeyRange = tuple[str | None, str | None]


@dataclass(frozen=True)
class PageFigures:
    """What the index and a build know of one page without rendering it: its entries (skipped
    ones included), its index ``<lastmod>`` (the newest of its rows', or of its entries' as
    rendered; None when one has none), and a fingerprint of what its bytes depend on from its
    rows: ``count|newest`` (aware ISO), then a hash of the key range."""

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
        """``undated`` (an entry has no lastmod): the page announces none, as the newest of
        the others would not move when that entry changes; its fingerprint holds ``newest``."""
        stamp = "" if newest is None else to_aware(newest, tz).isoformat()
        fingerprint = f"{count}|{stamp}"
        if key_range != (None, None):
            # A page split since may keep its count and newest, never its range.
            bounds = "\x00".join(str(key) for key in key_range).encode()
            fingerprint += "|" + hashlib.sha256(bounds).hexdigest()[:8]
        return cls(number, count, None if undated else newest, fingerprint)


@dataclass(frozen=True, slots=True)
class RangeStats:
    count: int
    newest: Lastmod | None = None
    undated: bool = False  # a row of the range has a NULL lastmod


@dataclass
class _Shape:
    """The compiled SQL of one kind of range, and where its values go."""

    sql: str
    params: list[Any]
    tag_at: int
    start_at: int | None
    end_at: int | None


class RangeAggregator:
    """Counts and newest values of ``lastmod_field`` of key ranges of ``queryset``."""

    def __init__(
        self, queryset: QuerySet[Any], lastmod_field: str | None, *, nullable: bool = False
    ) -> None:
        self.queryset = queryset.order_by()
        self._connection = connections[queryset.db]
        pk = queryset.model._meta.pk
        assert pk is not None
        self.pk: models.Field[Any, Any] = pk
        # COUNT(*), not COUNT(pk): no NULL test per row.
        self.aggregates: dict[str, Any] = {"_count": Count("*")}
        if lastmod_field is not None:
            self.aggregates["_lastmod"] = Max(lastmod_field)
            if nullable:
                # Counted in the same scan: a page holding an undated row announces no lastmod.
                self.aggregates["_dated"] = Count(lastmod_field)

    def stats(self, ranges: Sequence[KeyRange]) -> list[RangeStats]:
        """The count and newest lastmod of each range, in order."""
        found: dict[int, RangeStats] = {}
        for tag, count, *lastmod in self._rows(ranges) if ranges else ():
            newest = lastmod[0] if lastmod else None
            found[tag] = RangeStats(count, newest, len(lastmod) > 1 and lastmod[1] < count)
        return [found.get(tag, RangeStats(0)) for tag in range(len(ranges))]

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
        """The SQL of ranges with these bounds, or None if it cannot be reused."""
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
        """Two keys (as text) no range will hold, of the key field's type."""
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
        """A key as the ORM passes it to the database in a range lookup."""
        value = self.pk.get_prep_value(self.pk.to_python(text))
        return self.pk.get_db_prep_value(value, self._connection, prepared=True)

    def _statements(
        self, ranges: Sequence[KeyRange], shapes: dict[tuple[bool, bool], _Shape]
    ) -> Iterator[tuple[str, list[Any]]]:
        """UNION ALL statements of one part per range, batched within the database's limits."""
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
    """The rows whose key is in ``[start, end)`` (keys as text; None leaves that side open)."""
    q = Q()
    if start is not None:
        q &= Q(pk__gte=pk.to_python(start))
    if end is not None:
        q &= Q(pk__lt=pk.to_python(end))
    return q


def only_position(params: Sequence[Any], value: Any) -> int | None:
    """Where ``value`` is in ``params``, if it is there exactly once."""
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
