"""Incremental builds under ``CHANGE_LOG``: only the pages holding the rows the log names.

What a user checks: after saves, deletions and new rows, the published pages
are byte for byte what a full build makes of the rows now; the pages nobody
touched are neither scanned nor rendered; the log is emptied by the build that
published its rows, and by no other.
"""

from __future__ import annotations

import datetime
from pathlib import Path
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings

import django_sitemapkit as sitemapkit
from django_sitemapkit.building import builder
from django_sitemapkit.building.result import BuildError
from django_sitemapkit.engine import extensions
from django_sitemapkit.models import SitemapChange
from django_sitemapkit.sites import site as default_site
from tests.building.builds import assert_same_as_full_build, page_files
from tests.building.logged import EDITED, T0, edit, histories, register_articles, replay
from tests.stories import StorySitemap
from tests.testapp.models import Article, Story
from tests.utils import parse_urlset

pytestmark = pytest.mark.django_db

SECTION = "testapp-article"
PAGE_ROWS = 100


@pytest.fixture
def log_on(settings: Any, build_dir: Path) -> None:
    settings.SITEMAPKIT = {**settings.SITEMAPKIT, "CHANGE_LOG": True}


@pytest.fixture
def articles(sitemaps: Any, build_dir: Path, log_on: None) -> list[int]:
    """250 published articles in three pages (100, 100, 50), built once; their keys in order."""
    register_articles(PAGE_ROWS)
    Article.objects.bulk_create(
        Article(slug=f"a{i}", updated_at=T0 + datetime.timedelta(minutes=i)) for i in range(250)
    )
    default_site.builder().run()
    return list(Article.objects.order_by("pk").values_list("pk", flat=True))


def written_pages(result: Any) -> list[str]:
    return sorted(name for name in result.written if name.startswith("sitemap-"))


def test_a_saved_row_renders_and_scans_only_its_page(
    articles: list[int], build_dir: Path, settings: Any, tmp_path: Path, renders: list[Any]
) -> None:
    edit(articles[150], title="edited")
    assert SitemapChange.objects.count() == 1
    renders.clear()
    with CaptureQueriesContext(connection) as queries:
        result = default_site.builder().run()

    assert written_pages(result) == [f"sitemap-{SECTION}-2.xml", f"sitemap-{SECTION}-2.xml.gz"]
    assert {number for number, _span in renders} == {2}
    assert result.changes_read == 1
    assert "1 change-log row read." in result.summary()
    # Pages 1 and 3 were not read at all: every query on the table ranges over page 2's keys.
    on_articles = [q["sql"] for q in queries.captured_queries if "testapp_article" in q["sql"]]
    assert len(on_articles) == 2
    for sql in on_articles:
        assert f">= {articles[100]} " in sql
        assert f"< {articles[200]})" in sql
    urls = parse_urlset(page_files(build_dir)[f"sitemap-{SECTION}-2.xml"])
    edited = next(url for url in urls if url.loc.endswith("/a150/"))
    assert edited.lastmod == "2026-03-01T00:00:00+00:00"
    # Published: the build is done with the row.
    assert not SitemapChange.objects.exists()
    assert_same_as_full_build(build_dir, settings, tmp_path, "saved")


def test_deletions_new_rows_and_unpublishing_match_a_full_build(
    articles: list[int], build_dir: Path, settings: Any, tmp_path: Path
) -> None:
    Article.objects.get(pk=articles[10]).delete()
    edit(articles[120], published=False)
    # Past the open last page's 100 rows: it is split, and the new page listed.
    for i in range(60):
        Article.objects.create(slug=f"new{i}", updated_at=EDITED)
    result = default_site.builder().run()

    assert f"sitemap-{SECTION}-4.xml" in result.written
    assert result.changes_read == 62
    assert not SitemapChange.objects.exists()
    assert_same_as_full_build(build_dir, settings, tmp_path, "mixed")


def test_a_page_emptied_earlier_is_not_scanned_again(
    articles: list[int], build_dir: Path, settings: Any, tmp_path: Path
) -> None:
    # QuerySet.delete() sends post_delete for each row: each is noted.
    Article.objects.filter(pk__in=articles[100:200]).delete()
    result = default_site.builder().run()
    assert f"sitemap-{SECTION}-2.xml" not in page_files(build_dir)
    assert result.changes_read == 100
    edit(articles[220])
    with CaptureQueriesContext(connection) as queries:
        default_site.builder().run()
    on_articles = [q["sql"] for q in queries.captured_queries if "testapp_article" in q["sql"]]
    # Page 3 alone: neither page 1 (below key 101) nor the empty page 2 is read.
    assert on_articles
    for sql in on_articles:
        assert f">= {articles[200]}" in sql
        assert f"< {articles[100]}" not in sql
        assert f">= {articles[100]} " not in sql
    assert_same_as_full_build(build_dir, settings, tmp_path, "emptied")


