"""Counts and newest lastmods of many key ranges in one UNION ALL per batch."""

from __future__ import annotations

import datetime
import logging
import random
import threading
from typing import Any

import pytest
from django.db import OperationalError, connection, connections
from django.test.utils import CaptureQueriesContext

from django_sitemapkit.engine import rangestats
from django_sitemapkit.engine.rangestats import Bound, KeyRange, RangeAggregator, RangeStats
from tests.testapp.models import Article, Document

pytestmark = pytest.mark.django_db

T0 = datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC)


def expected(rows: list[tuple[Any, datetime.datetime]], key_range: KeyRange) -> RangeStats:
    """The figures of ``key_range``, worked out in Python."""
    operators = {
        "gt": lambda a, b: a > b,
        "gte": lambda a, b: a >= b,
        "lt": lambda a, b: a < b,
        "lte": lambda a, b: a <= b,
    }
    inside = [
        lastmod
        for key, lastmod in rows
        if all(
            bound is None or operators[bound.lookup](key, type(key)(bound.key))
            for bound in key_range
        )
    ]
    return RangeStats(len(inside), max(inside) if inside else None)


def random_ranges(keys: list[int], count: int, seed: int) -> list[KeyRange]:
    rng = random.Random(seed)
    ranges: list[KeyRange] = []
    for _ in range(count):
        low, high = sorted(rng.sample(keys, 2))
        lower = rng.choice([None, Bound("gt", str(low)), Bound("gte", str(low))])
        upper = rng.choice([None, Bound("lt", str(high)), Bound("lte", str(high))])
        ranges.append((lower, upper))
    return ranges


@pytest.fixture
def articles() -> list[tuple[int, datetime.datetime]]:
    """300 articles, every third unpublished, lastmods in no particular order."""
    rng = random.Random(7)
    Article.objects.bulk_create(
        Article(
            slug=f"a{i}",
            published=i % 3 != 0,
            updated_at=T0 + datetime.timedelta(seconds=rng.randrange(10**6), microseconds=i),
        )
        for i in range(300)
    )
    return list(Article.objects.filter(published=True).values_list("pk", "updated_at"))


def test_every_shape_of_range_matches_python(articles: list[Any]) -> None:
    keys = sorted(key for key, _ in articles)
    ranges = random_ranges(keys, 200, seed=1)
    # Empty ones too: a range below every key, and one that holds no published row.
    ranges += [(None, Bound("lt", str(keys[0]))), (Bound("gt", str(keys[-1])), None)]
    aggregator = RangeAggregator(Article.objects.filter(published=True), "updated_at")
    assert aggregator.stats(ranges) == [expected(articles, r) for r in ranges]


def test_without_lastmod_field_only_counts(articles: list[Any]) -> None:
    keys = sorted(key for key, _ in articles)
    ranges = random_ranges(keys, 20, seed=2)
    aggregator = RangeAggregator(Article.objects.filter(published=True), None)
    assert aggregator.stats(ranges) == [
        RangeStats(expected(articles, r).count, None) for r in ranges
    ]


