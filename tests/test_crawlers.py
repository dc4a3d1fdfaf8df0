"""Real crawlers, started from the home page of a live server, find every URL.

ultimate-sitemap-parser and Scrapy's SitemapSpider discover the index through
robots.txt and follow it to every page file, plain and gzipped.
"""

from __future__ import annotations

import datetime
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from django.test import Client

import django_sitemapkit as sitemapkit
from tests.testapp.models import Article

pytestmark = pytest.mark.django_db(transaction=True)

T0 = datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC)


@pytest.fixture(params=[False, True], ids=["xml-links", "gz-links"])
def site(request: Any, sitemaps: Any, live_server: Any, settings: Any) -> tuple[str, set[str]]:
    settings.SITEMAPKIT = {
        **settings.SITEMAPKIT,
        "BASE_URL": live_server.url,
        "INDEX_LINKS_GZIP": request.param,
        "SERVE_BUILT_FILES": False,
    }

    @sitemapkit.register(Article)
    class ArticleSitemap(sitemapkit.ModelSitemap):
        limit = 10

    @sitemapkit.register(section="pages")
    class PageSitemap(sitemapkit.StaticViewSitemap):
        url_names = ["home", "about"]

    slugs = [f"a{i}" for i in range(25)] + ["caf\u00e9", "rock & roll"]
    Article.objects.bulk_create(Article(slug=slug, updated_at=T0) for slug in slugs)
    # Paginate once before the crawl: the live server shares one in-memory
    # SQLite connection between its threads, which a concurrent first
    # pagination would use from several threads at once (a test artefact;
    # real servers have a connection per thread).
    Client().get("/sitemap.xml")
    expected = {f"{live_server.url}/", f"{live_server.url}/about/"} | {
        f"{live_server.url}/articles/{slug}/" for slug in [f"a{i}" for i in range(25)]
    }
    expected |= {
        f"{live_server.url}/articles/caf%C3%A9/",
        f"{live_server.url}/articles/rock%20&%20roll/",
    }
    return live_server.url, expected


def test_ultimate_sitemap_parser(site: tuple[str, set[str]]) -> None:
    from usp import tree as usp_tree

    home, expected = site
    tree = usp_tree.sitemap_tree_for_homepage(home + "/")
    found = [page.url for page in tree.all_pages()]
    assert set(found) == expected
    assert len(found) == len(expected)


def test_scrapy_sitemap_spider(site: tuple[str, set[str]], tmp_path: Path) -> None:
    home, expected = site
    output = tmp_path / "items.json"
    spider = Path(__file__).parent / "crawlers" / "sitemap_spider.py"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "scrapy",
            "runspider",
            str(spider),
            "-a",
            f"home={home}/",
            "-o",
            str(output),
            "-s",
            "LOG_LEVEL=WARNING",
            "-s",
            "TELNETCONSOLE_ENABLED=False",
            "-s",
            "ROBOTSTXT_OBEY=False",
            "-s",
            "HTTPCACHE_ENABLED=False",
            "-s",
            "CONCURRENT_REQUESTS=1",
        ],
        check=True,
        timeout=120,
        cwd=tmp_path,
    )
    found = {item["url"] for item in json.loads(output.read_text())}
    assert found == expected
