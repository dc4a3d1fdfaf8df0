"""The quickstart, as README.md and docs/install.md + docs/quickstart.md show it, passes
``sitemapkit_validate`` over HTTP: robots.txt names the index, and every file is right."""

from __future__ import annotations

import datetime
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.test import Client
from pytest_django.live_server_helper import LiveServer

import django_sitemapkit as sitemapkit
from tests.testapp.models import Article, Tag
from tests.validation.builds import validate, xsd_args

ROOT = Path(__file__).resolve().parent.parent
URLCONF = Path(__file__).with_name("urls_quickstart.py").read_text(encoding="utf-8")
T0 = datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC)

pytestmark = pytest.mark.django_db(transaction=True)


def documented_routes(markdown: str) -> list[str]:
    """The ``path(...)`` lines of the ``urlpatterns`` the page's Python blocks show."""
    blocks = re.findall(r"^```python\n(.*?)^```", markdown, re.M | re.S)
    return [
        line.strip()
        for block in blocks
        if "urlpatterns" in block
        for line in block.splitlines()
        if line.strip().startswith("path(")
    ]


@pytest.mark.parametrize("page", ["README.md", "docs/install.md"])
def test_the_documented_urlconf_is_the_one_tested(page: str) -> None:
    routes = documented_routes((ROOT / page).read_text(encoding="utf-8"))
    assert any(route.startswith('path("robots.txt", sitemapkit.robots_txt)') for route in routes)
    assert routes and all(route in URLCONF for route in routes)


def register_quickstart() -> None:
    """docs/quickstart.md's blog/sitemaps.py, on the test app's models."""
    sitemapkit.register(Tag)

    @sitemapkit.register(Article)
    class ArticleSitemap(sitemapkit.ModelSitemap):
        changefreq = "weekly"
        priority = 0.6

        def get_queryset(self) -> Any:
            return Article.objects.filter(published=True)

    @sitemapkit.register(section="pages")
    class PageSitemap(sitemapkit.StaticViewSitemap):
        url_names = ["home", "about"]


@pytest.fixture
def quickstart(sitemaps: Any, settings: Any, tmp_path: Path) -> Iterator[str]:
    settings.ROOT_URLCONF = "tests.urls_quickstart"
    live = LiveServer("localhost")
    try:
        # The quickstart's one setting; no build lies in a fresh BUILD_DIR.
        settings.SITEMAPKIT = {"BASE_URL": live.url, "BUILD_DIR": str(tmp_path)}
        register_quickstart()
        Article.objects.bulk_create(
            Article(slug=f"a{i}", updated_at=T0, published=i % 3 > 0) for i in range(12)
        )
        Tag.objects.create(slug="t")
        # Paginate before the server's threads share the in-memory SQLite connection.
        Client().get("/sitemap.xml")
        yield live.url
    finally:
        live.stop()


def test_the_quickstart_passes_sitemapkit_validate(quickstart: str) -> None:
    robots = Client().get("/robots.txt")
    assert f"Sitemap: {quickstart}/sitemap.xml" in robots.text
    status, output = validate(f"{quickstart}/", *xsd_args())
    assert status == 0, output
    # 8 published articles, 1 tag, 2 pages in 3 files.
    assert output == f"{quickstart}/sitemap.xml: 4 file(s), 11 URL(s) checked: valid.\n"