def test_the_compiled_sql_is_reused_on_this_database(
    articles: list[Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_orm_parts(*args: Any) -> Any:
        raise AssertionError("fell back to one ORM part per range")

    monkeypatch.setattr(RangeAggregator, "_rows_by_orm", no_orm_parts)
    keys = sorted(key for key, _ in articles)
    ranges = random_ranges(keys, 50, seed=3)
    aggregator = RangeAggregator(Article.objects.filter(published=True), "updated_at")
    assert aggregator.stats(ranges) == [expected(articles, r) for r in ranges]


def test_uuid_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    Document.objects.bulk_create(
        Document(updated_at=T0 + datetime.timedelta(minutes=i)) for i in range(60)
    )
    # Ranges as the database orders the keys (MariaDB's uuid type has an order of its own).
    ordered = list(Document.objects.order_by("pk").values_list("pk", "updated_at"))
    ranges: list[KeyRange] = [
        (Bound("gte", str(ordered[i][0])), Bound("lt", str(ordered[i + 10][0])))
        for i in range(0, 50, 10)
    ]
    ranges.append((Bound("gt", str(ordered[49][0])), None))
    monkeypatch.setattr(RangeAggregator, "_rows_by_orm", None)  # must not be needed
    stats = RangeAggregator(Document.objects.all(), "updated_at").stats(ranges)
    newest = [max(lastmod for _, lastmod in ordered[i : i + 10]) for i in range(0, 60, 10)]
    assert stats == [RangeStats(10, lastmod) for lastmod in newest]


def test_a_key_field_whose_values_cannot_be_placed_falls_back_to_the_orm(
    articles: list[Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(RangeAggregator, "_key_placeholders", lambda self: None)
    keys = sorted(key for key, _ in articles)
    ranges = random_ranges(keys, 30, seed=4)
    aggregator = RangeAggregator(Article.objects.filter(published=True), "updated_at")
    assert aggregator.stats(ranges) == [expected(articles, r) for r in ranges]


def test_one_statement_per_batch(articles: list[Any], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rangestats, "UNION_BATCH_SIZE", 40)
    monkeypatch.setattr(rangestats, "LATERAL_JOIN_MIN_RANGES", 10**6)
    keys = sorted(key for key, _ in articles)
    ranges = random_ranges(keys, 100, seed=5)
    aggregator = RangeAggregator(Article.objects.filter(published=True), "updated_at")
    with CaptureQueriesContext(connection) as queries:
        stats = aggregator.stats(ranges)
    assert len(queries) == 3
    assert all(" UNION ALL " in query["sql"] for query in queries)
    assert stats == [expected(articles, r) for r in ranges]


@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's plan for many ranges")
def test_many_ranges_are_one_lateral_join_on_postgresql(articles: list[Any]) -> None:
    keys = sorted(key for key, _ in articles)
    ranges = random_ranges(keys, 150, seed=10)
    ranges += [(None, None), (None, Bound("lt", str(keys[0])))]
    aggregator = RangeAggregator(Article.objects.filter(published=True), "updated_at")
    with CaptureQueriesContext(connection) as queries:
        stats = aggregator.stats(ranges)
    assert len(queries) == 1
    assert "CROSS JOIN LATERAL" in queries[0]["sql"]
    assert stats == [expected(articles, r) for r in ranges]


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    "lateral",
    [
        False,
        pytest.param(
            True,
            marks=pytest.mark.skipif(
                connection.vendor != "postgresql", reason="LATERAL joins are for PostgreSQL"
            ),
        ),
    ],
)
def test_parallel_scan_splits_the_statements_between_two_connections(
    monkeypatch: pytest.MonkeyPatch, second_connection: list[str], lateral: bool
) -> None:
    lateral_from = 100 if lateral else 10**6
    rng = random.Random(9)
    Article.objects.bulk_create(
        Article(
            slug=f"a{i}",
            published=i % 4 != 0,
            updated_at=T0 + datetime.timedelta(seconds=rng.randrange(10**6)),
        )
        for i in range(400)
    )
    rows = list(Article.objects.filter(published=True).values_list("pk", "updated_at"))
    keys = sorted(key for key, _ in rows)
    ranges = random_ranges(keys, 101, seed=6)
    helper_statements = second_connection
    monkeypatch.setattr(rangestats, "UNION_BATCH_SIZE", 30)
    monkeypatch.setattr(rangestats, "LATERAL_JOIN_MIN_RANGES", lateral_from)
    aggregator = RangeAggregator(
        Article.objects.filter(published=True), "updated_at", parallel=True
    )
    with CaptureQueriesContext(connection) as own:
        stats = aggregator.stats(ranges)
    assert stats == [expected(rows, r) for r in ranges]
    if lateral:
        # One statement each: ranges 0-50 here, 51-100 in the helper.
        assert len(own) == 1
        assert len(helper_statements) == 1
        assert "CROSS JOIN LATERAL" in helper_statements[0]
    elif connection.vendor == "postgresql":
        # PostgreSQL runs a UNION ALL's parts with parallel workers of its own.
        assert len(own) == 4
        assert helper_statements == []
    else:
        # Statements of at most 30 ranges: 30 and 21 here, 30 and 20 in the helper.
        assert len(own) == 2
        assert [sql.count(" UNION ALL ") + 1 for sql in helper_statements] == [30, 20]


def test_no_second_connection_inside_a_transaction(
    articles: list[Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    # pytest-django runs this test in a transaction: rows it wrote are its own.
    monkeypatch.setattr(RangeAggregator, "_execute_on_own_connection", None)
    monkeypatch.setattr(rangestats, "_cpus", lambda: 2)
    keys = sorted(key for key, _ in articles)
    ranges = random_ranges(keys, 30, seed=8)
    aggregator = RangeAggregator(
        Article.objects.filter(published=True), "updated_at", parallel=True
    )
    assert aggregator.stats(ranges) == [expected(articles, r) for r in ranges]


@pytest.mark.django_db(transaction=True)
def test_a_refused_second_connection_scans_on_one(
    monkeypatch: pytest.MonkeyPatch, second_connection: list[str], caplog: Any
) -> None:
    Article.objects.bulk_create(
        Article(slug=f"a{i}", updated_at=T0 + datetime.timedelta(hours=i)) for i in range(60)
    )
    rows = list(Article.objects.values_list("pk", "updated_at"))
    ranges = random_ranges(sorted(key for key, _ in rows), 20, seed=3)
    wrapper = type(connections["default"])
    connect = wrapper.get_new_connection

    def refuse_in_the_helper(self: Any, params: Any) -> Any:
        if threading.current_thread().name.startswith("sitemapkit-scan"):
            raise OperationalError("too many connections")
        return connect(self, params)

    monkeypatch.setattr(wrapper, "get_new_connection", refuse_in_the_helper)
    # On PostgreSQL too a split scan: one LATERAL join, halved.
    monkeypatch.setattr(rangestats, "LATERAL_JOIN_MIN_RANGES", 5)
    aggregator = RangeAggregator(Article.objects.all(), "updated_at", parallel=True)
    with caplog.at_level(logging.WARNING, logger="django_sitemapkit"):
        stats = aggregator.stats(ranges)
    assert stats == [expected(rows, r) for r in ranges]
    assert second_connection  # the helper tried its half
    assert "the second one failed (too many connections)" in caplog.text


@pytest.mark.parametrize(
    ("vendor", "name", "atomic", "autocommit", "cpus", "allowed"),
    [
        ("postgresql", "test", False, True, 2, True),
        ("postgresql", "test", True, True, 2, False),
        ("postgresql", "test", False, False, 2, False),
        ("postgresql", "test", False, True, 1, False),
        ("sqlite", "/srv/site.sqlite3", False, True, 2, True),
        ("sqlite", ":memory:", False, True, 2, False),
        ("sqlite", "file:db?mode=memory", False, True, 2, False),
        ("sqlite", "file:memorydb_default?mode=memory&cache=shared", False, True, 2, True),
    ],
)
def test_when_a_second_connection_reads_the_same_rows(
    monkeypatch: pytest.MonkeyPatch,
    vendor: str,
    name: str,
    atomic: bool,
    autocommit: bool,
    cpus: int,
    allowed: bool,
) -> None:
    class Connection:
        in_atomic_block = atomic
        settings_dict = {"NAME": name}

        def get_autocommit(self) -> bool:
            return autocommit

    Connection.vendor = vendor  # type: ignore[attr-defined]
    monkeypatch.setattr(rangestats, "_cpus", lambda: cpus)
    assert rangestats.second_connection_sees_the_same(Connection()) is allowed  # type: ignore[arg-type]
