from __future__ import annotations

import datetime
import gzip
from pathlib import Path
from typing import Any

import pytest
from django.core.cache import caches
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

import django_sitemapkit as sitemapkit
from django_sitemapkit._sites import site as default_site
from tests.testapp.models import Article, Tag
from tests.utils import all_urls, crawl, get_ok, parse_index, parse_urlset

pytestmark = pytest.mark.django_db

T0 = datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC)


@pytest.fixture
def site(sitemaps: Any) -> Any:
    @sitemapkit.register(Article)
    class ArticleSitemap(sitemapkit.ModelSitemap):
        limit = 5

    @sitemapkit.register(section="pages")
    class PageSitemap(sitemapkit.StaticViewSitemap):
        url_names = ["home", "about"]

    Article.objects.bulk_create(
        Article(slug=f"a{i}", updated_at=T0 + datetime.timedelta(hours=i)) for i in range(12)
    )
    return sitemaps


def all_paths(client: Client) -> list[str]:
    return ["/sitemap.xml", *crawl(client)]


def test_index_and_pages(site: Any, client: Client) -> None:
    response = client.get("/sitemap.xml")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/xml; charset=utf-8"
    index = parse_index(response.content)
    assert [loc for loc, _ in index] == [
        "https://www.example.com/sitemap-testapp-article-1.xml",
        "https://www.example.com/sitemap-testapp-article-2.xml",
        "https://www.example.com/sitemap-testapp-article-3.xml",
        "https://www.example.com/sitemap-pages-1.xml",
    ]
    assert index[0][1] == "2026-01-01T04:00:00+00:00"
    assert index[2][1] == "2026-01-01T11:00:00+00:00"
    assert len(all_urls(client)) == 14


@pytest.mark.django_db
def test_the_live_index_dates_each_page_by_its_newest_row(
    site: Any, client: Client, settings: Any
) -> None:
    settings.SITEMAPKIT = {**settings.SITEMAPKIT, "CACHE_TIMEOUT": 0}
    Article.objects.bulk_create(
        Article(slug=f"b{i}", updated_at=T0 - datetime.timedelta(days=i)) for i in range(40)
    )
    index = get_ok(client, "/sitemap.xml")
    # 52 articles, 5 a file in key order, each file dated by its newest row.
    lastmods = list(Article.objects.order_by("pk").values_list("updated_at", flat=True))
    expected = [max(lastmods[start : start + 5]).isoformat() for start in range(0, 52, 5)]
    assert [lastmod for _loc, lastmod in parse_index(index)[:-1]] == expected


def test_gzip_files_decompress_to_the_plain_bytes(site: Any, client: Client) -> None:
    for path in all_paths(client):
        plain = client.get(path)
        packed = client.get(path + ".gz")
        assert packed.status_code == 200
        assert packed["Content-Type"] == "application/gzip"
        assert not packed.has_header("Content-Encoding")
        assert gzip.decompress(packed.content) == plain.content
        assert packed["ETag"] != plain["ETag"]


GZIP_MIDDLEWARE = "django.middleware.gzip.GZipMiddleware"
# GZipMiddleware alone, outermost, innermost, and where Django's cache
# middleware needs it (after UpdateCacheMiddleware, before FetchFromCacheMiddleware).
MIDDLEWARE_ORDERS = {
    "alone": [GZIP_MIDDLEWARE],
    "outermost": [
        GZIP_MIDDLEWARE,
        "django.middleware.common.CommonMiddleware",
        "django.middleware.http.ConditionalGetMiddleware",
    ],
    "innermost": [
        "django.middleware.common.CommonMiddleware",
        "django.middleware.http.ConditionalGetMiddleware",
        GZIP_MIDDLEWARE,
    ],
    "cache-middleware": [
        "django.middleware.cache.UpdateCacheMiddleware",
        GZIP_MIDDLEWARE,
        "django.middleware.cache.FetchFromCacheMiddleware",
    ],
}


@pytest.fixture
def large_site(sitemaps: Any) -> list[str]:
    """Files big enough that GZipMiddleware would compress their gzip again.

    Compressing a small .gz again makes it longer, and the middleware then
    leaves it alone; a .gz of a few hundred entries shrinks a second time.
    Returns the paths of a big index, two big pages and a small one.
    """

    @sitemapkit.register(Article)
    class ArticleSitemap(sitemapkit.ModelSitemap):
        limit = 300

    # One tag per page: an index of 250 entries.
    @sitemapkit.register(Tag)
    class TagSitemap(sitemapkit.ModelSitemap):
        limit = 1

    Article.objects.bulk_create(
        Article(slug=f"a{i}", updated_at=T0 + datetime.timedelta(minutes=i)) for i in range(600)
    )
    Tag.objects.bulk_create(Tag(slug=f"t{i}") for i in range(248))
    return [
        "/sitemap.xml",
        "/sitemap-testapp-article-1.xml",
        "/sitemap-testapp-article-2.xml",
        "/sitemap-testapp-tag-248.xml",
    ]


