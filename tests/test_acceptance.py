"""The core issue's acceptance points, checked through the views as a crawler would."""

from __future__ import annotations

import datetime
import os
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.test import Client

import django_sitemapkit as sitemapkit
from django_sitemapkit._checks import check_sites
from django_sitemapkit._protocol.w3c import format_datetime
from tests.testapp.models import Article, Author, Event
from tests.utils import crawl, get_ok, parse_index, parse_urlset, path_of

pytestmark = pytest.mark.django_db(transaction=False)

BASE = "https://www.example.com"
T0 = datetime.datetime(2025, 1, 1, tzinfo=datetime.UTC)
TEMPLATES = Path(__file__).parent / "testapp" / "templates" / "testapp"


def register_site() -> None:
    @sitemapkit.register(Article)
    class ArticleSitemap(sitemapkit.ModelSitemap):
        changefreq = "weekly"
        priority = 0.6

        def get_queryset(self) -> Any:
            return Article.objects.filter(published=True)

    sitemapkit.register(Author)

    @sitemapkit.register(section="pages")
    class PageSitemap(sitemapkit.StaticViewSitemap):
        url_names = ["home", "about"]


def test_large_section(
    sitemaps: Any, client: Client, django_capture_on_commit_callbacks: Any
) -> None:
    register_site()
    # 125,001 rows, every 25th of the first 125,000 unpublished: 120,001 published.
    Article.objects.bulk_create(
        (
            Article(
                slug=f"a{i}",
                published=not (i < 125_000 and i % 25 == 0),
                updated_at=T0 + datetime.timedelta(seconds=37 * i),
            )
            for i in range(125_001)
        ),
        batch_size=5000,
    )
    Author.objects.bulk_create(Author(name=f"n{i}") for i in range(3))

    # 1. Three files; exactly the published URLs, once each, with updated_at.
    index = parse_index(get_ok(client, "/sitemap.xml"))
    article_files = [loc for loc, _ in index if "-testapp-article-" in loc]
    assert len(article_files) == 3
    files = crawl(client)
    listed = [u for path, urls in files.items() if "-testapp-article-" in path for u in urls]
    expected = {
        f"{BASE}/articles/{a.slug}/": format_datetime(a.updated_at, datetime.UTC)
        for a in Article.objects.filter(published=True).only("slug", "updated_at")
    }
    assert len(expected) == 120_001
    assert len(listed) == len({u.loc for u in listed}) == 120_001
    assert {u.loc: u.lastmod for u in listed} == expected
    assert all(u.changefreq == "weekly" and u.priority == "0.6" for u in listed)
    authors = files["/sitemap-testapp-author-1.xml"]
    assert len(authors) == 3 and all(u.lastmod is None for u in authors)
    assert "sitemapkit.W001" in [m.id for m in check_sites()]

    # 2. Each index lastmod is the newest lastmod of its page.
    for loc, lastmod in index:
        page = files[path_of(loc)]
        newest = max((u.lastmod for u in page if u.lastmod), default=None)
        assert lastmod == newest, loc

    # Editing one object changes exactly one index entry and one page.
    before_pages = {path: get_ok(client, path) for path in files}
    article = Article.objects.get(slug="a70001")
    with django_capture_on_commit_callbacks(execute=True):
        article.updated_at = T0 + datetime.timedelta(days=3650)
        article.save()
    after_index = parse_index(get_ok(client, "/sitemap.xml"))
    assert len([1 for a, b in zip(index, after_index, strict=True) if a != b]) == 1
    after_pages = {path: get_ok(client, path) for path in files}
    assert len([p for p in files if before_pages[p] != after_pages[p]]) == 1

    # Deleting one changes at most one page.
    with django_capture_on_commit_callbacks(execute=True):
        Article.objects.get(slug="a101").delete()
    deleted_pages = {path: get_ok(client, path) for path in files}
    assert len([p for p in files if deleted_pages[p] != after_pages[p]]) == 1


def test_touching_a_template_changes_its_lastmod(sitemaps: Any, client: Client) -> None:
    register_site()
    stamp = datetime.datetime(2024, 2, 3, 4, 5, 6, tzinfo=datetime.UTC).timestamp()
    os.utime(TEMPLATES / "about.html", (stamp, stamp))
    about = parse_urlset(get_ok(client, "/sitemap-pages-1.xml"))[1]
    assert about.lastmod == "2024-02-03T04:05:06+00:00"
    os.utime(TEMPLATES / "about.html", (stamp + 60, stamp + 60))
    sitemapkit.invalidate("pages")
    about = parse_urlset(get_ok(client, "/sitemap-pages-1.xml"))[1]
    assert about.lastmod == "2024-02-03T04:06:06+00:00"


def test_awkward_urls(sitemaps: Any, client: Client) -> None:
    @sitemapkit.register(Event)
    class EventSitemap(sitemapkit.ModelSitemap):
        lastmod_field = "modified"

    paths = {
        "/a&b'c\"d<e>f/": f"{BASE}/a&b'c%22d%3Ce%3Ef/",
        "/with space/": f"{BASE}/with%20space/",
        "/café/": f"{BASE}/caf%C3%A9/",
        "/日本/": f"{BASE}/%E6%97%A5%E6%9C%AC/",
        "/s/?sessionid=abc123&page=2": f"{BASE}/s/?page=2",
        "/t/?sessionid=abc123": f"{BASE}/t/",
        "/" + "x" * 3000: None,
        "https://elsewhere.example.org/x/": None,
    }
    for path in paths:
        Event.objects.create(url=path, modified=datetime.date(2026, 1, 1))
    content = get_ok(client, "/sitemap-testapp-event-1.xml")
    assert b"a&amp;b&apos;c%22d%3Ce%3Ef" in content
    urls = parse_urlset(content)  # validates
    assert [u.loc for u in urls] == [v for v in paths.values() if v is not None]
    assert b"sessionid" not in content and b"elsewhere" not in content
    gz = get_ok(client, "/sitemap-testapp-event-1.xml.gz")
    assert len(gz) < len(content)


def test_check_command_warns_about_models_without_updated_at(sitemaps: Any, capsys: Any) -> None:
    register_site()
    call_command("check")
    assert "sitemapkit.W001" in capsys.readouterr().err
