"""The SQL text of a range scan: one compiled part per shape of range, reused for every range.

A part (see rangestats) is compiled once per shape of range with placeholder
values; here its SQL is repeated for each range with that range's own
parameters put where the placeholders were, as ``UNION ALL`` batches, or on
PostgreSQL as one ``LATERAL`` join over arrays of bounds. Nothing here
touches the ORM or a connection.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, NamedTuple

__all__ = [
    "Bound",
    "KeyRange",
    "Shape",
    "Statements",
    "inclusive_high",
    "inclusive_low",
    "lateral_join",
    "only_position",
    "shape_kind",
    "substitute",
    "union_all",
]

BIGINT_MIN, BIGINT_MAX = -(2**63), 2**63 - 1


class Bound(NamedTuple):
    """One side of a key range: a lookup (``gt``, ``gte``, ``lt``, ``lte``) and a key as text."""

    lookup: Literal["gt", "gte", "lt", "lte"]
    key: str


# (lower bound, upper bound); None leaves that side open.
KeyRange = tuple[Bound | None, Bound | None]

# Which bounds a range has, and their lookups: ranges of one kind share their SQL.
ShapeKind = tuple[str | None, str | None]

SqlAndParams = tuple[str, list[Any]]


@dataclass
class Shape:
    """The compiled SQL of one kind of range, and where its values go."""

    sql: str
    params: list[Any]
    tag_at: int
    lower_at: int | None
    upper_at: int | None


@dataclass(frozen=True)
class Statements:
    """SQL statements for any slice ``[start, stop)`` of the ranges, with the
    ranges' positions as tags."""

    make: Callable[[int, int], Iterator[SqlAndParams]]
    # Whether a second connection running half of them would help: not
    # where the database already runs each statement with parallel workers.
    split: bool = True


def shape_kind(key_range: KeyRange) -> ShapeKind:
    lower, upper = key_range
    return (None if lower is None else lower.lookup, None if upper is None else upper.lookup)


def union_all(
    ranges: Sequence[KeyRange],
    shapes: Mapping[ShapeKind, Shape],
    *,
    batch_size: int,
    prepare: Callable[[str], Any],
    split: bool,
) -> Statements:
    """``UNION ALL`` statements of at most ``batch_size`` parts, one per range, each
    range's tag and keys (passed through ``prepare``) in place of its shape's placeholders."""

    def statements(start: int, stop: int) -> Iterator[SqlAndParams]:
        for first in range(start, stop, batch_size):
            sqls: list[str] = []
            params: list[Any] = []
            for tag in range(first, min(first + batch_size, stop)):
                lower, upper = ranges[tag]
                shape = shapes[shape_kind(ranges[tag])]
                values = list(shape.params)
                values[shape.tag_at] = type(values[shape.tag_at])(tag)
                if lower is not None and shape.lower_at is not None:
                    values[shape.lower_at] = prepare(lower.key)
                if upper is not None and shape.upper_at is not None:
                    values[shape.upper_at] = prepare(upper.key)
                sqls.append(shape.sql)
                params.extend(values)
            yield " UNION ALL ".join(sqls), params

    return Statements(statements, split=split)


def lateral_join(ranges: Sequence[KeyRange], shape: Shape) -> Statements:
    """The ranges (of integer keys) as rows of arrays, each joined to the aggregate of
    its keys: one statement for PostgreSQL.

    PostgreSQL plans every part of a UNION ALL on its own, which for a small
    range costs more than aggregating its rows. A LATERAL join is planned
    once and runs one index range scan per range. ``shape`` is the part of a
    ``gte``/``lte`` range: every range becomes ``lo <= key <= hi``.
    """
    assert shape.lower_at is not None
    assert shape.upper_at is not None
    columns = {shape.tag_at: "r.tag", shape.lower_at: "r.lo", shape.upper_at: "r.hi"}
    sql = (
        "SELECT s.* FROM unnest(%s::integer[], %s::bigint[], %s::bigint[]) AS r(tag, lo, hi) "
        f"CROSS JOIN LATERAL ({substitute(shape.sql, columns)}) AS s"
    )
    rest = [value for at, value in enumerate(shape.params) if at not in columns]

    def statements(start: int, stop: int) -> Iterator[SqlAndParams]:
        tags = list(range(start, stop))
        lows = [inclusive_low(ranges[tag][0]) for tag in tags]
        highs = [inclusive_high(ranges[tag][1]) for tag in tags]
        yield sql, [tags, lows, highs, *rest]

    return Statements(statements)


def inclusive_low(bound: Bound | None) -> int:
    """The smallest integer key inside ``bound`` (a lower one)."""
    if bound is None:
        return BIGINT_MIN
    return int(bound.key) + (bound.lookup == "gt")


def inclusive_high(bound: Bound | None) -> int:
    """The largest integer key inside ``bound`` (an upper one)."""
    if bound is None:
        return BIGINT_MAX
    return int(bound.key) - (bound.lookup == "lt")


def substitute(sql: str, replacements: Mapping[int, str]) -> str:
    """``sql`` with its placeholders number ``at`` (from 0) replaced by ``replacements[at]``."""
    pieces = re.split(r"(%%|%s)", sql)
    position = 0
    for index, piece in enumerate(pieces):
        if piece == "%s":
            pieces[index] = replacements.get(position, piece)
            position += 1
    return "".join(pieces)


def only_position(params: Sequence[Any], value: Any) -> int | None:
    """Where ``value`` is in ``params``, if it is there exactly once."""
    positions = [
        index
        for index, param in enumerate(params)
        if type(param) is not bool and isinstance(param, type(value)) and param == value
    ]
    return positions[0] if len(positions) == 1 else None
