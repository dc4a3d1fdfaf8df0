"""``/sitemap.xsl``: the stylesheet every served file references, from the site's own origin."""

from __future__ import annotations

import datetime
import gzip
from typing import Any

import pytest
from django.test import Client, override_settings

import django_sitemapkit as sitemapkit
from django_sitemapkit.protocol.stylesheet import stylesheet_bytes
from tests.testapp.models import Article
from tests.utils import crawl, parse_index

pytestmark = pytest.mark.django_db

T0 = datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC)
DECLARATION = b'<?xml version="1.0" encoding="UTF-8"?>\n'
INSTRUCTION = b'<?xml-stylesheet type="text/xsl" href="/sitemap.xsl"?>\n'


@pytest.fixture
def site(sitemaps: Any, settings: Any) -> Any:
    settings.SITEMAPKIT = {**settings.SITEMAPKIT, "SERVE_BUILT_FILES": False}

    @sitemapkit.register(Article)
    class ArticleSitemap(sitemapkit.ModelSitemap):
        limit = 5

    Article.objects.bulk_create(Article(slug=f"a{i}", updated_at=T0) for i in range(12))
    return sitemaps


def every_file(client: Client) -> dict[str, bytes]:
    paths = ["/sitemap.xml", *crawl(client)]
    return {path: client.get(path).content for path in paths}


def test_the_stylesheet_is_served_with_validators_and_cache_headers(client: Client) -> None:
    response = client.get("/sitemap.xsl")
    assert response.status_code == 200
    assert response["Content-Type"] == "text/xsl; charset=utf-8"
    assert response.content == stylesheet_bytes()
    assert response["Cache-Control"] == "public, max-age=86400"
    assert response["X-Robots-Tag"] == "noindex"
    assert response["Last-Modified"].endswith(" GMT")
    again = client.get("/sitemap.xsl", headers={"if-none-match": response["ETag"]})
    assert again.status_code == 304 and again.content == b""
    since = client.get("/sitemap.xsl", headers={"if-modified-since": response["Last-Modified"]})
    assert since.status_code == 304
    assert client.head("/sitemap.xsl").status_code == 200
    assert client.post("/sitemap.xsl").status_code == 405


def test_every_file_references_it_and_still_validates(
    site: Any, client: Client, xsd_validate_index: Any, xsd_validate_urlset: Any
) -> None:
    files = every_file(client)
    assert len(files) == 4
    for path, content in files.items():
        assert content.startswith(DECLARATION + INSTRUCTION), path
        assert content.count(b"xml-stylesheet") == 1
        (xsd_validate_index if path == "/sitemap.xml" else xsd_validate_urlset)(content)
        assert gzip.decompress(client.get(path + ".gz").content) == content


def test_turned_off_the_files_are_what_they_were(site: Any, client: Client, settings: Any) -> None:
    styled = every_file(client)
    # Cached (the default locmem cache, or Redis): never served under the other value.
    settings.SITEMAPKIT = {**settings.SITEMAPKIT, "STYLESHEET": False}
    plain = every_file(client)
    assert plain == {path: content.replace(INSTRUCTION, b"", 1) for path, content in styled.items()}
    assert all(content.startswith(DECLARATION + b"<") for content in plain.values())
    assert b"xml-stylesheet" not in b"".join(plain.values())


@override_settings(ROOT_URLCONF="tests.urls_sitemapkit_in_directory")
def test_in_a_directory_the_href_is_beside_the_index(sitemaps: Any, client: Client) -> None:
    @sitemapkit.register(section="help")
    class HelpSitemap(sitemapkit.StaticViewSitemap):
        url_names = ["sitemapkit-help"]

    index = client.get("/sitemapkit/sitemap.xml").content
    href = b"/sitemapkit/sitemap.xsl"
    assert index.startswith(DECLARATION + INSTRUCTION.replace(b"/sitemap.xsl", href))
    [(loc, _)] = parse_index(index)
    page = client.get(loc.removeprefix("https://www.example.com")).content
    assert page.startswith(DECLARATION + INSTRUCTION.replace(b"/sitemap.xsl", href))
    assert client.get(href.decode()).content == stylesheet_bytes()
    assert client.get("/sitemap.xsl").status_code == 404
