"""Real crawlers, started from the home page of a live server, find every URL.

ultimate-sitemap-parser, Scrapy's SitemapSpider, a plain urllib consumer and
advertools discover the index through robots.txt and follow it to every page
file, plain and gzipped, with and without GZipMiddleware in front of the views.
"""

from __future__ import annotations

import datetime
import gzip
import urllib.request
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from email.message import Message
from pathlib import Path
from typing import Any, NamedTuple

import pytest
from django.test import Client
from pytest_django.live_server_helper import LiveServer

import django_sitemapkit as sitemapkit
from tests.testapp.models import Article, Tag
from tests.utils import run_spider

pytestmark = pytest.mark.django_db(transaction=True)

T0 = datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC)
SITEMAP_NS = "{http://www.sitemaps.org/schemas/sitemap/0.9}"


class Site(NamedTuple):
    home: str
    expected: set[str]
    gzip_middleware: bool


@pytest.fixture(params=[False, True], ids=["no-middleware", "gzip-middleware"])
def server(request: Any, settings: Any) -> Iterator[str]:
    """A live server of its own: a handler loads MIDDLEWARE once, when it starts."""
    settings.MIDDLEWARE = ["django.middleware.gzip.GZipMiddleware"] if request.param else []
    live = LiveServer("localhost")
    try:
        yield live.url
    finally:
        live.stop()


def register_site(settings: Any, server: str, *, gz_links: bool, page_size: int) -> None:
    settings.SITEMAPKIT = {
        **settings.SITEMAPKIT,
        "BASE_URL": server,
        "INDEX_LINKS_GZIP": gz_links,
        "SERVE_BUILT_FILES": False,
    }

    @sitemapkit.register(Article)
    class ArticleSitemap(sitemapkit.ModelSitemap):
        limit = page_size

    @sitemapkit.register(section="pages")
    class PageSitemap(sitemapkit.StaticViewSitemap):
        url_names = ["home", "about"]


def paginate() -> None:
    # Paginate once before the crawl: the live server shares one in-memory
    # SQLite connection between its threads, which a concurrent first
    # pagination would use from several threads at once (a test artefact;
    # real servers have a connection per thread).
    Client().get("/sitemap.xml")


@pytest.fixture(params=[False, True], ids=["xml-links", "gz-links"])
def site(request: Any, sitemaps: Any, server: str, settings: Any) -> Site:
    register_site(settings, server, gz_links=request.param, page_size=10)
    slugs = [f"a{i}" for i in range(25)] + ["caf\u00e9", "rock & roll"]
    Article.objects.bulk_create(Article(slug=slug, updated_at=T0) for slug in slugs)
    paginate()
    expected = {f"{server}/", f"{server}/about/"} | {
        f"{server}/articles/{slug}/" for slug in [f"a{i}" for i in range(25)]
    }
    expected |= {
        f"{server}/articles/caf%C3%A9/",
        f"{server}/articles/rock%20&%20roll/",
    }
    return Site(server, expected, bool(settings.MIDDLEWARE))


@pytest.fixture(params=[False, True], ids=["xml-links", "gz-links"])
def large_site(request: Any, sitemaps: Any, server: str, settings: Any) -> Site:
    """Files big enough that GZipMiddleware would compress their gzip again.

    Compressing a small .gz again makes it longer, and the middleware then
    leaves it alone; a .gz of a few hundred entries shrinks a second time:
    two pages of 500 articles, and 248 pages of one tag for a long index.
    """
    register_site(settings, server, gz_links=request.param, page_size=500)

    @sitemapkit.register(Tag)
    class TagSitemap(sitemapkit.ModelSitemap):
        limit = 1

    Article.objects.bulk_create(Article(slug=f"a{i}", updated_at=T0) for i in range(1000))
    Tag.objects.bulk_create(Tag(slug=f"t{i}") for i in range(248))
    paginate()
    expected = {f"{server}/", f"{server}/about/"}
    expected |= {f"{server}/articles/a{i}/" for i in range(1000)}
    expected |= {f"{server}/tags/t{i}/" for i in range(248)}
    return Site(server, expected, bool(settings.MIDDLEWARE))


def test_ultimate_sitemap_parser(site: Site) -> None:
    from usp import tree as usp_tree

    tree = usp_tree.sitemap_tree_for_homepage(site.home + "/")
    found = [page.url for page in tree.all_pages()]
    assert set(found) == site.expected
    assert len(found) == len(site.expected)


def test_scrapy_sitemap_spider(site: Site, tmp_path: Path) -> None:
    spider = Path(__file__).parent / "crawlers" / "sitemap_spider.py"
    items = run_spider(spider, tmp_path, home=f"{site.home}/")
    found = {item["url"] for item in items}
    assert found == site.expected


def fetch(url: str) -> tuple[bytes, Message]:
    """The body and headers of ``url``, asking for gzip as crawlers do."""
    request = urllib.request.Request(url, headers={"Accept-Encoding": "gzip"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return response.read(), response.headers


def read_sitemap(url: str) -> list[str]:
    """The <loc>s of one sitemap file, read as a urllib crawler reads it.

    A .gz file is gunzipped once because of its name, whatever the headers
    say; any other file is decoded by its Content-Encoding, as HTTP requires.
    """
    body, headers = fetch(url)
    if url.endswith(".gz"):
        assert headers["Content-Encoding"] is None, url
        body = gzip.decompress(body)
    elif headers["Content-Encoding"] == "gzip":
        body = gzip.decompress(body)
    root = ET.fromstring(body)
    return [element.text or "" for element in root.iter(f"{SITEMAP_NS}loc")]


def read_both(url: str) -> list[str]:
    """The <loc>s of a file, the same in its plain and its gzipped form."""
    plain = url.removesuffix(".gz")
    locs = read_sitemap(plain)
    assert read_sitemap(plain + ".gz") == locs
    return locs


def test_urllib_consumer(large_site: Site) -> None:
    robots, _headers = fetch(large_site.home + "/robots.txt")
    indexes = [
        line.split(":", 1)[1].strip()
        for line in robots.decode().splitlines()
        if line.lower().startswith("sitemap:")
    ]
    assert indexes == [large_site.home + "/sitemap.xml"]
    # The middleware really is in front of the views: it compresses the plain index.
    _body, headers = fetch(indexes[0])
    assert headers["Content-Encoding"] == ("gzip" if large_site.gzip_middleware else None)
    found = [loc for page in read_both(indexes[0]) for loc in read_both(page)]
    assert set(found) == large_site.expected
    assert len(found) == len(large_site.expected)


@pytest.mark.parametrize("server", [True], ids=["gzip-middleware"], indirect=True)
@pytest.mark.parametrize("start", ["/robots.txt", "/sitemap.xml.gz"])
def test_advertools(large_site: Site, start: str) -> None:
    """advertools reads a .xml.gz with GzipFile over the raw response, by its name."""
    advertools = pytest.importorskip("advertools")
    # One worker: the live server's threads share one SQLite connection.
    frame = advertools.sitemap_to_df(large_site.home + start, max_workers=1)
    assert "errors" not in frame.columns, frame.get("errors")
    assert set(frame["loc"]) == large_site.expected
    assert len(frame) == len(large_site.expected)