@pytest.fixture(params=["rendered", "built"])
def served_from(request: Any, large_site: list[str], settings: Any, tmp_path: Path) -> list[str]:
    """The large site's files rendered per request, or read from a published build."""
    built = request.param == "built"
    settings.SITEMAPKIT = {
        **settings.SITEMAPKIT,
        "BUILD_DIR": str(tmp_path / "sitemaps"),
        "SERVE_BUILT_FILES": built,
    }
    if built:
        default_site.builder().run(None)
    return large_site


def assert_raw_gzip_file(response: Any, plain: bytes, status: int = 200) -> None:
    """The response is the .gz file itself: no transport coding, gunzipped once to ``plain``."""
    assert response.status_code == status
    assert not response.has_header("Content-Encoding")
    assert "no-transform" in response["Cache-Control"]
    if status == 200:
        assert gzip.decompress(response.content) == plain


@pytest.mark.parametrize("middleware", MIDDLEWARE_ORDERS.values(), ids=MIDDLEWARE_ORDERS)
def test_gzip_files_are_never_compressed_again(
    served_from: list[str], client: Client, settings: Any, middleware: list[str]
) -> None:
    expected = {path: get_ok(client, path) for path in served_from}
    settings.MIDDLEWARE = middleware
    # A client loads the middleware on its first request: this one has made none.
    client = Client()
    caches["default"].clear()
    gzip_ok = {"accept-encoding": "gzip, deflate, br"}
    for path, plain in expected.items():
        first = client.get(path + ".gz", headers=gzip_ok)
        assert_raw_gzip_file(first, plain)
        assert_raw_gzip_file(client.get(path + ".gz", headers=gzip_ok), plain)
        # If-Modified-Since alone validates only a published build's file.
        built = settings.SITEMAPKIT["SERVE_BUILT_FILES"]
        validators = {
            "if-none-match": (first["ETag"], 304),
            "if-modified-since": (first.get("Last-Modified"), 304 if built else 200),
        }
        for name, (value, status) in validators.items():
            if value is None:
                continue
            response = client.get(path + ".gz", headers={**gzip_ok, name: value})
            assert_raw_gzip_file(response, plain, status=status)
        # The plain file may be compressed in transit (the proof that the
        # middleware is active), except when it is too small to gain from it.
        xml = client.get(path, headers=gzip_ok)
        if len(plain) > 1000:
            assert xml["Content-Encoding"] == "gzip", path
        body = gzip.decompress(xml.content) if xml.has_header("Content-Encoding") else xml.content
        assert body == plain
        assert "no-transform" not in xml.get("Cache-Control", "")


def test_headers_and_conditional_get(site: Any, client: Client) -> None:
    for path in ["/sitemap.xml", "/sitemap-testapp-article-2.xml", "/sitemap-pages-1.xml.gz"]:
        response = client.get(path)
        assert response["X-Robots-Tag"] == "noindex"
        etag = response["ETag"]
        assert etag.startswith('"') and not etag.startswith("W/")
        assert client.get(path, headers={"if-none-match": etag}).status_code == 304
        assert client.get(path, headers={"if-none-match": '"other"'}).status_code == 200
        # A live file's Last-Modified is information: alone it never answers 304
        # (see test_stale_304); beside a matching ETag it is ignored.
        last_modified = response["Last-Modified"]
        again = client.get(path, headers={"if-modified-since": last_modified})
        assert again.status_code == 200 and again.content == response.content
        both = {"if-none-match": etag, "if-modified-since": last_modified}
        assert client.get(path, headers=both).status_code == 304
        head = client.head(path)
        assert head.status_code == 200
        assert head["ETag"] == etag
        assert head.content == b""


def test_page_last_modified_is_its_newest_lastmod(site: Any, client: Client) -> None:
    client.get("/sitemap.xml")
    response = client.get("/sitemap-testapp-article-2.xml")
    assert response["Last-Modified"] == "Thu, 01 Jan 2026 09:00:00 GMT"


def test_x_robots_tag_configurable(site: Any, client: Client, settings: Any) -> None:
    settings.SITEMAPKIT = {**settings.SITEMAPKIT, "X_ROBOTS_TAG": None}
    assert not client.get("/sitemap.xml").has_header("X-Robots-Tag")
    settings.SITEMAPKIT = {**settings.SITEMAPKIT, "X_ROBOTS_TAG": "noindex, nofollow"}
    assert client.get("/sitemap.xml")["X-Robots-Tag"] == "noindex, nofollow"


