from __future__ import annotations

import gzip
from typing import Any

import pytest
from django.urls import set_script_prefix

import django_sitemapkit as sitemapkit
from django_sitemapkit._engine.pages import PageNotFound
from django_sitemapkit._engine.rendering import (
    SectionNotFound,
    index_path,
    page_path,
    render_index,
    render_page,
)
from django_sitemapkit._protocol.writer import IndexFull
from django_sitemapkit._sites import site
from tests.utils import parse_index, parse_urlset

BASE = "https://www.example.com"


def register_list(count: int, *, limit: int, section: str = "list") -> None:
    class ListSitemap(sitemapkit.Sitemap):
        def items(self) -> list[int]:
            return list(range(count))

        def location(self, item: int) -> str:
            return f"/item/{item}/"

    ListSitemap.limit = limit
    sitemapkit.register(section=section)(ListSitemap)


def test_index_fails_clearly_past_50000_files(sitemaps: Any) -> None:
    register_list(50_001, limit=1)
    with pytest.raises(IndexFull, match=r"more than 50,000 files"):
        render_index(base_url=BASE, sitemaps=site)


def test_index_of_exactly_50000_files_is_valid(sitemaps: Any) -> None:
    register_list(50_000, limit=1)
    assert len(parse_index(render_index(base_url=BASE, sitemaps=site).content)) == 50_000


def test_byte_limit_at_full_size_with_2048_character_urls(sitemaps: Any) -> None:
    # 26,000 URLs of 2,048 characters make 54 MB: more than one file may hold.
    class LongSitemap(sitemapkit.Sitemap):
        def items(self) -> range:
            return range(26_000)

        def location(self, item: int) -> str:
            head = f"/{item}/"
            return head + "x" * (2048 - len(BASE) - len(head))

    sitemapkit.register(section="long")(LongSitemap)
    index = parse_index(render_index(base_url=BASE, sitemaps=site).content)
    assert len(index) == 2
    first = render_page("long", 1, base_url=BASE, sitemaps=site)
    second = render_page("long", 2, base_url=BASE, sitemaps=site)
    assert len(first.content) <= 52_428_800 < len(first.content) + 2100
    assert first.url_count + second.url_count == 26_000
    assert all(len(u.loc) == 2048 for u in parse_urlset(second.content))


def test_gzipped_is_reproducible_raw_gzip(sitemaps: Any) -> None:
    register_list(3, limit=10)
    plain = render_page("list", 1, base_url=BASE, sitemaps=site)
    packed = plain.gzipped()
    assert packed.content == plain.gzipped().content
    assert gzip.decompress(packed.content) == plain.content
    assert packed.etag != plain.etag


def test_unknown_section_and_page(sitemaps: Any) -> None:
    register_list(3, limit=10)
    with pytest.raises(SectionNotFound):
        render_page("nope", 1, base_url=BASE, sitemaps=site)
    with pytest.raises(PageNotFound):
        render_page("list", 2, base_url=BASE, sitemaps=site)


def test_base_url_prefix_and_directory(sitemaps: Any) -> None:
    register_list(2, limit=10)
    index = parse_index(
        render_index(base_url="https://www.example.com/shop", sitemaps=site).content
    )
    assert index[0][0] == "https://www.example.com/shop/sitemap-list-1.xml"
    urls = parse_urlset(
        render_page("list", 1, base_url="https://www.example.com/shop", sitemaps=site).content
    )
    assert [u.loc for u in urls] == [
        "https://www.example.com/shop/item/0/",
        "https://www.example.com/shop/item/1/",
    ]


@pytest.mark.urls("tests.urls_without_sitemapkit")
def test_unrouted_files_lie_at_the_root_under_the_views_names() -> None:
    assert index_path() == "/sitemap.xml"
    assert page_path("blog", 12) == "/sitemap-blog-12.xml"
    assert page_path("blog", 12, gz=True) == "/sitemap-blog-12.xml.gz"


@pytest.mark.urls("tests.urls_without_sitemapkit")
def test_unrouted_files_follow_the_script_prefix() -> None:
    # Where Django knows the site's prefix, reverse() would carry it too.
    set_script_prefix("/app/")
    try:
        assert index_path() == "/app/sitemap.xml"
        assert page_path("blog", 1, gz=True) == "/app/sitemap-blog-1.xml.gz"
    finally:
        set_script_prefix("/")


@pytest.mark.urls("tests.urls_sitemapkit_in_directory")
def test_routed_files_are_where_the_views_are() -> None:
    assert index_path() == "/sitemapkit/sitemap.xml"
    assert page_path("blog", 2) == "/sitemapkit/sitemap-blog-2.xml"


def test_unrouted_index_is_the_same_bytes(sitemaps: Any, settings: Any) -> None:
    register_list(30, limit=10)
    routed = render_index(base_url=BASE, sitemaps=site)
    page = render_page("list", 2, base_url=BASE, sitemaps=site)
    settings.ROOT_URLCONF = "tests.urls_without_sitemapkit"
    assert render_index(base_url=BASE, sitemaps=site).content == routed.content
    assert render_page("list", 2, base_url=BASE, sitemaps=site).content == page.content
