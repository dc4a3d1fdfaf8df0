"""Several sites from one project (``SITEMAPKIT["SITES"]``): views per host, builds and robots per site.

Two sites, two hosts: ``articles`` is shared and narrowed per site
(``for_site()``), ``products`` is the shop's only, ``tags`` the blog's only.
"""

from __future__ import annotations

import datetime
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection
from django.test import Client, TestCase
from django.test.utils import CaptureQueriesContext

import django_sitemapkit as sitemapkit
from django_sitemapkit._building.builder import BuildError
from tests.s3 import use_new_bucket
from tests.testapp.models import Article, Product, Tag
from tests.utils import parse_index, parse_urlset, path_of

pytestmark = pytest.mark.django_db

T0 = datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC)
SHOP = "https://shop.example.com"
BLOG = "https://blog.example.com"
HOSTS = {"shop": "shop.example.com", "blog": "blog.example.com"}

SHOP_URLS = {
    f"{SHOP}/articles/shop-1/",
    f"{SHOP}/articles/shop-2/",
    f"{SHOP}/articles/shop-3/",
    f"{SHOP}/products/p1",
    f"{SHOP}/products/p2",
}
BLOG_URLS = {f"{BLOG}/articles/blog-1/", f"{BLOG}/tags/t1/", f"{BLOG}/tags/t2/"}


class ArticleSitemap(sitemapkit.ModelSitemap):
    """Shared by both sites; each lists its own articles, two to a page."""

    limit = 2

    def for_site(self, items: Any, site: sitemapkit.SiteConfig) -> Any:
        return items.filter(slug__startswith=f"{site.name}-")


class ProductSitemap(sitemapkit.ModelSitemap):
    url_name = "product-detail"
    url_kwargs = {"slug": "slug"}


@pytest.fixture
def two_sites(sitemaps: Any, settings: Any, tmp_path: Path) -> Path:
    settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, *HOSTS.values(), "other.example.com"]
    settings.SITEMAPKIT = {
        "SITES": {
            "shop": {
                "BASE_URL": SHOP,
                "SECTIONS": ["articles", "products"],
                "ROBOTS_TXT_PATH": str(tmp_path / "shop-robots.txt"),
            },
            "blog": {
                "BASE_URL": BLOG,
                "SECTIONS": ["articles", "tags"],
                "ROBOTS_TXT_PATH": str(tmp_path / "blog-robots.txt"),
            },
        },
        "BUILD_DIR": str(tmp_path / "sitemaps"),
    }
    sitemapkit.register(Article, ArticleSitemap, section="articles")
    sitemapkit.register(Product, ProductSitemap, section="products")
    sitemapkit.register(Tag, section="tags")
    Article.objects.bulk_create(
        Article(slug=slug, updated_at=T0)
        for slug in ["shop-1", "shop-2", "shop-3", "blog-1", "draft-1"]
    )
    Product.objects.bulk_create(Product(slug=s, updated_at=T0) for s in ["p1", "p2"])
    Tag.objects.bulk_create(Tag(slug=s) for s in ["t1", "t2"])
    return tmp_path / "sitemaps"


def get(client: Client, site: str, path: str) -> bytes:
    response = client.get(path, HTTP_HOST=HOSTS[site])
    assert response.status_code == 200, (site, path, response.status_code)
    return bytes(response.content)


def crawl(client: Client, site: str) -> tuple[list[str], set[str]]:
    """The index's file URLs, and every URL the files list, as that host serves them."""
    files = [loc for loc, _lastmod in parse_index(get(client, site, "/sitemap.xml"))]
    urls = {url.loc for loc in files for url in parse_urlset(get(client, site, path_of(loc)))}
    return files, urls


def test_each_host_serves_only_its_own_files_and_urls(client: Client, two_sites: Path) -> None:
    # Twice: the second round is served from the cache, which must keep the
    # sites apart too.
    for _round in range(2):
        shop_files, shop_urls = crawl(client, "shop")
        blog_files, blog_urls = crawl(client, "blog")
        assert shop_files == [
            f"{SHOP}/sitemap-articles-1.xml",
            f"{SHOP}/sitemap-articles-2.xml",
            f"{SHOP}/sitemap-products-1.xml",
        ]
        assert blog_files == [f"{BLOG}/sitemap-articles-1.xml", f"{BLOG}/sitemap-tags-1.xml"]
        assert shop_urls == SHOP_URLS
        assert blog_urls == BLOG_URLS


def test_a_site_does_not_serve_another_sites_section(client: Client, two_sites: Path) -> None:
    get(client, "shop", "/sitemap-products-1.xml")
    for path in ("/sitemap-products-1.xml", "/sitemap-products-1.xml.gz"):
        assert client.get(path, HTTP_HOST=HOSTS["blog"]).status_code == 404
    assert client.get("/sitemap-tags-1.xml", HTTP_HOST=HOSTS["shop"]).status_code == 404
    # The blog's articles have one page; the shop's second is not the blog's.
    get(client, "shop", "/sitemap-articles-2.xml")
    assert client.get("/sitemap-articles-2.xml", HTTP_HOST=HOSTS["blog"]).status_code == 404


@pytest.mark.parametrize(
    "path", ["/sitemap.xml", "/sitemap.xml.gz", "/sitemap-articles-1.xml", "/robots.txt"]
)
def test_an_unknown_host_is_refused(client: Client, two_sites: Path, path: str) -> None:
    get(client, "shop", "/sitemap.xml")  # cached for the shop
    assert client.get(path, HTTP_HOST="other.example.com").status_code == 404
    # A host outside ALLOWED_HOSTS: Django's own 400.
    assert client.get(path, HTTP_HOST="evil.example.net").status_code == 400


