"""Real crawlers read the hreflang alternates of an ``i18n`` section from a live server.

Django's documentation example ``I18nBlogSitemap`` (``i18n``, ``alternates``
and ``x_default``), registered with ``register_sitemaps`` beside the other
examples, is served with its pages under ``i18n_patterns`` and LocaleMiddleware
in front, with and without GZipMiddleware, its index linking ``.xml`` or
``.xml.gz`` files. From the home page, through robots.txt:

* every file fetched validates against sitemap.xsd + the XHTML schema;
* ultimate-sitemap-parser reads each entry once per language with its
  alternates, as the XML writes them;
* Scrapy's SitemapSpider with ``sitemap_alternate_links`` requests every
  language's URL of every entry.

This module is its own URLconf: ``tests.urls_i18n`` plus a robots.txt.
"""

from __future__ import annotations

import datetime
import gzip
import urllib.error
import urllib.request
from collections.abc import Iterator
from email.message import Message
from pathlib import Path
from typing import Any, NamedTuple
from urllib.parse import urlsplit

import pytest
from django.test import Client
from django.test.utils import override_settings
from django.urls import URLPattern, URLResolver, path
from lxml import etree
from pytest_django.live_server_helper import LiveServer

import django_sitemapkit as sitemapkit
from django_sitemapkit._serving.robots import robots_txt
from tests import contrib_sitemaps, urls_i18n
from tests.testapp.models import Entry
from tests.utils import run_spider
from tests.xsd import validate_index, validate_urlset

pytestmark = pytest.mark.django_db(transaction=True)

urlpatterns: list[URLPattern | URLResolver] = [
    path("robots.txt", robots_txt),
    *urls_i18n.urlpatterns,
]

NS = {"sm": "http://www.sitemaps.org/schemas/sitemap/0.9", "xhtml": "http://www.w3.org/1999/xhtml"}
LANGUAGES = ["en", "fr", "de"]
LOCALE = "django.middleware.locale.LocaleMiddleware"
GZIP = "django.middleware.gzip.GZipMiddleware"
# post-3 is a draft: I18nBlogSitemap lists published entries only.
SLUGS = ["post-0", "post-1", "post-2", "post-4", "post-5"]
SECTION_FILE = "/sitemap-i18n-"
SPIDER = Path(__file__).parent / "crawlers" / "alternates_spider.py"


class Site(NamedTuple):
    home: str
    language_code: str
    gz_links: bool

    def links(self, slug: str) -> dict[str, str]:
        """hreflang -> href of each of ``slug``'s entries, as the section must write them."""
        links = {code: f"{self.home}/{code}/blog/{slug}/" for code in LANGUAGES}
        if self.language_code == "en":
            # contrib's rule: x-default only when LANGUAGE_CODE is one of the item's languages.
            links["x-default"] = f"{self.home}/blog/{slug}/"
        return links


@pytest.fixture(scope="module", params=[False, True], ids=["no-gzip-middleware", "gzip-middleware"])
def server(request: Any, django_db_setup: Any, django_db_blocker: Any) -> Iterator[str]:
    """A live server for each MIDDLEWARE: a handler loads it once, when it starts.

    One server serves the module's tests of its middleware (settings other than
    MIDDLEWARE are read on each request), as pytest-django's session-wide
    ``live_server`` does, after the test database is set up.
    """
    middleware = [GZIP, LOCALE] if request.param else [LOCALE]
    with (
        django_db_blocker.unblock(),
        override_settings(MIDDLEWARE=middleware, ROOT_URLCONF=__name__),
    ):
        live = LiveServer("localhost")
        try:
            yield live.url
        finally:
            live.stop()


@pytest.fixture(params=["en-us", "en"], ids=["en-us", "en"])
def language_code(request: Any, settings: Any) -> str:
    settings.LANGUAGE_CODE = request.param
    return str(request.param)


@pytest.fixture(params=[False, True], ids=["xml-links", "gz-links"])
def site(request: Any, sitemaps: Any, server: str, language_code: str, settings: Any) -> Site:
    settings.SITEMAPKIT = {
        **settings.SITEMAPKIT,
        "BASE_URL": server,
        "INDEX_LINKS_GZIP": request.param,
        "SERVE_BUILT_FILES": False,
    }
    start = datetime.datetime(2024, 3, 1, 12, 30, tzinfo=datetime.UTC)
    Entry.objects.bulk_create(
        Entry(slug=f"post-{n}", is_draft=n == 3, pub_date=start + datetime.timedelta(days=n))
        for n in range(6)
    )
    sitemapkit.register_sitemaps(contrib_sitemaps.SITEMAPS)
    # Paginate once before the crawl: the live server shares one in-memory
    # SQLite connection between its threads (see tests/test_crawlers.py).
    assert Client().get("/sitemap.xml").status_code == 200
    return Site(server, language_code, request.param)


def fetch(url: str) -> tuple[int, bytes, Message]:
    """Status, body and headers of ``url``, asking for gzip as crawlers do; no redirects."""

    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args: Any, **kwargs: Any) -> None:
            return None

    opener = urllib.request.build_opener(NoRedirect)
    request = urllib.request.Request(url, headers={"Accept-Encoding": "gzip"})
    try:
        with opener.open(request, timeout=30) as response:
            return response.status, response.read(), response.headers
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read(), exc.headers


