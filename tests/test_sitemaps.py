from __future__ import annotations

import datetime
import logging
import os
from pathlib import Path
from typing import Any

import pytest

import django_sitemapkit as sitemapkit
from django_sitemapkit._engine import sections
from django_sitemapkit._engine.rendering import render_index, render_page
from django_sitemapkit._engine.rows import url_route
from django_sitemapkit._sites import site
from tests.perrow import PerRow
from tests.testapp.models import Article, Author, Event, Product, Tag
from tests.utils import parse_index, parse_urlset

pytestmark = pytest.mark.django_db

BASE = "https://www.example.com"
T0 = datetime.datetime(2026, 3, 4, 5, 6, 7, 890000, tzinfo=datetime.UTC)
TEMPLATES = Path(__file__).parent / "testapp" / "templates" / "testapp"


def urls(section: str, page: int = 1) -> list[Any]:
    return parse_urlset(render_page(section, page, base_url=BASE, sitemaps=site).content)


def test_model_sitemap_lists_every_row_with_updated_at(sitemaps: Any) -> None:
    sitemapkit.register(Tag)
    tags = [Tag.objects.create(slug=f"t{i}") for i in range(3)]
    Tag.objects.filter(pk=tags[0].pk).update(updated_at=T0)
    tags[0].refresh_from_db()
    entries = urls("testapp-tag")
    assert [e.loc for e in entries] == [f"{BASE}/tags/t{i}/" for i in range(3)]
    assert entries[0].lastmod == "2026-03-04T05:06:07+00:00"
    assert entries[0].changefreq is None and entries[0].priority is None


def test_model_without_updated_at_has_no_lastmod(sitemaps: Any) -> None:
    sitemapkit.register(Author)
    Author.objects.create(name="x")
    [entry] = urls("testapp-author")
    assert entry.lastmod is None
    [(_loc, lastmod)] = parse_index(render_index(base_url=BASE, sitemaps=site).content)
    assert lastmod is None


def test_lastmod_field_names_another_field_and_dates_stay_dates(sitemaps: Any) -> None:
    @sitemapkit.register(Event)
    class EventSitemap(sitemapkit.ModelSitemap):
        lastmod_field = "modified"

    Event.objects.create(url="/e/1/", modified=datetime.date(2026, 5, 1))
    Event.objects.create(url="/e/2/", modified=None)
    first, second = urls("testapp-event")
    assert first.lastmod == "2026-05-01"
    assert second.lastmod is None
    # A page holding an undated row is announced without lastmod, as contrib's index.
    [(_loc, lastmod)] = parse_index(render_index(base_url=BASE, sitemaps=site).content)
    assert lastmod is None
    Event.objects.filter(modified=None).update(modified=datetime.date(2026, 4, 1))
    # The index writes full datetimes, midnight of that same day.
    [(_loc, lastmod)] = parse_index(render_index(base_url=BASE, sitemaps=site).content)
    assert lastmod == "2026-05-01T00:00:00+00:00"


def test_lastmod_field_none_turns_it_off(sitemaps: Any) -> None:
    @sitemapkit.register(Article)
    class ArticleSitemap(sitemapkit.ModelSitemap):
        lastmod_field = None

    Article.objects.create(slug="a", updated_at=T0)
    assert urls("testapp-article")[0].lastmod is None


def test_attributes_and_methods(sitemaps: Any) -> None:
    @sitemapkit.register(Article)
    class ArticleSitemap(sitemapkit.ModelSitemap):
        priority = 0.6

        def changefreq(self, obj: Article) -> str:
            return "daily" if obj.slug == "hot" else "monthly"

        def get_queryset(self) -> Any:
            return Article.objects.filter(published=True)

    Article.objects.create(slug="hot", updated_at=T0)
    Article.objects.create(slug="cold", updated_at=T0)
    Article.objects.create(slug="draft", updated_at=T0, published=False)
    entries = urls("testapp-article")
    assert [(e.loc.rsplit("/", 2)[1], e.changefreq, e.priority) for e in entries] == [
        ("hot", "daily", "0.6"),
        ("cold", "monthly", "0.6"),
    ]


def test_location_override(sitemaps: Any) -> None:
    @sitemapkit.register(Article)
    class ArticleSitemap(sitemapkit.ModelSitemap):
        def location(self, item: Article) -> str:
            return f"/custom/{item.slug}/"

    Article.objects.create(slug="x", updated_at=T0)
    assert urls("testapp-article")[0].loc == f"{BASE}/custom/x/"


