"""Full builds that render the recorded pages without scanning them first (building/unscanned.py).

What a user checks: the files are the same; the next incremental build keeps
every page it would have kept after a scanned build, because the fingerprints
taken from the renders are the scan's.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

import django_sitemapkit as sitemapkit
from django_sitemapkit.engine import rows, sections
from django_sitemapkit.engine.rendering import make_context
from django_sitemapkit.publishing.manifest import page_fingerprint
from django_sitemapkit.sites import site as default_site
from tests.building.builds import EDITED, build, published
from tests.testapp.models import Article

pytestmark = pytest.mark.django_db

SECTION = "testapp-article"


def fingerprints(build_dir: Path) -> dict[int, str | None]:
    manifest = json.loads((build_dir / "current" / "sitemapkit-manifest.json").read_bytes())
    return {p["number"]: p["fingerprint"] for p in manifest["pages"] if p["section"] == SECTION}


def scanned_fingerprints() -> dict[int, str]:
    sitemap = default_site._registry[SECTION]
    tz = make_context("https://www.example.com", default_site.name).tz
    return {
        summary.number: page_fingerprint(summary, tz)
        for summary in rows.keyset_pages(sitemap).summaries()
    }


@pytest.fixture
def rendered(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The article pages each build renders, by number."""
    numbers: list[int] = []
    real = sections.render_page

    def spy(sitemap: Any, number: int, *args: Any) -> Any:
        if sitemap.name == SECTION:
            numbers.append(number)
        return real(sitemap, number, *args)

    monkeypatch.setattr(sections, "render_page", spy)
    return numbers


def aggregates(queries: CaptureQueriesContext) -> list[str]:
    return [q["sql"] for q in queries.captured_queries if "COUNT(" in q["sql"].upper()]


def test_a_full_build_renders_without_a_scan_and_fingerprints_as_one(
    site: Any, build_dir: Path, rendered: list[int]
) -> None:
    build()  # the first build cuts and records the pages
    files = published(build_dir)
    with CaptureQueriesContext(connection) as queries:
        result = build(full=True)
    assert not [sql for sql in aggregates(queries) if "testapp_article" in sql]
    assert published(build_dir) == files
    assert result.urls == 35 + 1 + 2
    assert fingerprints(build_dir) == scanned_fingerprints()
    rendered.clear()
    assert not build().written
    assert rendered == []


def test_a_page_with_a_skipped_row_is_rendered_again_next_time(
    site: Any, build_dir: Path, rendered: list[int]
) -> None:
    build()
    # No URL pattern takes a slash: the row is skipped, which its page's entries do not show.
    Article.objects.filter(slug="a12").update(slug="a/12")
    build(full=True)
    prints = fingerprints(build_dir)
    assert prints[2] is None
    assert all(prints[n] is not None for n in (1, 3, 4))
    rendered.clear()
    build()
    assert rendered == [2]


def test_a_recorded_page_emptied_since_is_left_out_as_a_scan_would(
    site: Any, build_dir: Path
) -> None:
    build()
    keys = list(Article.objects.order_by("pk").values_list("pk", flat=True))
    Article.objects.filter(pk__in=keys[10:20]).delete()
    result = build(full=True)
    assert f"sitemap-{SECTION}-2.xml" not in published(build_dir)
    assert result.urls == 25 + 1 + 2
    assert set(fingerprints(build_dir)) == {1, 3, 4}


def test_a_section_with_a_lastmod_method_is_scanned(
    sitemaps: Any, build_dir: Path, rendered: list[int]
) -> None:
    @sitemapkit.register(Article)
    class Dated(sitemapkit.ModelSitemap):
        limit = 10

        def lastmod(self, item: Article) -> Any:
            return EDITED

    Article.objects.bulk_create(Article(slug=f"a{i}", updated_at=EDITED) for i in range(25))
    build()
    with CaptureQueriesContext(connection) as queries:
        build(full=True)
    assert [sql for sql in aggregates(queries) if "testapp_article" in sql]
