"""An empty site answers /sitemap.xml with a valid file; no index names a file that is not 200.

An empty ``<sitemapindex>`` or ``<urlset>`` fails the schemas (one entry is
required), so a site with nothing to list yet serves a ``<urlset>`` of its home
page (rendering.empty_site_file). A page whose every item is skipped has no file: a build
leaves it out of its index, the live index probes each page for an entry and
names it neither, and the page answers 404.
"""

from __future__ import annotations

import datetime
import logging
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from django.test import Client
from pytest_django.live_server_helper import LiveServer

import django_sitemapkit as sitemapkit
from django_sitemapkit._engine.sections import PROBE_ROWS
from django_sitemapkit._publishing.selection import published_file
from tests.stories import StorySitemap
from tests.testapp.models import Story, Tag
from tests.utils import parse_index, parse_urlset, path_of
from tests.validation.builds import validate, xsd_args
from tests.xsd import validate_urlset

HOME = "https://www.example.com/"


@pytest.fixture(params=[False, True], ids=["live", "built"])
def built(request: Any, settings: Any, tmp_path: Path) -> bool:
    settings.SITEMAPKIT = {
        **settings.SITEMAPKIT,
        "BUILD_DIR": str(tmp_path),
        "SERVE_BUILT_FILES": request.param,
    }
    return bool(request.param)


def publish(built: bool) -> None:
    if built:
        result = sitemapkit.build()
        assert result.published


def register_nothing() -> None:
    sitemapkit.register_sitemaps({})


def register_an_empty_section() -> None:
    sitemapkit.register(Tag)


def register_all_skipped() -> None:
    @sitemapkit.register(section="broken")
    class Broken(sitemapkit.Sitemap):
        def items(self) -> list[str]:
            return ["a", "b"]

        def location(self, item: str) -> str:
            return "javascript:alert(1)"


EMPTY_SITES: dict[str, Callable[[], None]] = {
    "no-section": register_nothing,
    "no-rows": register_an_empty_section,
    "all-skipped": register_all_skipped,
}


@pytest.mark.django_db
@pytest.mark.parametrize("empty", EMPTY_SITES)
def test_an_empty_site_serves_a_valid_sitemap_of_its_home_page(
    sitemaps: Any, client: Client, built: bool, empty: str
) -> None:
    EMPTY_SITES[empty]()
    publish(built)
    for path in ["/sitemap.xml", "/sitemap.xml.gz"]:
        response = client.get(path)
        assert response.status_code == 200, path
    response = client.get("/sitemap.xml")
    assert response["Content-Type"] == "application/xml; charset=utf-8"
    validate_urlset(response.content)
    assert [url.loc for url in parse_urlset(response.content)] == [HOME]
    # Undated: no Last-Modified, and the ETag validates only these bytes.
    assert not response.has_header("Last-Modified")
    again = client.get("/sitemap.xml", headers={"if-none-match": response["ETag"]})
    assert again.status_code == 304


@pytest.mark.django_db
def test_the_site_fills_after_being_empty(sitemaps: Any, client: Client, built: bool) -> None:
    sitemapkit.register(Tag)
    publish(built)
    empty = client.get("/sitemap.xml")
    Tag.objects.create(slug="first")
    sitemaps.invalidate()
    publish(built)
    response = client.get("/sitemap.xml", headers={"if-none-match": empty["ETag"]})
    assert response.status_code == 200
    [(loc, _lastmod)] = parse_index(response.content)
    assert client.get(path_of(loc)).status_code == 200


def published_pages() -> list[str]:
    """The files the published build's index names; each is in the published set."""
    index = published_file("sitemap.xml")
    assert index is not None
    names = [path_of(loc).lstrip("/") for loc, _lastmod in parse_index(index[0])]
    for name in names:
        assert published_file(name) is not None
    return names


def named_files(client: Client) -> dict[str, list[str]]:
    """Each file the index names, with the URLs it lists (each answers 200 and validates)."""
    index = client.get("/sitemap.xml")
    assert index.status_code == 200
    named = {}
    for loc, _lastmod in parse_index(index.content):
        response = client.get(path_of(loc))
        assert response.status_code == 200, loc
        named[path_of(loc)] = [url.loc for url in parse_urlset(response.content)]
    return named


def served_index_is_the_built_one(client: Client, built: bool) -> None:
    """When built, the served index is the published one (no live render: the build is
    current), and names only published files."""
    if built:
        index = published_file("sitemap.xml")
        assert index is not None
        assert client.get("/sitemap.xml").content == bytes(index[0])
        published_pages()


@pytest.mark.django_db
def test_no_index_names_a_file_that_does_not_answer(
    sitemaps: Any, client: Client, built: bool
) -> None:
    """Rows 1-2 (page 1) have no valid location, rows 3-4 (page 2) do."""

    @sitemapkit.register(Tag)
    class TagSitemap(sitemapkit.ModelSitemap):
        limit = 2

        def location(self, item: Tag) -> str:
            return f"/tags/{item.slug}/" if item.slug.startswith("ok") else "mailto:x@example.com"

    Tag.objects.bulk_create(Tag(slug=slug) for slug in ["bad-1", "bad-2", "ok-3", "ok-4"])
    publish(built)
    listed = ["https://www.example.com/tags/ok-3/", "https://www.example.com/tags/ok-4/"]
    served_index_is_the_built_one(client, built)
    assert named_files(client) == {"/sitemap-testapp-tag-2.xml": listed}
    assert client.get("/sitemap-testapp-tag-1.xml").status_code == 404