@pytest.mark.parametrize(
    "path",
    [
        "/sitemap-nosuch-1.xml",
        "/sitemap-testapp-article-0.xml",
        "/sitemap-testapp-article-4.xml",
        "/sitemap-testapp-article-999999999.xml",
        "/sitemap-testapp-article-x.xml",
        "/sitemap-testapp-article-01.xml",
        "/sitemap-testapp-article-1.xml.zip",
        "/sitemap-Testapp-article-1.xml",
        "/sitemap-pages-2.xml.gz",
    ],
)
def test_unknown_files_404(site: Any, client: Client, path: str) -> None:
    client.get("/sitemap.xml")
    assert client.get(path).status_code == 404


def test_post_is_refused(site: Any, client: Client) -> None:
    assert client.post("/sitemap.xml").status_code == 405


def test_host_header_is_ignored(site: Any, client: Client) -> None:
    response = client.get("/sitemap.xml", headers={"host": "example.com"})
    assert b"https://www.example.com/" in response.content
    assert b"//example.com" not in response.content


def test_request_host_when_asked(site: Any, client: Client, settings: Any) -> None:
    settings.SITEMAPKIT = {"USE_REQUEST_HOST": True}
    a = client.get("/sitemap.xml", headers={"host": "example.com"})
    b = client.get("/sitemap.xml", headers={"host": "www.example.com"})
    assert b"http://example.com/sitemap-" in a.content
    assert b"http://www.example.com/sitemap-" in b.content
    assert client.get("/sitemap.xml", headers={"host": "evil.test"}).status_code == 400


def test_cached_files_are_served_without_queries(site: Any, client: Client) -> None:
    paths = all_paths(client)
    for path in paths:
        first = client.get(path)
        with CaptureQueriesContext(connection) as queries:
            second = client.get(path)
        assert len(queries) == 0, path
        assert second.content == first.content


def test_a_save_invalidates(
    site: Any, client: Client, django_capture_on_commit_callbacks: Any
) -> None:
    client.get("/sitemap.xml")
    client.get("/sitemap-testapp-article-2.xml")
    article = Article.objects.get(slug="a7")
    with django_capture_on_commit_callbacks(execute=True):
        article.slug = "renamed"
        article.updated_at = T0 + datetime.timedelta(days=9)
        article.save()
    page = parse_urlset(client.get("/sitemap-testapp-article-2.xml").content)
    assert "https://www.example.com/articles/renamed/" in [u.loc for u in page]
    index = dict(parse_index(client.get("/sitemap.xml").content))
    assert (
        index["https://www.example.com/sitemap-testapp-article-2.xml"]
        == "2026-01-10T00:00:00+00:00"
    )
    with django_capture_on_commit_callbacks(execute=True):
        article.delete()
    page = parse_urlset(client.get("/sitemap-testapp-article-2.xml").content)
    assert "https://www.example.com/articles/renamed/" not in [u.loc for u in page]


def test_invalidation_waits_for_the_commit(
    site: Any, client: Client, django_capture_on_commit_callbacks: Any
) -> None:
    client.get("/sitemap.xml")
    before = client.get("/sitemap-testapp-article-1.xml").content
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        Article.objects.filter(slug="a0").update(slug="zzz")
        Article.objects.get(slug="zzz").save()
        # not committed yet: the cached page is still served
        assert client.get("/sitemap-testapp-article-1.xml").content == before
    for callback in callbacks:
        callback()
    assert b"/articles/zzz/" in client.get("/sitemap-testapp-article-1.xml").content


def test_bodies_the_cache_refuses_are_still_served(
    site: Any, client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = caches["default"]

    real_set = cache.set

    def refuse_large(key: str, value: Any, *args: Any, **kwargs: Any) -> None:
        # Like memcached's item size limit, scaled down.
        if len(repr(value)) > 200:
            raise ValueError("value too large")
        real_set(key, value, *args, **kwargs)

    monkeypatch.setattr(cache, "set", refuse_large)
    response = client.get("/sitemap-testapp-article-1.xml")
    assert response.status_code == 200
    assert len(parse_urlset(response.content)) == 5


def test_caching_off(site: Any, client: Client, settings: Any) -> None:
    settings.SITEMAPKIT = {**settings.SITEMAPKIT, "CACHE_TIMEOUT": 0}
    client.get("/sitemap.xml")
    with CaptureQueriesContext(connection) as queries:
        client.get("/sitemap.xml")
    assert len(queries) > 0