def sitemap_body(url: str) -> bytes:
    """A sitemap file's XML: a .gz gunzipped by its name, anything else by Content-Encoding."""
    status, body, headers = fetch(url)
    assert status == 200, url
    if url.endswith(".gz"):
        assert headers["Content-Encoding"] is None, url
        return gzip.decompress(body)
    if headers["Content-Encoding"] == "gzip":
        return gzip.decompress(body)
    return body


def section_files(site: Site) -> dict[str, bytes]:
    """Every i18n file the index names, and its twin (.xml and .xml.gz), each validated."""
    _status, robots, _headers = fetch(site.home + "/robots.txt")
    indexes = [
        line.split(":", 1)[1].strip()
        for line in robots.decode().splitlines()
        if line.lower().startswith("sitemap:")
    ]
    assert indexes == [site.home + "/sitemap.xml"]
    index = validate_index(sitemap_body(indexes[0]))
    assert validate_index(sitemap_body(indexes[0] + ".gz")) is not None
    locs = [loc.text or "" for loc in index.findall("sm:sitemap/sm:loc", NS)]
    assert all(loc.endswith(".xml.gz" if site.gz_links else ".xml") for loc in locs), locs
    files = {}
    for loc in locs:
        if urlsplit(loc).path.startswith(SECTION_FILE):
            plain = loc.removesuffix(".gz")
            for url in (plain, plain + ".gz"):
                files[url] = sitemap_body(url)
                validate_urlset(files[url])  # sitemap.xsd + XHTML
    assert files, locs
    return files


def alternates_in(content: bytes) -> dict[str, dict[str, str]]:
    """Each <loc> of a urlset and its hreflang -> href, read with lxml."""
    root = etree.fromstring(content)
    found = {}
    for url in root.findall("sm:url", NS):
        loc = url.findtext("sm:loc", namespaces=NS) or ""
        assert loc not in found, f"{loc} listed twice"
        links = url.findall("xhtml:link", NS)
        assert all(link.get("rel") == "alternate" for link in links)
        found[loc] = {link.get("hreflang") or "": link.get("href") or "" for link in links}
        assert len(found[loc]) == len(links), f"{loc}: an hreflang twice"
    return found


def listed(site: Site) -> dict[str, dict[str, str]]:
    """The section's entries as its files list them; the plain and .gz files agree."""
    files = section_files(site)
    entries: dict[str, dict[str, str]] = {}
    for url, content in files.items():
        if url.endswith(".xml"):
            assert files[url + ".gz"] == content, url
            assert b'xmlns:xhtml="http://www.w3.org/1999/xhtml"' in content, url
            entries.update(alternates_in(content))
    return entries


def expected_entries(site: Site) -> dict[str, dict[str, str]]:
    """Each published entry once per language, each with all of the entry's alternates."""
    expected = {}
    for slug in SLUGS:
        links = site.links(slug)
        expected.update({links[code]: links for code in LANGUAGES})
    return expected


def test_every_file_validates_and_lists_every_language(site: Site) -> None:
    entries = listed(site)
    assert entries == expected_entries(site)
    urls = set(entries) | {href for links in entries.values() for href in links.values()}
    assert not [url for url in urls if "/en-us/" in url]


def test_ultimate_sitemap_parser_reads_the_alternates(site: Site) -> None:
    from usp import tree as usp_tree

    tree = usp_tree.sitemap_tree_for_homepage(site.home + "/")
    files = [
        sitemap
        for sitemap in tree.all_sitemaps()
        if urlsplit(sitemap.url).path.startswith(SECTION_FILE)
    ]
    assert files, [sitemap.url for sitemap in tree.all_sitemaps()]
    assert all(sitemap.url.endswith(".xml.gz" if site.gz_links else ".xml") for sitemap in files)
    pages = [page for sitemap in files for page in sitemap.pages]
    xml = listed(site)
    # Every page URL, each once.
    assert sorted(page.url for page in pages) == sorted(xml)
    # Each page's alternates, as (hreflang, url) pairs in document order.
    for page in pages:
        assert page.alternates is not None, page.url
        assert dict(page.alternates) == xml[page.url], page.url
        assert len(page.alternates) == len(xml[page.url]), page.url
    [fr_post_0] = [page for page in pages if page.url == f"{site.home}/fr/blog/post-0/"]
    assert dict(fr_post_0.alternates or []) == site.links("post-0")
    assert [code for code, _href in fr_post_0.alternates or []][:3] == LANGUAGES
    assert not [
        url
        for page in pages
        for url in [page.url, *(href for _code, href in page.alternates or [])]
        if "/en-us/" in url
    ]


def test_scrapy_sitemap_spider_follows_the_alternates(site: Site, tmp_path: Path) -> None:
    items = run_spider(SPIDER, tmp_path, home=f"{site.home}/", follow=SECTION_FILE)
    requested = {item["url"]: item for item in items}
    assert len(requested) == len(items), "a URL requested twice"
    xml = listed(site)
    every_language = set(xml) | {href for links in xml.values() for href in links.values()}
    assert set(requested) == every_language
    for slug in SLUGS:
        links = site.links(slug)
        for code in LANGUAGES:
            assert requested[links[code]]["status"] == 200, links[code]
        if "x-default" in links:
            # LocaleMiddleware sends the unprefixed URL to Scrapy's Accept-Language (en).
            x_default = requested[links["x-default"]]
            assert x_default["status"] == 302, x_default
            assert x_default["location"] in (links["en"], urlsplit(links["en"]).path)
    assert not [url for url in requested if "/en-us/" in url]