@pytest.mark.django_db
def test_a_querysets_all_skipped_page_is_named_by_no_index(
    sitemaps: Any, client: Client, built: bool
) -> None:
    """The same, for a section whose items() is a QuerySet (paged as contrib pages it)."""

    @sitemapkit.register(section="tags")
    class Tags(sitemapkit.Sitemap):
        limit = 2

        def items(self) -> Any:
            return Tag.objects.order_by("slug")

        def location(self, item: Tag) -> str:
            return f"/tags/{item.slug}/" if item.slug.startswith("ok") else "mailto:x@example.com"

    Tag.objects.bulk_create(Tag(slug=slug) for slug in ["bad-1", "bad-2", "ok-3"])
    publish(built)
    served_index_is_the_built_one(client, built)
    assert named_files(client) == {"/sitemap-tags-2.xml": ["https://www.example.com/tags/ok-3/"]}
    assert client.get("/sitemap-tags-1.xml").status_code == 404


@pytest.mark.django_db
def test_a_page_whose_first_rows_are_skipped_is_named(
    sitemaps: Any, client: Client, built: bool
) -> None:
    """The probe reads past its first small chunk: one listable row after many skipped."""

    @sitemapkit.register(Tag)
    class TagSitemap(sitemapkit.ModelSitemap):
        limit = 100

        def location(self, item: Tag) -> str:
            return f"/tags/{item.slug}/" if item.slug.startswith("ok") else "mailto:x@example.com"

    skipped = 3 * PROBE_ROWS
    Tag.objects.bulk_create(Tag(slug=f"bad-{n:03}") for n in range(skipped))
    Tag.objects.create(slug="ok")
    publish(built)
    served_index_is_the_built_one(client, built)
    assert named_files(client) == {
        "/sitemap-testapp-tag-1.xml": ["https://www.example.com/tags/ok/"]
    }


class NewsSitemap(StorySitemap):
    news_date_field = None  # what W002 warns of: the two days are then checked per row
    limit = sitemapkit.ModelSitemap.limit


def old_news() -> None:
    """The issue's case: every article older than two days, without news_date_field."""
    sitemapkit.register(Story)(NewsSitemap)
    old = datetime.datetime.now(datetime.UTC) - datetime.timedelta(days=5)
    Story.objects.create(slug="old", title="Old", published_at=old)


@pytest.mark.django_db
def test_a_news_section_of_old_articles_names_no_missing_file(
    sitemaps: Any, client: Client, built: bool, caplog: pytest.LogCaptureFixture
) -> None:
    old_news()
    sitemapkit.register(Tag)
    Tag.objects.create(slug="t")
    publish(built)
    with caplog.at_level(logging.WARNING, "django_sitemapkit"):
        served_index_is_the_built_one(client, built)
        assert named_files(client) == {
            "/sitemap-testapp-tag-1.xml": ["https://www.example.com/tags/t/"]
        }
    assert client.get("/sitemap-testapp-story-1.xml").status_code == 404
    # Nothing stale: the build is served, without a warning.
    assert [r.getMessage() for r in caplog.records if r.name == "django_sitemapkit"] == []


@pytest.fixture
def server() -> Iterator[str]:
    live = LiveServer("localhost")
    try:
        yield live.url
    finally:
        live.stop()


def test_the_live_set_with_an_all_skipped_page_validates(
    sitemaps: Any, server: str, settings: Any, tmp_path: Path, transactional_db: Any
) -> None:
    """No placeholder listing the home page beside the static section that lists it."""
    settings.SITEMAPKIT = {**settings.SITEMAPKIT, "BASE_URL": server, "BUILD_DIR": str(tmp_path)}

    @sitemapkit.register(section="pages")
    class Pages(sitemapkit.Sitemap):
        def items(self) -> list[str]:
            return ["/", "/about/"]

        def location(self, item: str) -> str:
            return item

    old_news()
    # Paginate before the server's threads share the in-memory SQLite connection.
    assert Client().get("/sitemap.xml").status_code == 200
    status, output = validate(server + "/sitemap.xml", *xsd_args())
    assert status == 0, output
    assert output == f"{server}/sitemap.xml: 2 file(s), 2 URL(s) checked: valid.\n"


@pytest.mark.django_db
@pytest.mark.urls("tests.urls_sitemapkit_in_directory")
def test_under_a_directory_the_empty_site_lists_that_directory(
    sitemaps: Any, client: Client, built: bool
) -> None:
    """A sitemap under /sitemapkit/ may list only URLs under it: not the site's home page."""
    register_nothing()
    publish(built)
    response = client.get("/sitemapkit/sitemap.xml")
    assert response.status_code == 200
    validate_urlset(response.content)
    assert [url.loc for url in parse_urlset(response.content)] == [HOME + "sitemapkit/"]
