"""The figures of pages and of their segments, all counted or the known ones kept."""

from __future__ import annotations

import datetime
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from django_sitemapkit.engine.pagefigures import KnownSegments, PageFigures
from django_sitemapkit.engine.pagetable import Page
from django_sitemapkit.engine.rangestats import RangeStats
from tests.testapp.models import Article

pytestmark = pytest.mark.django_db

T0 = datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC)


@pytest.fixture
def keys() -> list[int]:
    """30 articles, their lastmods rising with their keys; the keys in order."""
    Article.objects.bulk_create(
        Article(slug=f"a{i}", updated_at=T0 + datetime.timedelta(minutes=i)) for i in range(30)
    )
    return list(Article.objects.order_by("pk").values_list("pk", flat=True))


def figures() -> PageFigures:
    return PageFigures(
        Article.objects.all(),
        "updated_at",
        lambda text: None if text is None else int(text),
        parallel=False,
    )


def minute(n: int) -> datetime.datetime:
    return T0 + datetime.timedelta(minutes=n)


def pages(keys: list[int]) -> list[Page]:
    """Rows 0-19 and 20-29; the first cut into segments after rows 9 and 14."""
    return [Page(1, None, str(keys[20])), Page(2, str(keys[20]), None)]


def cuts(keys: list[int]) -> dict[int, list[str]]:
    return {1: [str(keys[9]), str(keys[14])]}


def known(recount: set[int]) -> Any:
    """Page 1 as last counted: its newest row was row 19's."""
    hint = KnownSegments((10, 5, 5), frozenset(recount), minute(19), datetime.UTC)
    return lambda number: hint if number == 1 else None


def test_pages_whole_and_by_segment(keys: list[int]) -> None:
    result = figures().of(pages(keys), cuts(keys))
    assert result[1] == (
        RangeStats(20, minute(19)),
        (RangeStats(10, minute(9)), RangeStats(5, minute(14)), RangeStats(5, minute(19))),
    )
    assert result[2] == (RangeStats(10, minute(29)), None)


def test_known_segments_are_kept_and_the_named_ones_counted(keys: list[int]) -> None:
    Article.objects.filter(pk=keys[12]).update(updated_at=minute(100))
    # Not named, so not read: what the last count said of the other segments stands.
    Article.objects.filter(pk=keys[3]).delete()
    with CaptureQueriesContext(connection) as queries:
        result = figures().of(pages(keys), cuts(keys), known({1}))
    [scan] = queries.captured_queries
    assert scan["sql"].count("COUNT(*)") == 2  # segment 2 of page 1, and page 2
    assert result[1] == (
        RangeStats(20, minute(100)),
        (RangeStats(10, None), RangeStats(5, minute(100)), RangeStats(5, None)),
    )


@pytest.mark.parametrize("change", ["older", "deleted"])
def test_a_page_whose_newest_row_left_the_named_segments_is_counted_whole(
    keys: list[int], change: str
) -> None:
    # Row 19, page 1's newest, is in its third segment.
    if change == "older":
        Article.objects.filter(pk=keys[19]).update(updated_at=minute(-5))
    else:
        Article.objects.filter(pk=keys[19]).delete()
    result = figures().of(pages(keys), cuts(keys), known({2}))
    count = 20 if change == "older" else 19
    assert result[1][0] == RangeStats(count, minute(18))
    third = RangeStats(5, minute(18)) if change == "older" else RangeStats(4, minute(18))
    assert result[1][1] == (RangeStats(10, minute(9)), RangeStats(5, minute(14)), third)


def test_a_row_as_new_as_the_page_was_keeps_the_known_segments(keys: list[int]) -> None:
    Article.objects.filter(pk=keys[5]).update(updated_at=minute(19))
    with CaptureQueriesContext(connection) as queries:
        result = figures().of(pages(keys), cuts(keys), known({0}))
    assert len(queries) == 1
    assert result[1][0] == RangeStats(20, minute(19))


def test_a_hint_of_other_segments_is_ignored(keys: list[int]) -> None:
    wrong = KnownSegments((10, 10), frozenset({0}), minute(19), datetime.UTC)
    result = figures().of(pages(keys), cuts(keys), lambda number: wrong)
    assert result == figures().of(pages(keys), cuts(keys))
