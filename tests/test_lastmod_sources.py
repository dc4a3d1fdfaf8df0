"""``StaticViewSitemap.lastmod_sources``: a listing page dated by its children's newest row, in
the views (page and index) and in builds alike; check E027 for what cannot date a page."""

from __future__ import annotations

import datetime
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

import django_sitemapkit as sitemapkit
from django_sitemapkit._checks import check_sites
from tests.building.builds import EDITED, T0, build, published
from tests.building.test_builder import served
from tests.testapp.models import Article, Author, Event, Tag
from tests.utils import get_ok, parse_index, parse_urlset

pytestmark = pytest.mark.django_db

TEMPLATES = Path(__file__).parent / "testapp" / "templates" / "testapp"
ABOUT_MTIME = datetime.datetime(2020, 1, 1, tzinfo=datetime.UTC)
PAGES = "/sitemap-pages-1.xml"


@pytest.fixture
def old_about_template() -> Iterator[None]:
    """about.html last changed long before any row: the page file's newest is a row's."""
    path = TEMPLATES / "about.html"
    saved = os.stat(path)
    stamp = ABOUT_MTIME.timestamp()
    os.utime(path, (stamp, stamp))
    yield
    os.utime(path, (saved.st_atime, saved.st_mtime))


def register_sections(sources: dict[str, Any]) -> None:
    @sitemapkit.register(Article)
    class ArticleSitemap(sitemapkit.ModelSitemap):
        def get_queryset(self) -> Any:
            return Article.objects.filter(published=True)

    @sitemapkit.register(section="pages")
    class PageSitemap(sitemapkit.StaticViewSitemap):
        url_names = ["home", "about"]
        lastmod_sources = sources


def articles() -> list[Article]:
    """Three published articles, and a draft newer than all (which no listing shows)."""
    made = [
        Article.objects.create(slug=f"a{i}", updated_at=T0 + datetime.timedelta(days=i))
        for i in range(3)
    ]
    Article.objects.create(slug="draft", published=False, updated_at=EDITED)
    return made


def lastmods(client: Client) -> tuple[dict[str, str | None], str | None]:
    """The pages section's lastmod per path, and its file's lastmod in the index."""
    entries = {
        url.loc.removeprefix("https://www.example.com"): url.lastmod
        for url in parse_urlset(get_ok(client, PAGES))
    }
    index = dict(parse_index(get_ok(client, "/sitemap.xml")))
    return entries, index["https://www.example.com" + PAGES]


@pytest.mark.parametrize(
    "source",
    [Article, Article.objects.filter(published=True)],
    ids=["registered model", "queryset"],
)
def test_a_listing_page_takes_its_childrens_newest_lastmod_and_an_edit_moves_it(
    sitemaps: Any,
    client: Client,
    old_about_template: None,
    django_capture_on_commit_callbacks: Any,
    source: Any,
) -> None:
    register_sections({"home": source})
    first = articles()
    entries, index = lastmods(client)
    assert entries == {"/": "2026-01-03T00:00:00+00:00", "/about/": "2020-01-01T00:00:00+00:00"}
    assert index == "2026-01-03T00:00:00+00:00"  # the newest of the file's entries

    # A save of the oldest child (committed: its signal invalidates the listing's files).
    with django_capture_on_commit_callbacks(execute=True):
        first[0].updated_at = datetime.datetime(2026, 3, 1, 12, tzinfo=datetime.UTC)
        first[0].save()
    entries, index = lastmods(client)
    assert entries["/"] == index == "2026-03-01T12:00:00+00:00"
    assert entries["/about/"] == "2020-01-01T00:00:00+00:00"  # its template's, as before


def test_builds_write_what_the_views_serve_and_follow_an_edit(
    sitemaps: Any,
    client: Client,
    settings: Any,
    tmp_path: Path,
    old_about_template: None,
    django_capture_on_commit_callbacks: Any,
) -> None:
    settings.SITEMAPKIT = {**settings.SITEMAPKIT, "BUILD_DIR": str(tmp_path / "sitemaps")}
    register_sections({"home": Article, "about": Article.objects.filter(slug__lte="a0")})
    first = articles()
    build()
    files = published(tmp_path / "sitemaps")
    assert files == served(client, settings)
    entries = {url.loc: url.lastmod for url in parse_urlset(files[PAGES.lstrip("/")])}
    assert list(entries.values()) == ["2026-01-03T00:00:00+00:00", "2026-01-01T00:00:00+00:00"]

    with django_capture_on_commit_callbacks(execute=True):
        first[0].updated_at = EDITED
        first[0].save()
        Article.objects.create(slug="a", updated_at=T0)
    # Until the next build, the views render the listing live: the build's file is stale.
    entries_now, index = lastmods(client)
    assert entries_now == {"/": EDITED.isoformat(), "/about/": EDITED.isoformat()}
    # Rows are not the section's configuration: a QuerySet source counts by its SQL.
    assert build().reconfigured == []
    rebuilt = published(tmp_path / "sitemaps")
    assert rebuilt == served(client, settings)
    assert rebuilt[PAGES.lstrip("/")] == get_ok(client, PAGES)  # served from the build again
    assert dict(parse_index(rebuilt["sitemap.xml"]))["https://www.example.com" + PAGES] == index


