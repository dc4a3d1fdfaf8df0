"""sitemapkit_status's report of how each model section makes its URLs, and of the change log (status.py)."""

from __future__ import annotations

import datetime
import inspect
import json
from pathlib import Path
from typing import Any

import pytest

import django_sitemapkit as sitemapkit
from tests.building.builds import T0, build
from tests.publishing.stale import status
from tests.testapp.models import Article, Document, Tag

pytestmark = pytest.mark.django_db


@pytest.fixture
def built(sitemaps: Any, settings: Any, tmp_path: Path) -> Path:
    """Articles (a plain get_absolute_url()), documents (an f-string) and tags, built once."""
    settings.SITEMAPKIT = {**settings.SITEMAPKIT, "BUILD_DIR": str(tmp_path)}
    sitemapkit.register(Article)
    sitemapkit.register(Document)

    @sitemapkit.register(Tag)
    class TagSitemap(sitemapkit.ModelSitemap):
        url_name = "tag-detail"
        url_kwargs = {"slug": "slug"}
        lastmod_field = None

    Article.objects.create(slug="a", updated_at=T0)
    Document.objects.create(updated_at=T0 + datetime.timedelta(hours=1))
    Tag.objects.create(slug="t")
    build()
    return tmp_path


def test_each_model_section_says_how_it_makes_its_urls(built: Path) -> None:
    code, text = status()
    assert code == 0
    _, article_line = inspect.getsourcelines(Article.get_absolute_url)
    lines, document_line = inspect.getsourcelines(Document.get_absolute_url)
    urls = [line.strip() for line in text.splitlines() if line.strip().startswith("URLs:")]
    assert urls == [
        "URLs: URL pattern 'article-detail' read from get_absolute_url() "
        f"(testapp/models.py:{article_line})",
        f"URLs: location() per row: testapp/models.py:{document_line + 1}: an f-string: "
        f"{lines[1].strip()}",
        "URLs: URL pattern 'tag-detail' (url_name)",
    ]


def test_the_json_says_it_too(built: Path) -> None:
    code, text = status("--format", "json")
    assert code == 0
    (site,) = json.loads(text)
    by_name = {s["section"]: s for s in site["sections"]}
    assert by_name["testapp-article"]["fast_path"] is True
    assert by_name["testapp-document"]["fast_path"] is False
    assert "an f-string" in by_name["testapp-document"]["urls_from"]
    assert by_name["testapp-tag"]["urls_from"] == "URL pattern 'tag-detail' (url_name)"


def test_lastmods_and_the_build_time_are_printed_to_the_second(
    sitemaps: Any, settings: Any, tmp_path: Path
) -> None:
    # As the files write them: a row saved at 10:30:15.123456 is 10:30:15.
    settings.SITEMAPKIT = {**settings.SITEMAPKIT, "BUILD_DIR": str(tmp_path)}
    sitemapkit.register(Article)
    Article.objects.create(slug="a", updated_at=T0 + datetime.timedelta(seconds=15.123456))
    build()
    code, text = status()
    assert code == 0
    assert f"newest lastmod {(T0 + datetime.timedelta(seconds=15)).isoformat()};" in text
    (site,) = json.loads(status("--format", "json")[1])
    assert site["sections"][0]["newest_lastmod"] == "2026-01-01T00:00:15+00:00"
    assert "." not in site["built_at"]
    assert datetime.datetime.fromisoformat(site["built_at"]).tzinfo is not None