def test_computed_bad_values_are_dropped_with_a_warning(
    sitemaps: Any, caplog: pytest.LogCaptureFixture
) -> None:
    @sitemapkit.register(Article)
    class ArticleSitemap(sitemapkit.ModelSitemap):
        def priority(self, obj: Article) -> float:
            return 1.5

        def changefreq(self, obj: Article) -> str:
            return "sometimes"

    Article.objects.create(slug="x", updated_at=T0)
    with caplog.at_level(logging.WARNING, logger="django_sitemapkit"):
        [entry] = urls("testapp-article")
    assert entry.priority is None and entry.changefreq is None
    assert "ignored the priority of" in caplog.text
    assert ": 1.5 is not from 0.0 to 1.0." in caplog.text
    assert ": 'sometimes' is not one of always, daily," in caplog.text


def test_bad_locations_are_skipped_counted_and_logged(
    sitemaps: Any, caplog: pytest.LogCaptureFixture
) -> None:
    @sitemapkit.register(Event)
    class EventSitemap(sitemapkit.ModelSitemap):
        lastmod_field = "modified"

        def location(self, item: Event) -> str:
            if item.url == "raise":
                raise ValueError("boom")
            return item.url

    for url in [
        "/ok/",
        "raise",
        "",
        "https://evil.example.org/x",
        "http://www.example.com/x",
        "/" + "x" * 3000,
        "/ok2/",
    ]:
        Event.objects.create(url=url)
    with caplog.at_level(logging.WARNING, logger="django_sitemapkit"):
        rendered = render_page("testapp-event", 1, base_url=BASE, sitemaps=site)
    assert [u.loc for u in parse_urlset(rendered.content)] == [f"{BASE}/ok/", f"{BASE}/ok2/"]
    assert rendered.skipped == 5
    assert caplog.text.count("skipped <Event: Event object") == 5
    assert "location() raised ValueError: boom" in caplog.text


def test_generic_sitemap_with_items(sitemaps: Any) -> None:
    @sitemapkit.register(section="misc")
    class MiscSitemap(sitemapkit.Sitemap):
        limit = 2
        changefreq = "never"
        lastmod = datetime.date(2026, 1, 2)

        def items(self) -> list[str]:
            return ["/a/", "/b/", "/c/"]

        def location(self, item: str) -> str:
            return item

    index = parse_index(render_index(base_url=BASE, sitemaps=site).content)
    assert [loc for loc, _ in index] == [f"{BASE}/sitemap-misc-1.xml", f"{BASE}/sitemap-misc-2.xml"]
    assert [e.loc for e in urls("misc", 2)] == [f"{BASE}/c/"]
    assert urls("misc", 2)[0].lastmod == "2026-01-02"


def test_static_view_sitemap_uses_template_mtime(sitemaps: Any) -> None:
    @sitemapkit.register(section="pages")
    class PageSitemap(sitemapkit.StaticViewSitemap):
        url_names = ["home", "about"]

    stamp = datetime.datetime(2025, 6, 7, 8, 9, 10, tzinfo=datetime.UTC).timestamp()
    os.utime(TEMPLATES / "home.html", (stamp, stamp))
    home, about = urls("pages")
    assert home.loc == f"{BASE}/" and about.loc == f"{BASE}/about/"
    assert home.lastmod == "2025-06-07T08:09:10+00:00"
    # Touching the template changes that URL's lastmod, and only that one.
    later = stamp + 86400
    os.utime(TEMPLATES / "home.html", (later, later))
    home2, about2 = urls("pages")
    assert home2.lastmod == "2025-06-08T08:09:10+00:00"
    assert about2.lastmod == about.lastmod


def test_static_view_sitemap_with_args_and_lastmod_override(sitemaps: Any) -> None:
    @sitemapkit.register(section="pages")
    class PageSitemap(sitemapkit.StaticViewSitemap):
        url_names = [("article-detail", {"slug": "faq"}), ("author-detail", [7])]

        def lastmod(self, item: Any) -> datetime.date:
            return datetime.date(2020, 1, 1)

    a, b = urls("pages")
    assert (a.loc, b.loc) == (f"{BASE}/articles/faq/", f"{BASE}/authors/7/")
    assert a.lastmod == "2020-01-01"


def test_static_view_without_template_has_no_lastmod(sitemaps: Any) -> None:
    @sitemapkit.register(section="pages")
    class PageSitemap(sitemapkit.StaticViewSitemap):
        url_names = [("tag-detail", {"slug": "x"})]

    assert urls("pages")[0].lastmod is None


