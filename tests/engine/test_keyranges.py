"""Counts and newest lastmods of many key ranges in one UNION ALL per batch."""

from __future__ import annotations

import datetime
import random
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from django_sitemapkit._engine import keyranges
from django_sitemapkit._engine.keyranges import KeyRange, PageFigures, RangeAggregator
from tests.testapp.models import Article, Document

pytestmark = pytest.mark.django_db

T0 = datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC)


Figures = tuple[int, datetime.datetime | None]  # count, newest


def figures(aggregator: RangeAggregator, ranges: list[KeyRange]) -> list[Figures]:
    pages = list(enumerate(ranges, start=1))
    return [(f.count, f.newest) for f in aggregator.figures(pages, datetime.UTC)]


def expected(rows: list[tuple[Any, datetime.datetime]], key_range: KeyRange) -> Figures:
    """The figures of ``key_range`` ([start, end)), worked out in Python."""
    start, end = key_range
    inside = [
        lastmod
        for key, lastmod in rows
        if (start is None or key >= int(start)) and (end is None or key < int(end))
    ]
    return len(inside), max(inside) if inside else None


def random_ranges(keys: list[int], count: int, seed: int) -> list[KeyRange]:
    rng = random.Random(seed)
    ranges: list[KeyRange] = []
    for _ in range(count):
        low, high = sorted(rng.sample(keys, 2))
        ranges.append((rng.choice([None, str(low)]), rng.choice([None, str(high)])))
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
    ranges += [(None, str(keys[0])), (str(keys[-1] + 1), None)]
    aggregator = RangeAggregator(Article.objects.filter(published=True), "updated_at")
    assert figures(aggregator, ranges) == [expected(articles, r) for r in ranges]


def test_without_lastmod_field_only_counts(articles: list[Any]) -> None:
    keys = sorted(key for key, _ in articles)
    ranges = random_ranges(keys, 20, seed=2)
    aggregator = RangeAggregator(Article.objects.filter(published=True), None)
    assert figures(aggregator, ranges) == [(expected(articles, r)[0], None) for r in ranges]


def test_uuid_keys() -> None:
    Document.objects.bulk_create(
        Document(updated_at=T0 + datetime.timedelta(minutes=i)) for i in range(60)
    )
    # Ranges as the database orders the keys (MariaDB's uuid type has an order of its own).
    ordered = list(Document.objects.order_by("pk").values_list("pk", "updated_at"))
    ranges: list[KeyRange] = [
        (str(ordered[i][0]), str(ordered[i + 10][0])) for i in range(0, 50, 10)
    ]
    ranges.append((str(ordered[50][0]), None))
    stats = figures(RangeAggregator(Document.objects.all(), "updated_at"), ranges)
    newest = [max(lastmod for _, lastmod in ordered[i : i + 10]) for i in range(0, 60, 10)]
    assert stats == [(10, lastmod) for lastmod in newest]


def test_one_statement_per_batch(articles: list[Any], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(keyranges, "UNION_BATCH_SIZE", 40)
    keys = sorted(key for key, _ in articles)
    ranges = random_ranges(keys, 100, seed=5)
    aggregator = RangeAggregator(Article.objects.filter(published=True), "updated_at")
    with CaptureQueriesContext(connection) as queries:
        stats = figures(aggregator, ranges)
    assert len(queries) == 3
    assert all(" UNION ALL " in query["sql"] for query in queries)
    assert stats == [expected(articles, r) for r in ranges]


def test_a_fingerprint_follows_count_newest_and_key_range() -> None:
    utc = datetime.UTC
    base = PageFigures.of(1, 10, T0, utc, key_range=("1", "20"))
    assert base.fingerprint.startswith(f"10|{T0.isoformat()}|")
    assert PageFigures.of(1, 10, T0, utc, key_range=("1", "20")) == base
    others = [
        PageFigures.of(1, 11, T0, utc, key_range=("1", "20")),
        PageFigures.of(1, 10, T0 + datetime.timedelta(seconds=1), utc, key_range=("1", "20")),
        PageFigures.of(1, 10, T0, utc, key_range=("1", "19")),
    ]
    assert len({base.fingerprint, *(f.fingerprint for f in others)}) == 4
    undated = PageFigures.of(1, 10, T0, utc, key_range=("1", "20"), undated=True)
    assert (undated.newest, undated.fingerprint) == (None, base.fingerprint)