def test_nothing_noted_keeps_every_page_without_a_scan(
    articles: list[int], build_dir: Path, renders: list[Any]
) -> None:
    renders.clear()
    with CaptureQueriesContext(connection) as queries:
        result = default_site.builder().run()
    assert renders == []
    assert not result.written
    assert not any('"testapp_article"' in query["sql"] for query in queries.captured_queries)


def test_update_is_seen_once_invalidated_by_key_or_whole(
    articles: list[int], build_dir: Path, settings: Any, tmp_path: Path
) -> None:
    # QuerySet.update() sends no signal: the log does not know of it.
    Article.objects.filter(pk=articles[5]).update(updated_at=EDITED)
    assert not default_site.builder().run().written

    sitemapkit.invalidate(Article, pks=[articles[5]])
    result = default_site.builder().run()
    assert written_pages(result) == [f"sitemap-{SECTION}-1.xml", f"sitemap-{SECTION}-1.xml.gz"]

    Article.objects.filter(pk=articles[220]).update(updated_at=EDITED)
    sitemapkit.invalidate(Article)  # no keys: the section is scanned
    assert SitemapChange.objects.get().key is None
    result = default_site.builder().run()
    assert written_pages(result) == [f"sitemap-{SECTION}-3.xml", f"sitemap-{SECTION}-3.xml.gz"]
    assert_same_as_full_build(build_dir, settings, tmp_path, "invalidated")


def test_scan_finds_what_the_log_missed(articles: list[int], build_dir: Path) -> None:
    Article.objects.filter(pk=articles[60]).update(updated_at=EDITED)
    result = default_site.builder(scan=True).run()
    assert written_pages(result) == [f"sitemap-{SECTION}-1.xml", f"sitemap-{SECTION}-1.xml.gz"]


def test_the_first_build_with_the_log_on_scans(
    sitemaps: Any, build_dir: Path, settings: Any
) -> None:
    sitemapkit.register(Article)
    Article.objects.bulk_create(Article(slug=f"a{i}", updated_at=T0) for i in range(3))
    default_site.builder().run()  # the log is off: nothing is noted
    Article.objects.filter(slug="a1").update(updated_at=EDITED)
    settings.SITEMAPKIT = {**settings.SITEMAPKIT, "CHANGE_LOG": True}
    result = default_site.builder().run()
    assert "sitemap-testapp-article-1.xml" in result.written


def test_rows_stay_for_the_next_build_unless_published(
    articles: list[int], build_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    edit(articles[3])
    default_site.builder(dry_run=True).run()
    assert SitemapChange.objects.count() == 1

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise BuildError("the storage is gone")

    monkeypatch.setattr(builder, "publish_index", broken)
    with pytest.raises(BuildError):
        default_site.builder().run()
    assert SitemapChange.objects.count() == 1
    monkeypatch.undo()
    assert default_site.builder().run().changes_read == 1
    assert not SitemapChange.objects.exists()


def test_a_section_built_alone_takes_only_its_rows(
    articles: list[int], build_dir: Path, sitemaps: Any
) -> None:
    sitemapkit.register(section="pages")(
        type("PageSitemap", (sitemapkit.StaticViewSitemap,), {"url_names": ["home"]})
    )
    default_site.builder().run()
    edit(articles[0])
    sitemapkit.invalidate("pages")
    default_site.builder().run(["pages"])
    assert list(SitemapChange.objects.values_list("section", flat=True)) == [SECTION]


def test_a_news_section_is_scanned_as_its_window_moves(
    sitemaps: Any, build_dir: Path, log_on: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    sitemapkit.register(Story, StorySitemap)
    now = timezone.now()
    Story.objects.create(slug="fresh", title="Fresh", published_at=now)
    Story.objects.create(
        slug="aging", title="Aging", published_at=now - datetime.timedelta(hours=1)
    )
    default_site.builder().run()
    # Half an hour's window: as if a day and a half passed, with no write at all.
    monkeypatch.setattr(extensions, "NEWS_WINDOW", datetime.timedelta(minutes=30))
    result = default_site.builder().run()
    assert "sitemap-testapp-story-1.xml" in result.written
    page = page_files(build_dir)["sitemap-testapp-story-1.xml"]
    assert [url.loc for url in parse_urlset(page)] == ["https://www.example.com/articles/fresh/"]


@hypothesis_settings(
    max_examples=15,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(histories(["edit", "delete", "insert", "unpublish"], rows=1000, steps=8))
def test_any_saves_and_deletes_match_a_full_build(
    articles: list[int], build_dir: Path, settings: Any, tmp_path: Path, operations: Any
) -> None:
    replay(operations)
    default_site.builder().run()
    assert not SitemapChange.objects.exists()
    assert_same_as_full_build(build_dir, settings, tmp_path, f"h{len(list(tmp_path.iterdir()))}")
