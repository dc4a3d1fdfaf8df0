"""Incremental builds under ``CHANGE_LOG`` count again only the segments holding logged rows.

What a user checks: the pages published are byte for byte a full build's, the
manifest's fingerprints are those a scan of every row gives (the next build's
decisions rest on them), and a page's other segments are not read at all.
"""

from __future__ import annotations

import datetime
import json
from pathlib import Path
from typing import Any

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings

from django_sitemapkit.models import SitemapChange
from django_sitemapkit.sites import site as default_site
from tests.building.builds import assert_same_as_full_build
from tests.building.logged import (
    EDITED,
    OPERATIONS,
    T0,
    edit,
    histories,
    register_articles,
    replay,
)
from tests.testapp.models import Article

pytestmark = pytest.mark.django_db

SECTION = "testapp-article"
# Pages of 2,500 rows: segments of 1,000, 1,000 and 500.
PAGE_ROWS = 2500


@pytest.fixture
def articles(sitemaps: Any, build_dir: Path, settings: Any) -> list[int]:
    """6,000 published articles in three pages of three, three and one segments, built once
    with the change log on; their keys in order."""
    settings.SITEMAPKIT = {**settings.SITEMAPKIT, "CHANGE_LOG": True}
    register_articles(PAGE_ROWS)
    Article.objects.bulk_create(
        (Article(slug=f"a{i}", updated_at=T0 + datetime.timedelta(seconds=i)) for i in range(6000)),
        batch_size=2000,
    )
    default_site.builder().run()
    return list(Article.objects.order_by("pk").values_list("pk", flat=True))


def fingerprints(folder: Path) -> dict[int, str]:
    manifest = json.loads((folder / "current" / "sitemapkit-manifest.json").read_bytes())
    return {page["number"]: page["fingerprint"] for page in manifest["pages"]}


def assert_as_full_build(build_dir: Path, settings: Any, tmp_path: Path, label: str) -> None:
    """Files and fingerprints: those of a full build of the rows now (which scans every row)."""
    assert_same_as_full_build(build_dir, settings, tmp_path, label)
    assert fingerprints(build_dir) == fingerprints(tmp_path / f"full-{label}")


def scans(queries: CaptureQueriesContext) -> list[str]:
    """The statements counting rows of the articles table."""
    return [
        query["sql"]
        for query in queries.captured_queries
        if "COUNT(*)" in query["sql"] and "testapp_article" in query["sql"]
    ]


def test_an_edit_counts_only_its_segment(
    articles: list[int], build_dir: Path, settings: Any, tmp_path: Path, renders: list[Any]
) -> None:
    # Page 2 holds rows 2,500-4,999; row 3,600 is in its second segment (3,500-4,499).
    edit(articles[3600], title="edited")
    renders.clear()
    with CaptureQueriesContext(connection) as queries:
        result = default_site.builder().run()

    assert result.changes_read == 1
    [scan] = scans(queries)
    assert scan.count("COUNT(*)") == 1
    # That segment's keys, and no other rows: above the first cut, up to the second.
    assert str(articles[3499]) in scan and str(articles[4499]) in scan
    assert str(articles[2500]) not in scan
    assert [number for number, span in renders] == [2]
    assert renders[0][1] is not None  # spliced, not rendered whole
    assert_as_full_build(build_dir, settings, tmp_path, "edit")


@pytest.mark.parametrize("change", ["backdated", "deleted", "unpublished"])
def test_a_page_whose_newest_row_went_is_counted_whole(
    articles: list[int], build_dir: Path, settings: Any, tmp_path: Path, change: str
) -> None:
    # Row 4,999 is page 2's newest; what is left of its segment is older than it was.
    newest = articles[4999]
    if change == "backdated":
        edit(newest, at=T0 - datetime.timedelta(days=1))
    elif change == "deleted":
        Article.objects.get(pk=newest).delete()
    else:
        edit(newest, published=False)
    with CaptureQueriesContext(connection) as queries:
        default_site.builder().run()
    # Its segment first; then, not as new as the page was, the page whole.
    assert [scan.count("COUNT(*)") for scan in scans(queries)] == [1, 3]
    assert_as_full_build(build_dir, settings, tmp_path, change)


def test_a_page_cut_since_the_last_build_is_counted_whole(
    articles: list[int], build_dir: Path, settings: Any, tmp_path: Path, client: Client
) -> None:
    # Page 3 grows to 2,200 rows: segments of 1,000, 1,000 and 200 at the next build.
    Article.objects.bulk_create(Article(slug=f"b{i}", updated_at=EDITED) for i in range(1200))
    default_site.builder(scan=True).run()
    # 400 more, unnoted (bulk_create() sends no signal); the live index cuts page 3 past its
    # 2,500th row, so that its third segment now holds 500 rows.
    Article.objects.bulk_create(Article(slug=f"c{i}", updated_at=EDITED) for i in range(400))
    assert client.get("/sitemap.xml").status_code == 200
    edit(articles[5100])  # in page 3's first segment
    default_site.builder().run()
    assert_as_full_build(build_dir, settings, tmp_path, "cut")


@hypothesis_settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(histories(OPERATIONS, rows=6000, steps=6))
def test_any_history_matches_a_full_build(
    articles: list[int], build_dir: Path, settings: Any, tmp_path: Path, operations: Any
) -> None:
    replay(operations)
    default_site.builder().run()
    assert not SitemapChange.objects.exists()
    label = f"h{len(list(tmp_path.iterdir()))}"
    assert_as_full_build(build_dir, settings, tmp_path, label)
