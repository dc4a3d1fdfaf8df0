"""The SQL text of a range scan: a compiled part's placeholders replaced per range."""

from __future__ import annotations

from typing import Any

import pytest

from django_sitemapkit.engine.rangesql import (
    BIGINT_MAX,
    BIGINT_MIN,
    Bound,
    KeyRange,
    Shape,
    inclusive_high,
    inclusive_low,
    lateral_join,
    only_position,
    shape_kind,
    substitute,
    union_all,
)

TAG, LOW, HIGH = 2_100_000_001, 2_100_000_002, 2_100_000_003

# A part as rangestats compiles it: the tag, then the bounds, plus a value of the queryset's own.
BOTH = Shape(
    sql="SELECT %s, COUNT(*) FROM t WHERE (p = %s AND k >= %s AND k <= %s) GROUP BY 1",
    params=[TAG, True, LOW, HIGH],
    tag_at=0,
    lower_at=2,
    upper_at=3,
)
LOWER_ONLY = Shape(
    sql="SELECT %s, COUNT(*) FROM t WHERE (p = %s AND k > %s) GROUP BY 1",
    params=[TAG, True, LOW],
    tag_at=0,
    lower_at=2,
    upper_at=None,
)


def test_substitute_replaces_placeholders_by_position() -> None:
    sql = "SELECT %s FROM t WHERE a LIKE '%%x' AND b = %s AND c = %s"
    assert substitute(sql, {0: "r.tag", 2: "r.hi"}) == (
        "SELECT r.tag FROM t WHERE a LIKE '%%x' AND b = %s AND c = r.hi"
    )


def test_substitute_without_replacements_changes_nothing() -> None:
    sql = "SELECT %s, '%%' FROM t"
    assert substitute(sql, {}) == sql


@pytest.mark.parametrize(
    ("params", "value", "expected"),
    [
        ([1, TAG, "x"], TAG, 1),
        ([TAG, TAG], TAG, None),
        ([1, 2], TAG, None),
        # True == 1, but a boolean is never the placeholder.
        ([True, 1], 1, 1),
        # Same text, other type.
        (["2100000001", TAG], TAG, 1),
        (["k", "k"], "k", None),
    ],
)
def test_only_position(params: list[Any], value: Any, expected: int | None) -> None:
    assert only_position(params, value) == expected


@pytest.mark.parametrize(
    ("bound", "expected"), [(None, BIGINT_MIN), (Bound("gt", "10"), 11), (Bound("gte", "10"), 10)]
)
def test_inclusive_low(bound: Bound | None, expected: int) -> None:
    assert inclusive_low(bound) == expected


@pytest.mark.parametrize(
    ("bound", "expected"), [(None, BIGINT_MAX), (Bound("lt", "10"), 9), (Bound("lte", "10"), 10)]
)
def test_inclusive_high(bound: Bound | None, expected: int) -> None:
    assert inclusive_high(bound) == expected


def test_shape_kind() -> None:
    assert shape_kind((None, None)) == (None, None)
    assert shape_kind((Bound("gt", "1"), Bound("lte", "9"))) == ("gt", "lte")
    assert shape_kind((None, Bound("lt", "9"))) == (None, "lt")


RANGES: list[KeyRange] = [
    (Bound("gte", "1"), Bound("lte", "5")),
    (Bound("gt", "5"), None),
    (Bound("gte", "6"), Bound("lte", "9")),
    (Bound("gt", "9"), None),
    (Bound("gte", "10"), Bound("lte", "12")),
]
SHAPES = {("gte", "lte"): BOTH, ("gt", None): LOWER_ONLY}


def test_union_all_batches_the_parts_with_each_range_s_values() -> None:
    statements = union_all(
        RANGES, SHAPES, batch_size=2, prepare=lambda key: int(key) * 100, split=True
    )
    assert statements.split
    made = list(statements.make(0, len(RANGES)))
    assert [sql.count(" UNION ALL ") + 1 for sql, _ in made] == [2, 2, 1]
    assert made[0] == (
        f"{BOTH.sql} UNION ALL {LOWER_ONLY.sql}",
        [0, True, 100, 500, 1, True, 500],
    )
    assert made[2] == (BOTH.sql, [4, True, 1000, 1200])
    # The shapes' own parameters are left as they were.
    assert BOTH.params == [TAG, True, LOW, HIGH]


def test_union_all_makes_any_slice_with_the_ranges_positions_as_tags() -> None:
    statements = union_all(RANGES, SHAPES, batch_size=10, prepare=int, split=False)
    assert not statements.split
    [(sql, params)] = statements.make(3, 5)
    assert sql == f"{LOWER_ONLY.sql} UNION ALL {BOTH.sql}"
    assert params == [3, True, 9, 4, True, 10, 12]


def test_the_tag_keeps_the_type_of_its_placeholder() -> None:
    class Tag(int):
        pass

    shape = Shape("SELECT %s", [Tag(TAG)], tag_at=0, lower_at=None, upper_at=None)
    [(_, [tag])] = union_all(
        [(None, None)], {(None, None): shape}, batch_size=1, prepare=int, split=True
    ).make(0, 1)
    assert type(tag) is Tag
    assert tag == 0


def test_lateral_join_is_one_statement_of_arrays() -> None:
    statements = lateral_join(RANGES, BOTH)
    [(sql, params)] = statements.make(1, 4)
    assert sql == (
        "SELECT s.* FROM unnest(%s::integer[], %s::bigint[], %s::bigint[]) AS r(tag, lo, hi) "
        "CROSS JOIN LATERAL (SELECT r.tag, COUNT(*) FROM t WHERE "
        "(p = %s AND k >= r.lo AND k <= r.hi) GROUP BY 1) AS s"
    )
    assert params == [[1, 2, 3], [6, 6, 10], [BIGINT_MAX, 9, BIGINT_MAX], True]
    assert statements.split