def test_time_zone_conversion_keeps_instant_and_day(sitemaps: Any, settings: Any) -> None:
    settings.TIME_ZONE = "Asia/Tokyo"
    sitemapkit.register(Tag)
    tag = Tag.objects.create(slug="t")
    Tag.objects.filter(pk=tag.pk).update(
        updated_at=datetime.datetime(2026, 1, 1, 20, 0, tzinfo=datetime.UTC)
    )
    assert urls("testapp-tag")[0].lastmod == "2026-01-02T05:00:00+09:00"


AWKWARD_SLUGS = [
    "plain",
    "a&b'c\"d<e>f",
    "with space",
    "caf\u00e9",
    "\u65e5\u672c",
    "50% off?",
    "q?sessionid=abc&x=1",
    "a+b=c;d,e",
    "",
    "a/b",
    "x" * 2100,
]


def test_fast_path_is_byte_identical_to_get_absolute_url(
    sitemaps: Any, caplog: pytest.LogCaptureFixture
) -> None:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    class Derived(sitemapkit.ModelSitemap):
        """No url_name, no location(): get_absolute_url() read as the URL pattern."""

        changefreq = "daily"
        priority = 0.4

    class Slow(PerRow, Derived):
        """location() calls get_absolute_url() per row."""

    class Fast(Derived):
        url_name = "article-detail"
        url_kwargs = {"slug": "slug"}

    sitemapkit.register(Article, Slow, section="slow")
    sitemaps._registry["derived"] = type(
        "Derived", (Derived,), {"section": "derived", "model": Article}
    )()
    sitemaps._registry["fast"] = type("Fast", (Fast,), {"section": "fast", "model": Article})()
    assert [url_route(site._registry[s]) is not None for s in ("slow", "derived", "fast")] == [
        False,
        True,
        True,
    ]
    Article.objects.bulk_create(
        Article(
            slug=slug,
            title="not-read",
            updated_at=T0 + datetime.timedelta(days=i, microseconds=7 * (i % 2)),
        )
        for i, slug in enumerate([*AWKWARD_SLUGS, "plain-2", "plain_3"])
    )
    with caplog.at_level(logging.WARNING, logger="django_sitemapkit"):
        slow = render_page("slow", 1, base_url=BASE, sitemaps=site)
        with CaptureQueriesContext(connection) as queries:
            derived = render_page("derived", 1, base_url=BASE, sitemaps=site)
        fast = render_page("fast", 1, base_url=BASE, sitemaps=site)
    assert fast.content == slow.content
    assert derived.content == slow.content
    assert fast.skipped == slow.skipped == derived.skipped == 3  # "", "a/b", the long URL
    # The derived section reads columns: no instance, so no title column.
    selects = [q["sql"] for q in queries if "testapp_article" in q["sql"]]
    assert selects
    assert not any("title" in sql for sql in selects)
    assert len(parse_urlset(fast.content)) == len(AWKWARD_SLUGS) - 1
    assert "skipped <testapp.Article pk=" in caplog.text
    assert parse_index(render_index(base_url=BASE, sitemaps=site).content)[0][1] is not None


def test_fast_path_reads_only_the_columns_it_needs(sitemaps: Any) -> None:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    @sitemapkit.register(Article)
    class Fast(sitemapkit.ModelSitemap):
        url_name = "article-detail"
        url_kwargs = {"slug": "slug"}
        changefreq_field = "title"

    Article.objects.create(slug="s", title="weekly", updated_at=T0)
    Article.objects.create(slug="t", title="sometimes", updated_at=T0)
    render_index(base_url=BASE, sitemaps=site)
    with CaptureQueriesContext(connection) as queries:
        entries = urls("testapp-article")
    assert [e.changefreq for e in entries] == ["weekly", None]
    select = queries[-1]["sql"]
    assert '"published"' not in select and "`published`" not in select


