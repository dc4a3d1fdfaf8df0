"""Fixtures of the build tests: a build folder and a site of three sections to build."""

from __future__ import annotations

import datetime
from pathlib import Path
from typing import Any

import pytest

import django_sitemapkit as sitemapkit
from tests.building.builds import T0
from tests.testapp.models import Article, Tag


@pytest.fixture
def build_dir(settings: Any, tmp_path: Path) -> Path:
    settings.SITEMAPKIT = {**settings.SITEMAPKIT, "BUILD_DIR": str(tmp_path / "sitemaps")}
    return tmp_path / "sitemaps"


@pytest.fixture
def site(sitemaps: Any, build_dir: Path) -> Any:
    """Articles in four pages, a tag and two static pages: six sitemap pages."""

    @sitemapkit.register(Article)
    class ArticleSitemap(sitemapkit.ModelSitemap):
        limit = 10

        def get_queryset(self) -> Any:
            return Article.objects.filter(published=True)

    sitemapkit.register(Tag)

    @sitemapkit.register(section="pages")
    class PageSitemap(sitemapkit.StaticViewSitemap):
        url_names = ["home", "about"]

    Article.objects.bulk_create(
        Article(slug=f"a{i}", updated_at=T0 + datetime.timedelta(hours=i)) for i in range(35)
    )
    Tag.objects.create(slug="t")
    return sitemaps
