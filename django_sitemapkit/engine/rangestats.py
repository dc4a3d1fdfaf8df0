"""Row count and newest lastmod of many key ranges of a queryset, in one scan.

The index needs both figures for every page, and an incremental build needs
them for every 1,000-row segment of every page: thousands of ranges at a
million rows. The database answers them all in one pass as a ``UNION ALL`` of
per-range aggregates, which costs about what one aggregate over the whole
section costs. Building each part with the ORM would not: building and
compiling a part takes longer than the database needs to aggregate its
thousand rows. So each shape of range (which bounds it has) is compiled
once, with placeholder values, and its SQL is reused for every range of that
shape with the range's own parameters (the SQL text: rangesql).

PostgreSQL plans each part of a UNION ALL on its own, which for a thousand
small ranges costs more than scanning them; there, many ranges of integer
keys become one LATERAL join instead (see ``rangesql.lateral_join``).

A caller may split the statements between its connection and a second one in
a helper thread (``parallel``), so that two cores scan at once: a build, and
the live index. Never inside a transaction, whose rows another connection
would not see.

When a placeholder cannot be found in the compiled parameters (a key field
that prepares values in some unusual way), the parts are built by the ORM
one by one instead: slower, same result.
"""

from __future__ import annotations

import datetime
import logging
import os
import uuid
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from django.core.exceptions import EmptyResultSet, FullResultSet
from django.db import DatabaseError, connections, models
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.models import Count, IntegerField, Max, QuerySet, Value

from django_sitemapkit.engine.internals import compiled_sql, converted_rows
from django_sitemapkit.engine.rangesql import (
    Bound,
    KeyRange,
    Shape,
    ShapeKind,
    Statements,
    lateral_join,
    only_position,
    shape_kind,
    union_all,
)

__all__ = ["Bound", "KeyRange", "RangeAggregator", "RangeStats", "key_field"]

logger = logging.getLogger("django_sitemapkit")

# SQLite refuses compound statements of more than 500 SELECTs by default.
UNION_BATCH_SIZE = 400
# From this many ranges on, PostgreSQL gets one LATERAL join instead (see there).
LATERAL_JOIN_MIN_RANGES = 100

# Placeholders compiled into a shape's SQL and then replaced by each range's
# values. Within every integer type's range (an out-of-range bound would let
# the ORM drop the condition) and unlike anything a queryset filters on.
TAG_PLACEHOLDER = 2_100_000_001
INTEGER_KEY_PLACEHOLDERS = (2_100_000_002, 2_100_000_003)


@dataclass(frozen=True, slots=True)
class RangeStats:
    count: int
    lastmod: datetime.datetime | datetime.date | None