def test_a_whole_page_streams_from_a_server_side_cursor(
    sitemaps: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from django.db import connection

    from django_sitemapkit._engine.rendering import make_context

    @sitemapkit.register(Article)
    class Fast(sitemapkit.ModelSitemap):
        url_name = "article-detail"
        url_kwargs = {"slug": "slug"}

    for i in range(6):
        Article.objects.create(slug=f"a{i}", updated_at=T0)
    render_index(base_url=BASE, sitemaps=site)
    chunked = []
    chunked_cursor = connection.chunked_cursor
    monkeypatch.setattr(connection, "chunked_cursor", lambda: chunked.append(1) or chunked_cursor())
    sitemap = sitemaps._registry["testapp-article"]
    context = make_context(BASE)

    # A whole page, up to 50,000 rows, streams from a server-side cursor.
    whole = sections.render_sitemap_page(sitemap, 1, context)
    assert len(parse_urlset(whole.content)) == 6
    assert chunked == [1]


def register_articles(*, fast: bool) -> None:
    """Articles through get_absolute_url(), or on the fast path."""

    class ArticleSitemap(sitemapkit.ModelSitemap):
        pass

    if fast:
        ArticleSitemap.url_name = "article-detail"
        ArticleSitemap.url_kwargs = {"slug": "slug"}
    else:
        ArticleSitemap = type("ArticleSitemap", (PerRow, ArticleSitemap), {})
    sitemapkit.register(Article, ArticleSitemap)


# Spellings of one URL that location() may return: each one is listed once.
EQUIVALENT_SPELLINGS = [
    "/x",
    "HTTPS://WWW.EXAMPLE.COM/x",
    "//www.example.com/x",
    "https://www.example.com:443/x",
    "/x\t",
    " https://www.example.com/x ",
    "/x#top",
]


def test_equivalent_spellings_of_a_url_are_listed_once(
    sitemaps: Any, caplog: pytest.LogCaptureFixture
) -> None:
    sitemapkit.register(Event)
    for url in [*EQUIVALENT_SPELLINGS, "/y"]:
        Event.objects.create(url=url)
    with caplog.at_level(logging.WARNING, logger="django_sitemapkit"):
        rendered = render_page("testapp-event", 1, base_url=BASE, sitemaps=site)
    assert [u.loc for u in parse_urlset(rendered.content)] == [f"{BASE}/x", f"{BASE}/y"]
    assert rendered.skipped == len(EQUIVALENT_SPELLINGS) - 1
    assert caplog.text.count(f"{BASE}/x is listed already in this file") == 6


@pytest.mark.parametrize("fast", [True, False], ids=["fast-path", "get_absolute_url"])
def test_rows_sharing_a_url_are_listed_once(sitemaps: Any, fast: bool) -> None:
    register_articles(fast=fast)
    slugs = ["a", "b", "a", "c", "b", "a", "d"]
    Article.objects.bulk_create(
        Article(slug=slug, updated_at=T0 + datetime.timedelta(days=i))
        for i, slug in enumerate(slugs)
    )
    rendered = render_page("testapp-article", 1, base_url=BASE, sitemaps=site)
    entries = parse_urlset(rendered.content)
    # The first row of each URL is listed, with its own lastmod.
    assert [(e.loc, e.lastmod) for e in entries] == [
        (f"{BASE}/articles/a/", "2026-03-04T05:06:07+00:00"),
        (f"{BASE}/articles/b/", "2026-03-05T05:06:07+00:00"),
        (f"{BASE}/articles/c/", "2026-03-07T05:06:07+00:00"),
        (f"{BASE}/articles/d/", "2026-03-10T05:06:07+00:00"),
    ]
    assert rendered.url_count + rendered.skipped == len(slugs)


def test_a_list_lists_a_url_once_per_file(sitemaps: Any) -> None:
    @sitemapkit.register(section="misc")
    class MiscSitemap(sitemapkit.Sitemap):
        limit = 2

        def items(self) -> list[str]:
            return ["/a/", "/b/", "/a/", "/c/", "/c/", "/a/"]

        def location(self, item: str) -> str:
            return item

    assert [e.loc for e in urls("misc", 1)] == [f"{BASE}/a/", f"{BASE}/b/"]
    # Each file holds each URL once; another file may list it again.
    assert [e.loc for e in urls("misc", 2)] == [f"{BASE}/c/", f"{BASE}/a/"]


@pytest.mark.parametrize("fast", [True, False], ids=["fast-path", "get_absolute_url"])
@pytest.mark.parametrize(
    ("zone", "extreme", "kept"),
    [
        # America/Chicago is 5:50:36 behind UTC in year 1: before 0001-01-01 there.
        (
            "America/Chicago",
            [
                datetime.datetime(1, 1, 1, tzinfo=datetime.UTC),
                datetime.datetime(1, 1, 1, 5, 50, 35, tzinfo=datetime.UTC),
            ],
            "2026-03-03T23:06:07-06:00",
        ),
        # Asia/Tokyo is ahead: after 9999-12-31 there.
        (
            "Asia/Tokyo",
            [datetime.datetime(9999, 12, 31, 23, 59, 59, 999999, tzinfo=datetime.UTC)],
            "2026-03-04T14:06:07+09:00",
        ),
    ],
)
def test_a_lastmod_the_time_zone_cannot_hold_costs_only_that_entrys_lastmod(
    sitemaps: Any,
    settings: Any,
    caplog: pytest.LogCaptureFixture,
    fast: bool,
    zone: str,
    extreme: list[datetime.datetime],
    kept: str,
) -> None:
    settings.TIME_ZONE = zone

    register_articles(fast=fast)
    Article.objects.create(slug="ok", updated_at=T0)
    for i, value in enumerate(extreme):
        Article.objects.create(slug=f"extreme{i}", updated_at=value)
    with caplog.at_level(logging.WARNING, logger="django_sitemapkit"):
        page = render_page("testapp-article", 1, base_url=BASE, sitemaps=site)
        index = parse_index(render_index(base_url=BASE, sitemaps=site).content)
    lastmods = {e.loc: e.lastmod for e in parse_urlset(page.content)}
    assert lastmods == {
        f"{BASE}/articles/ok/": kept,
        **{f"{BASE}/articles/extreme{i}/": None for i in range(len(extreme))},
    }
    assert caplog.text.count("without lastmod") >= len(extreme)
    assert len(index) == 1


def test_a_lastmod_method_that_fails_costs_only_that_entrys_lastmod(
    sitemaps: Any, caplog: pytest.LogCaptureFixture
) -> None:
    @sitemapkit.register(section="misc")
    class MiscSitemap(sitemapkit.Sitemap):
        def items(self) -> list[str]:
            return ["/a/", "/b/", "/c/"]

        def location(self, item: str) -> str:
            return item

        def lastmod(self, item: str) -> Any:
            if item == "/a/":
                raise ValueError("no date")
            if item == "/b/":
                return "2026-01-01"  # a string, not a date
            return datetime.date(2026, 1, 2)

        def changefreq(self, item: str) -> str:
            return "daily"

    with caplog.at_level(logging.WARNING, logger="django_sitemapkit"):
        entries = urls("misc")
    assert [(e.loc, e.lastmod, e.changefreq) for e in entries] == [
        (f"{BASE}/a/", None, "daily"),
        (f"{BASE}/b/", None, "daily"),
        # The refused string did not decide the file's date format.
        (f"{BASE}/c/", "2026-01-02", "daily"),
    ]
    assert "listed '/a/' without lastmod: ValueError: no date" in caplog.text
    assert "listed '/b/' without lastmod: TypeError: str is not a date" in caplog.text


def test_an_item_whose_changefreq_fails_is_skipped_alone(sitemaps: Any) -> None:
    @sitemapkit.register(section="misc")
    class MiscSitemap(sitemapkit.Sitemap):
        def items(self) -> list[str]:
            return ["/a/", "/b/"]

        def location(self, item: str) -> str:
            return item

        def changefreq(self, item: str) -> str:
            if item == "/a/":
                raise KeyError("missing")
            return "daily"

    rendered = render_page("misc", 1, base_url=BASE, sitemaps=site)
    assert [e.loc for e in parse_urlset(rendered.content)] == [f"{BASE}/b/"]
    assert rendered.skipped == 1


@pytest.mark.parametrize(
    "slugs",
    [
        ["b", "a/../b", "c", "x/./../c"],
        ["a/../b", "b", "x/./../c", "c"],
    ],
    ids=["fast-path-row-first", "general-row-first"],
)
def test_a_unique_column_still_lists_a_normalised_url_once(sitemaps: Any, slugs: list[str]) -> None:
    # Rows of a unique slug cannot repeat a URL among themselves, so the fast
    # path does not track them until a row its fused loop cannot write comes:
    # "a/../b" and "x/./../c" are "b" and "c" once normalised.
    class Slow(PerRow, sitemapkit.ModelSitemap):
        model = Product

    class Fast(sitemapkit.ModelSitemap):
        model = Product
        url_name = "product-detail"
        url_kwargs = {"slug": "slug"}

    sitemapkit.register(section="slow")(Slow)
    sitemapkit.register(section="fast")(Fast)
    Product.objects.bulk_create(
        Product(slug=slug, updated_at=T0 + datetime.timedelta(days=i))
        for i, slug in enumerate(slugs)
    )
    fast = render_page("fast", 1, base_url=BASE, sitemaps=site)
    slow = render_page("slow", 1, base_url=BASE, sitemaps=site)
    assert fast.content == slow.content
    assert sorted(e.loc for e in parse_urlset(fast.content)) == [
        f"{BASE}/products/b",
        f"{BASE}/products/c",
    ]
    assert fast.skipped == slow.skipped == 2