def test_a_source_without_dated_rows_gives_its_page_no_lastmod(
    sitemaps: Any, client: Client, old_about_template: None
) -> None:
    register_sections({"home": Article.objects.filter(slug="nothing")})
    articles()
    entries, index = lastmods(client)
    assert entries == {"/": None, "/about/": "2020-01-01T00:00:00+00:00"}
    assert index is None  # a file with an undated entry is undated in the index, as ever


def test_one_aggregate_per_source_per_render(sitemaps: Any, client: Client) -> None:
    register_sections({"home": Article, "about": Article.objects.filter(slug__startswith="a")})
    articles()
    for path in (PAGES, "/sitemap.xml"):
        with CaptureQueriesContext(connection) as queries:
            get_ok(client, path)
        aggregates = [q["sql"] for q in queries.captured_queries if "MAX(" in q["sql"].upper()]
        table = Article._meta.db_table
        assert len([sql for sql in aggregates if table in sql and "COUNT" not in sql]) == 2, path


def test_a_lastmod_field_of_the_models_section_dates_a_queryset_source(
    sitemaps: Any, client: Client
) -> None:
    @sitemapkit.register(Event)
    class EventSitemap(sitemapkit.ModelSitemap):
        lastmod_field = "modified"

    @sitemapkit.register(section="pages")
    class PageSitemap(sitemapkit.StaticViewSitemap):
        url_names = ["home"]
        lastmod_sources = {"home": Event.objects.all()}

    Event.objects.create(url="/e/1/", modified=datetime.date(2026, 2, 3))
    Event.objects.create(url="/e/2/", modified=None)  # MAX ignores rows without a date
    assert parse_urlset(get_ok(client, PAGES))[0].lastmod == "2026-02-03"


def e026(sources: Any) -> list[str]:
    @sitemapkit.register(section="pages")
    class PageSitemap(sitemapkit.StaticViewSitemap):
        url_names = ["home", ("article-detail", {"slug": "faq"})]
        lastmod_sources = sources

    return [m.msg for m in check_sites() if m.id == "sitemapkit.E027"]


def test_check_accepts_good_sources(sitemaps: Any) -> None:
    sitemapkit.register(Article)
    good = {"home": Article, "article-detail": Tag.objects.filter(slug="x")}
    assert e026(good) == []


@pytest.mark.parametrize(
    ("sources", "problem"),
    [
        ({"contact": Article}, "lastmod_sources names 'contact', which is not in url_names"),
        ({"home": [Article]}, "lastmod_sources['home']: list is neither a QuerySet nor a model"),
        ({"home": "Article"}, "lastmod_sources['home']: str is neither a QuerySet nor a model"),
        ({"home": Tag}, "lastmod_sources['home']: no ModelSitemap section of the registry lists"),
        ({"home": Author.objects.all()}, "testapp.Author has no lastmod field in a section"),
        (["home"], "lastmod_sources is list, not a dict"),
    ],
)
def test_check_reports_what_cannot_date_a_page(sitemaps: Any, sources: Any, problem: str) -> None:
    sitemapkit.register(Article)
    messages = e026(sources)
    assert len(messages) == 1 and problem in messages[0], messages
    assert messages[0].startswith("Sitemap section 'pages' (")


def test_a_bad_source_unchecked_is_a_logged_entry_without_lastmod(
    sitemaps: Any, client: Client, caplog: Any
) -> None:
    register_sections({"home": Tag})  # Tag has no section: E027 at check time
    response = client.get(PAGES)
    assert response.status_code == 200
    home = parse_urlset(response.content)[0]
    assert home.loc == "https://www.example.com/" and home.lastmod is None
    assert "no ModelSitemap section of the registry lists testapp.Tag" in caplog.text