def test_the_sites_share_nothing_but_the_section_names(client: Client, two_sites: Path) -> None:
    # Page boundaries are recorded per site where a section narrows its rows.
    Article.objects.bulk_create(Article(slug=f"blog-{n}", updated_at=T0) for n in range(2, 6))
    _files, urls = crawl(client, "blog")
    assert {u for u in urls if "/articles/" in u} == {
        f"{BLOG}/articles/blog-{n}/" for n in range(1, 6)
    }
    assert crawl(client, "shop")[1] == SHOP_URLS


def build_output(*args: str) -> str:
    out = StringIO()
    call_command("sitemapkit_build", *args, "--no-progress", stdout=out, stderr=StringIO())
    return out.getvalue()


def built_urls(folder: Path) -> tuple[list[str], set[str]]:
    current = folder / "current"
    files = [loc for loc, _ in parse_index((current / "sitemap.xml").read_bytes())]
    urls = {
        url.loc
        for loc in files
        for url in parse_urlset((current / path_of(loc).lstrip("/")).read_bytes())
    }
    return files, urls


def test_a_build_writes_one_set_per_site(client: Client, two_sites: Path) -> None:
    output = build_output()
    assert "Site 'shop': " in output
    assert "Site 'blog': " in output
    assert built_urls(two_sites / "shop")[1] == SHOP_URLS
    assert built_urls(two_sites / "blog")[1] == BLOG_URLS
    # The views now serve each site's build, byte for byte.
    for name in ("shop", "blog"):
        current = two_sites / name / "current"
        assert get(client, name, "/sitemap.xml") == (current / "sitemap.xml").read_bytes()
        assert (
            get(client, name, "/sitemap-articles-1.xml")
            == (current / "sitemap-articles-1.xml").read_bytes()
        )
    assert client.get("/sitemap.xml", HTTP_HOST="other.example.com").status_code == 404


def test_site_builds_only_the_named_site(two_sites: Path) -> None:
    output = build_output("--site", "blog")
    assert "Site" not in output  # one site built: no label
    assert (two_sites / "blog" / "current" / "sitemap.xml").is_file()
    assert not (two_sites / "shop").exists()
    with pytest.raises(CommandError, match=r"No site named 'nope'.*configured: shop, blog"):
        build_output("--site", "nope")


def test_the_python_api_builds_one_named_site(two_sites: Path) -> None:
    result = sitemapkit.build(site="shop")
    assert result.urls == len(SHOP_URLS)
    with pytest.raises(BuildError, match=r"several sites; name the one to build: shop, blog"):
        sitemapkit.build()


def test_a_save_has_each_site_serve_the_section_live_until_its_own_build(
    client: Client, two_sites: Path
) -> None:
    build_output()
    article = Article.objects.get(slug="shop-3")
    article.updated_at = T0 + datetime.timedelta(days=1)
    with TestCase.captureOnCommitCallbacks(execute=True):
        article.save()
    folder = two_sites
    page = "/sitemap-articles-2.xml"
    assert b"2026-01-02" in get(client, "shop", page)
    assert b"2026-01-02" not in (folder / "shop" / "current" / page[1:]).read_bytes()
    sitemapkit.build(site="shop")
    assert get(client, "shop", page) == (folder / "shop" / "current" / page[1:]).read_bytes()
    assert b"2026-01-02" in get(client, "shop", page)
    # The blog lists the section too, and has not been built since: rendered live.
    with CaptureQueriesContext(connection) as queries:
        get(client, "blog", "/sitemap.xml")
    assert queries.captured_queries
    sitemapkit.build(site="blog")
    with CaptureQueriesContext(connection) as queries:
        served = get(client, "blog", "/sitemap.xml")
    assert not queries.captured_queries
    assert served == (folder / "blog" / "current" / "sitemap.xml").read_bytes()


def test_robots_lists_each_sites_index_in_its_own_file(
    client: Client, two_sites: Path, tmp_path: Path
) -> None:
    out = StringIO()
    call_command("sitemapkit_robots", stdout=out)
    assert (tmp_path / "shop-robots.txt").read_text() == f"Sitemap: {SHOP}/sitemap.xml\n"
    assert (tmp_path / "blog-robots.txt").read_text() == f"Sitemap: {BLOG}/sitemap.xml\n"
    assert "Site 'shop': Added" in out.getvalue()
    with pytest.raises(CommandError, match=r"--file and --base-url are one site's"):
        call_command("sitemapkit_robots", "--file", str(tmp_path / "x.txt"), stdout=StringIO())
    # The robots.txt view names the host's own index.
    body = get(client, "blog", "/robots.txt").decode()
    assert f"Sitemap: {BLOG}/sitemap.xml" in body


def test_on_s3_each_site_publishes_under_its_own_prefix(
    client: Client, two_sites: Path, settings: Any, s3_endpoint: str
) -> None:
    s3, bucket = use_new_bucket(settings, s3_endpoint)
    build_output()
    keys = {item["Key"] for item in s3.list_objects_v2(Bucket=bucket)["Contents"]}
    assert {"shop/sitemap.xml", "blog/sitemap.xml"} <= keys
    assert {"shop/sitemap-products-1.xml", "blog/sitemap-tags-1.xml"} <= keys
    assert not {k for k in keys if "/" not in k}  # nothing at the bucket's root
    assert not {k for k in keys if k.startswith("blog/sitemap-products")}
    for name in ("shop", "blog"):
        stored = s3.get_object(Bucket=bucket, Key=f"{name}/sitemap.xml")["Body"].read()
        assert get(client, name, "/sitemap.xml") == stored