class RangeAggregator:
    """Counts and newest lastmods of key ranges of ``queryset``."""

    def __init__(
        self, queryset: QuerySet[Any], lastmod_field: str | None, *, parallel: bool = False
    ) -> None:
        self.queryset = queryset.order_by()
        # Split the scan between this thread's connection and a second one.
        self.parallel = parallel
        self.db = queryset.db
        # This thread's, for preparing values: a helper thread executes on its own.
        self._connection = connections[self.db]
        pk = queryset.model._meta.pk
        assert pk is not None
        self.pk: models.Field[Any, Any] = pk
        # COUNT(*), not COUNT(pk): no NULL test per row.
        self.aggregates: dict[str, Any] = {"_count": Count("*")}
        if lastmod_field is not None:
            self.aggregates["_lastmod"] = Max(lastmod_field)

    def stats(self, ranges: Sequence[KeyRange]) -> list[RangeStats]:
        """The count and newest lastmod of each range, in order."""
        if not ranges:
            return []
        found: dict[int, RangeStats] = {}
        for row in self._rows(ranges):
            found[row[0]] = RangeStats(row[1], row[2] if len(row) > 2 else None)
        return [found.get(tag, RangeStats(0, None)) for tag in range(len(ranges))]

    def _rows(self, ranges: Sequence[KeyRange]) -> Iterator[Sequence[Any]]:
        statements = self._lateral_join(ranges) or self._union_all(ranges)
        if statements is None:
            return self._rows_by_orm(ranges)
        rows = self._execute_split(statements, len(ranges))
        # Every statement selects the same columns as a part: its compiler converts them.
        return converted_rows(self._part(0, None, None), rows)

    # -- one part per range ---------------------------------------------------

    def _part(self, tag: int, lower: Bound | None, upper: Bound | None) -> QuerySet[Any]:
        filters = {}
        for bound in (lower, upper):
            if bound is not None:
                filters[f"pk__{bound.lookup}"] = self._key(bound.key)
        part: QuerySet[Any] = (
            self.queryset.filter(**filters)
            .annotate(_range=Value(tag, output_field=IntegerField()))
            .values("_range")
            .annotate(**self.aggregates)
            .values_list("_range", *self.aggregates)
        )
        return part

    def _key(self, text: str) -> Any:
        return self.pk.to_python(text)

    def _compile(self, lower: Bound | None, upper: Bound | None) -> Shape | None:
        """The SQL of ranges shaped like ``(lower, upper)``, or None if it cannot be reused."""
        placeholders = self._key_placeholders()
        if placeholders is None:
            return None
        low_key, high_key = placeholders
        query = self._part(
            TAG_PLACEHOLDER,
            None if lower is None else Bound(lower.lookup, low_key),
            None if upper is None else Bound(upper.lookup, high_key),
        )
        try:
            sql, compiled = compiled_sql(query)
        except (EmptyResultSet, FullResultSet):
            return None
        params = list(compiled)
        tag_at = only_position(params, TAG_PLACEHOLDER)
        lower_at = None if lower is None else only_position(params, self._prepare(low_key))
        upper_at = None if upper is None else only_position(params, self._prepare(high_key))
        if tag_at is None or (lower and lower_at is None) or (upper and upper_at is None):
            return None
        return Shape(sql, params, tag_at, lower_at, upper_at)

    def _key_field(self) -> models.Field[Any, Any]:
        return key_field(self.pk)

    def _key_placeholders(self) -> tuple[str, str] | None:
        """Two keys (as text) no range will hold, of the key field's type."""
        field = self._key_field()
        if isinstance(field, models.IntegerField):
            return str(INTEGER_KEY_PLACEHOLDERS[0]), str(INTEGER_KEY_PLACEHOLDERS[1])
        if isinstance(field, models.UUIDField):
            return str(uuid.UUID(int=INTEGER_KEY_PLACEHOLDERS[0])), str(
                uuid.UUID(int=INTEGER_KEY_PLACEHOLDERS[1])
            )
        if isinstance(field, models.CharField | models.TextField):
            return "\x00sitemapkit-low\x00", "\x00sitemapkit-high\x00"
        return None

    def _prepare(self, text: str) -> Any:
        """A key as the ORM passes it to the database in a range lookup."""
        value = self.pk.get_prep_value(self._key(text))
        return self.pk.get_db_prep_value(value, self._connection, prepared=True)

    # -- statements -----------------------------------------------------------

    def _union_all(self, ranges: Sequence[KeyRange]) -> Statements | None:
        """UNION ALL statements of one part per range, batched; None if a shape will not compile."""
        shapes: dict[ShapeKind, Shape] = {}
        for lower, upper in ranges:
            kind = shape_kind((lower, upper))
            if kind not in shapes:
                shape = self._compile(lower, upper)
                if shape is None:
                    return None
                shapes[kind] = shape
        per_part = max(len(shape.params) for shape in shapes.values())
        batch_size = UNION_BATCH_SIZE
        max_params = self._connection.features.max_query_params
        if max_params:
            batch_size = max(1, min(batch_size, max_params // per_part))
        return union_all(
            ranges,
            shapes,
            batch_size=batch_size,
            prepare=self._prepare,
            # PostgreSQL runs the parts of a UNION ALL with parallel workers itself.
            split=self._connection.vendor != "postgresql",
        )

    def _lateral_join(self, ranges: Sequence[KeyRange]) -> Statements | None:
        """On PostgreSQL with integer keys and many ranges: one LATERAL join
        (see ``rangesql.lateral_join``). A few large ranges -- the index's pages --
        are left to the UNION ALL, whose parts PostgreSQL runs with parallel workers."""
        if (
            self._connection.vendor != "postgresql"
            or len(ranges) < LATERAL_JOIN_MIN_RANGES
            or not isinstance(self._key_field(), models.IntegerField)
        ):
            return None
        # Only the lookups matter here: _compile puts placeholders for the keys.
        shape = self._compile(Bound("gte", "0"), Bound("lte", "0"))
        if shape is None:
            return None
        return lateral_join(ranges, shape)

    # -- execution ------------------------------------------------------------

    def _execute_split(self, statements: Statements, count: int) -> list[Any]:
        """Run the statements for ranges ``0..count``: half of them on a second
        connection in a helper thread where that is allowed and worth it."""
        if not (
            self.parallel
            and statements.split
            and count > 1
            and second_connection_sees_the_same(self._connection)
        ):
            return self._execute(statements.make(0, count))
        half = (count + 1) // 2
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="sitemapkit-scan") as pool:
            second = pool.submit(
                self._execute_on_own_connection, list(statements.make(half, count))
            )
            rows = self._execute(statements.make(0, half))
            try:
                rows += second.result()
            except DatabaseError as error:
                # A second connection may be refused (a server's or a pooler's connection
                # limit): the scan is only slower on one.
                logger.warning("Scanning on one connection: the second one failed (%s).", error)
                rows += self._execute(statements.make(half, count))
        return rows

    def _execute(self, statements: Iterable[tuple[str, list[Any]]]) -> list[Any]:
        rows: list[Any] = []
        with connections[self.db].cursor() as cursor:
            for sql, params in statements:
                cursor.execute(sql, params)
                rows.extend(cursor.fetchall())
        return rows

    def _execute_on_own_connection(self, statements: Iterable[tuple[str, list[Any]]]) -> list[Any]:
        """``_execute`` in a helper thread, whose connection is its own and closed after."""
        try:
            return self._execute(statements)
        finally:
            connections[self.db].close()

    # -- the slow way ---------------------------------------------------------

    def _rows_by_orm(self, ranges: Sequence[KeyRange]) -> Iterator[Sequence[Any]]:
        parts = [self._part(tag, lower, upper) for tag, (lower, upper) in enumerate(ranges)]
        for start in range(0, len(parts), UNION_BATCH_SIZE):
            batch = parts[start : start + UNION_BATCH_SIZE]
            yield from batch[0].union(*batch[1:], all=True) if len(batch) > 1 else batch[0]


def second_connection_sees_the_same(connection: BaseDatabaseWrapper) -> bool:
    """Whether another connection would read the same rows as ``connection``, and another
    core could do its part.

    Not inside a transaction (its writes are its own; so also not without
    autocommit), and not for a private in-memory SQLite database (a new
    connection would open an empty one).
    """
    if connection.in_atomic_block or not connection.get_autocommit() or _cpus() < 2:
        return False
    if connection.vendor == "sqlite":
        name = str(connection.settings_dict["NAME"])
        return not (name == ":memory:" or ("mode=memory" in name and "cache=shared" not in name))
    return True


def _cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def key_field(pk: models.Field[Any, Any]) -> models.Field[Any, Any]:
    """The field holding a primary key's values: through parent links (multi-table inheritance)."""
    field: Any = pk
    while field.is_relation:
        field = field.target_field
    return field  # type: ignore[no-any-return]
