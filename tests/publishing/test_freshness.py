"""Stale builds: a write the app sees has its section served live until the next build, and no
request reads the database to tell."""

from __future__ import annotations

import datetime
from pathlib import Path
from typing import Any

import pytest
from django.core.cache import caches
from django.test import Client, TestCase

import django_sitemapkit as sitemapkit
from tests.building.builds import T0
from tests.publishing.stale import build_articles_and_tags, status
from tests.testapp.models import Article, Tag
from tests.utils import all_urls, path_of

pytestmark = pytest.mark.django_db

EDITED = T0 + datetime.timedelta(days=30)
ARTICLES = "/sitemap-testapp-article-1.xml"


@pytest.fixture
def built(sitemaps: Any, settings: Any, tmp_path: Path) -> Path:
    """Articles and tags, built once into a temporary BUILD_DIR."""
    settings.SITEMAPKIT = {**settings.SITEMAPKIT, "BUILD_DIR": str(tmp_path)}
    build_articles_and_tags()
    return tmp_path / "current"


# The test's transaction never commits: what a commit would run, run at once.
committed = TestCase.captureOnCommitCallbacks


def edit_a0() -> None:
    edited = Article.objects.get(slug="a0")
    edited.updated_at = EDITED
    with committed(execute=True):
        edited.save()


def assert_build_served(client: Client, current: Path, django_assert_num_queries: Any) -> None:
    """Every file the build published is what the views serve, without a query."""
    with django_assert_num_queries(0):
        for name in ("sitemap.xml", ARTICLES[1:], "sitemap-testapp-tag-1.xml"):
            assert client.get(f"/{name}").content == (current / name).read_bytes()


def test_a_save_is_served_live_until_the_next_build(
    built: Path, client: Client, django_assert_num_queries: Any
) -> None:
    assert_build_served(client, built, django_assert_num_queries)
    assert status()[0] == 0
    edit_a0()
    page = client.get(ARTICLES)
    assert b"2026-01-31" in page.content
    assert page.content != (built / ARTICLES[1:]).read_bytes()
    assert b"2026-01-31" in client.get("/sitemap.xml").content
    # The tag section was not written: its build is still served, without a query.
    with django_assert_num_queries(0):
        tags = client.get("/sitemap-testapp-tag-1.xml")
    assert tags.content == (built / "sitemap-testapp-tag-1.xml").read_bytes()
    code, text = status()
    assert code == 1
    assert "testapp-article" in text
    assert "STALE" in text
    sitemapkit.build()
    assert b"2026-01-31" in (built / ARTICLES[1:]).read_bytes()
    assert_build_served(client, built, django_assert_num_queries)
    assert status()[0] == 0


def test_a_write_made_while_the_build_runs_is_served_live_after_it(
    built: Path, client: Client, django_assert_num_queries: Any
) -> None:
    edit_a0()
    written: list[int] = []

    def write_once(done: int, total: int) -> None:
        if not written:
            written.append(done)
            with committed(execute=True):
                Article.objects.create(slug="during", updated_at=EDITED)

    sitemapkit.site.builder(progress=write_once).run()
    assert written
    assert b"/articles/during/" not in (built / ARTICLES[1:]).read_bytes()
    assert b"/articles/during/" in client.get(ARTICLES).content
    with django_assert_num_queries(0):
        assert client.get("/sitemap-testapp-tag-1.xml").status_code == 200
    sitemapkit.build()
    assert_build_served(client, built, django_assert_num_queries)


def test_writes_without_signals_need_invalidate(
    built: Path, client: Client, django_assert_num_queries: Any
) -> None:
    Article.objects.bulk_create([Article(slug="bulk", updated_at=EDITED)])
    # Unseen: the build is served, and only the status command's scan tells.
    assert_build_served(client, built, django_assert_num_queries)
    code, text = status()
    assert code == 1
    assert "testapp-article: 5 URLs in 1 files, 0 skipped" in text
    sitemapkit.invalidate(Article)
    assert "/articles/bulk/" in {path_of(url.loc) for url in all_urls(client)}
    with django_assert_num_queries(0):
        assert client.get("/sitemap-testapp-tag-1.xml").status_code == 200
    sitemapkit.invalidate()
    assert (
        client.get("/sitemap-testapp-tag-1.xml").content
        == (built / "sitemap-testapp-tag-1.xml").read_bytes()
    )


def test_a_deletion_is_seen(built: Path, client: Client) -> None:
    with committed(execute=True):
        Article.objects.filter(slug="a3").delete()
    urls = {path_of(url.loc) for url in all_urls(client)}
    assert "/articles/a3/" not in urls
    assert "/articles/a4/" in urls


def test_a_build_of_another_section_leaves_the_written_one_live(
    built: Path, client: Client, django_assert_num_queries: Any
) -> None:
    edit_a0()
    Tag.objects.update(updated_at=EDITED)
    sitemapkit.invalidate(Tag)
    sitemapkit.build(["testapp-tag"])
    assert b"2026-01-31" in client.get("/sitemap-testapp-tag-1.xml").content
    with django_assert_num_queries(0):
        client.get("/sitemap-testapp-tag-1.xml")
    assert b"2026-01-31" in client.get(ARTICLES).content
    assert client.get(ARTICLES).content != (built / ARTICLES[1:]).read_bytes()


def test_a_build_the_cache_forgot_is_served_and_later_writes_are_seen(
    built: Path, client: Client, django_assert_num_queries: Any
) -> None:
    caches["default"].clear()
    assert_build_served(client, built, django_assert_num_queries)
    edit_a0()
    assert b"2026-01-31" in client.get(ARTICLES).content


def test_a_section_registered_since_the_build_is_served_live(
    built: Path, client: Client, django_assert_num_queries: Any
) -> None:
    @sitemapkit.register(section="pages")
    class PageSitemap(sitemapkit.StaticViewSitemap):
        url_names = ["home"]

    assert b"sitemap-pages-1.xml" in client.get("/sitemap.xml").content
    assert client.get("/sitemap-pages-1.xml").status_code == 200
    with django_assert_num_queries(0):
        client.get("/sitemap-testapp-tag-1.xml")
    sitemapkit.build()
    assert_build_served(client, built, django_assert_num_queries)


def test_list_sections_are_never_stale(sitemaps: Any, settings: Any, tmp_path: Path) -> None:
    settings.SITEMAPKIT = {**settings.SITEMAPKIT, "BUILD_DIR": str(tmp_path)}

    @sitemapkit.register(section="pages")
    class PageSitemap(sitemapkit.StaticViewSitemap):
        url_names = ["home"]

    sitemapkit.build()
    assert status()[0] == 0


def test_status_without_a_build(sitemaps: Any, settings: Any, tmp_path: Path) -> None:
    settings.SITEMAPKIT = {**settings.SITEMAPKIT, "BUILD_DIR": str(tmp_path)}
    sitemapkit.register(Tag)
    code, text = status()
    assert (code, text) == (1, "no published build: run sitemapkit_build.\n")
