"""Stale builds: the views know when committed data is newer than the published build."""

from __future__ import annotations

import datetime
import logging
from pathlib import Path
from typing import Any

import pytest
from django.test import Client

import django_sitemapkit as sitemapkit
from tests.building.builds import T0, build
from tests.publishing.stale import (
    assert_articles_reported_stale,
    build_articles_and_tags,
    status,
)
from tests.testapp.models import Article, Tag
from tests.utils import all_urls, path_of

NEW_ROWS = 3000

pytestmark = pytest.mark.django_db


@pytest.fixture
def built(sitemaps: Any, settings: Any, tmp_path: Path) -> Path:
    """Articles and tags, built once into a temporary BUILD_DIR."""
    settings.SITEMAPKIT = {**settings.SITEMAPKIT, "BUILD_DIR": str(tmp_path)}
    build_articles_and_tags()
    return tmp_path


def add_rows_and_save_one() -> None:
    """3,000 rows without a signal (bulk_create), then one edit saved through the ORM."""
    Article.objects.bulk_create(
        Article(slug=f"new{i}", updated_at=T0 + datetime.timedelta(days=1)) for i in range(NEW_ROWS)
    )
    edited = Article.objects.get(slug="a0")
    edited.updated_at = T0 + datetime.timedelta(days=2)
    edited.save()


def test_a_current_build_is_served_and_status_says_current(built: Path, client: Client) -> None:
    index = client.get("/sitemap.xml")
    assert index.status_code == 200
    published = (built / "current" / "sitemap.xml").read_bytes()
    assert index.content == published
    code, text = status()
    assert code == 0
    assert "STALE" not in text
    assert "testapp-article: 5 URLs in 1 files, 0 skipped" in text


def test_render_mode_lists_every_new_row(built: Path, client: Client) -> None:
    add_rows_and_save_one()
    urls = {path_of(url.loc) for url in all_urls(client)}
    assert {f"/articles/new{i}/" for i in range(NEW_ROWS)} <= urls
    assert "/articles/a0/" in urls
    assert len([u for u in urls if u.startswith("/articles/")]) == NEW_ROWS + 5
    # The published files are untouched: only a build changes them.
    assert b"new0" not in (built / "current" / "sitemap-testapp-article-1.xml").read_bytes()


def test_serve_mode_serves_the_build_warns_once_and_status_says_stale(
    built: Path, client: Client, settings: Any, caplog: pytest.LogCaptureFixture
) -> None:
    settings.SITEMAPKIT = {**settings.SITEMAPKIT, "STALE_BUILD": "serve"}
    add_rows_and_save_one()
    published = (built / "current" / "sitemap.xml").read_bytes()
    with caplog.at_level(logging.WARNING, logger="django_sitemapkit"):
        assert client.get("/sitemap.xml").content == published
        assert client.get("/sitemap.xml").content == published
    site = assert_articles_reported_stale(caplog)
    assert site["stale"] is True


def test_a_new_build_is_current_again(built: Path, client: Client) -> None:
    add_rows_and_save_one()
    assert status()[0] == 1
    build()
    assert status()[0] == 0
    served = client.get("/sitemap.xml").content
    assert served == (built / "current" / "sitemap.xml").read_bytes()


def test_a_deletion_without_signal_is_seen(built: Path, client: Client) -> None:
    Article.objects.filter(slug="a3").delete()
    urls = {path_of(url.loc) for url in all_urls(client)}
    assert "/articles/a3/" not in urls
    assert "/articles/a4/" in urls


def test_the_answer_is_kept_for_a_while(
    built: Path, client: Client, django_assert_num_queries: Any
) -> None:
    client.get("/sitemap.xml")
    with django_assert_num_queries(0):
        assert client.get("/sitemap.xml").status_code == 200


def test_list_sections_are_never_stale(sitemaps: Any, settings: Any, tmp_path: Path) -> None:
    settings.SITEMAPKIT = {**settings.SITEMAPKIT, "BUILD_DIR": str(tmp_path)}

    @sitemapkit.register(section="pages")
    class PageSitemap(sitemapkit.StaticViewSitemap):
        url_names = ["home"]

    build()
    assert status()[0] == 0


def test_status_without_a_build(sitemaps: Any, settings: Any, tmp_path: Path) -> None:
    settings.SITEMAPKIT = {**settings.SITEMAPKIT, "BUILD_DIR": str(tmp_path)}
    sitemapkit.register(Tag)
    code, text = status()
    assert (code, text) == (1, "no published build: run sitemapkit_build.\n")
