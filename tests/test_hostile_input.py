"""Whatever users put in their rows and ``location()``, every file served or built is valid.

Hypothesis draws the values a project controls -- slugs and locations of any
Unicode, control and XML-special characters, brackets, percent sequences valid
and not, 3,000 characters, other schemes and hosts; lastmods over the whole
range Python holds, aware and naive, in DST gaps of the site's zone -- and
renders them through the views and a build. Every file must validate against
sitemap.xsd, list RFC 3986 URLs once each, and account for every item as
listed or skipped; no request may fail.
"""

from __future__ import annotations

import datetime
import gzip
import warnings
from pathlib import Path
from typing import Any

import pytest
from django.core.cache import caches
from django.db import DataError, transaction
from django.test import Client, override_settings
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import django_sitemapkit as sitemapkit
from django_sitemapkit._sites import site as default_site
from django_sitemapkit.models import SitemapPage
from tests.perrow import PerRow
from tests.rfc3986 import is_sitemap_url
from tests.testapp.models import Article, Event
from tests.utils import parse_index, parse_urlset, path_of

pytestmark = pytest.mark.django_db

ZONES = ["UTC", "America/Chicago", "Europe/Paris", "Asia/Tokyo", "Pacific/Kiritimati"]

# Characters that break naive escaping or URL handling, mixed with any text.
SPECIALS = [*"&'\"<>[]{}\\|^`#?%;= \t\n\r\x0b\x7f\u00a0\u2028", "%41", "%zz", "%", "%2e%2E", ".."]
# Databases store neither NUL nor lone surrogates; in-memory items may hold them.
stored_text = st.characters(codec="utf-8", exclude_characters="\x00")
any_text = st.characters()


def text(characters: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    short = st.lists(st.one_of(st.sampled_from(SPECIALS), characters), max_size=25).map("".join)
    return st.one_of(short, st.builds(lambda s: s * (3000 // max(len(s), 1)), short))


def locations(characters: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    prefix = st.sampled_from(
        [
            "/",
            "",
            "https://www.example.com/",
            "HTTPS://WWW.EXAMPLE.COM:443/",
            "//www.example.com/",
            "http://www.example.com/",
            "https://evil.example/",
            "https://www.example.com@evil.example/",
            "https://[::1]/",
            "javascript:",
            " /",
        ]
    )
    return st.builds(lambda p, t: (p + t)[:3000], prefix, text(characters))


MIN = datetime.datetime.min
MAX = datetime.datetime.max
GAPS = [
    datetime.datetime(2024, 3, 31, 2, 30),  # Europe/Paris
    datetime.datetime(2024, 3, 10, 2, 30),  # America/Chicago
    datetime.datetime(2024, 10, 27, 2, 30, fold=1),  # Paris, the repeated hour
]
naive = st.one_of(st.datetimes(MIN, MAX), st.sampled_from([MIN, MAX, *GAPS]))
aware = st.one_of(
    st.datetimes(MIN, MAX, timezones=st.sampled_from([datetime.UTC])),
    st.sampled_from([MIN, MAX]).map(lambda d: d.replace(tzinfo=datetime.UTC)),
)
dates = st.dates(datetime.date.min, datetime.date.max)
lastmods = st.one_of(st.none(), naive, aware, dates)


@pytest.fixture
def site(sitemaps: Any) -> Any:
    """Four sections: locations as given, slugs on the fast path and through
    get_absolute_url(), and a list of (location, lastmod) items."""

    class EventSitemap(sitemapkit.ModelSitemap):
        lastmod_field = "modified"

    class SlowArticles(PerRow, sitemapkit.ModelSitemap):
        model = Article

    class FastArticles(sitemapkit.ModelSitemap):
        model = Article
        url_name = "article-detail"
        url_kwargs = {"slug": "slug"}

    class ListSitemap(sitemapkit.Sitemap):
        entries: list[tuple[str, Any]] = []

        def items(self) -> list[tuple[str, Any]]:
            return self.entries

        def location(self, item: tuple[str, Any]) -> str:
            return item[0]

        def lastmod(self, item: tuple[str, Any]) -> Any:
            return item[1]

    sitemapkit.register(Event, EventSitemap)
    sitemapkit.register(section="fast")(FastArticles)
    sitemapkit.register(section="slow")(SlowArticles)
    sitemapkit.register(section="list")(ListSitemap)
    return ListSitemap


class NotStored(Exception):
    """Django cannot store the value, or cannot read it back."""


def store(events: list[tuple[str, datetime.date | None]], articles: list[Any]) -> int:
    """Write the rows; returns how many articles were stored.

    Django itself refuses some naive values (year 1 read in a zone ahead of
    UTC is year 0 in UTC), and PostgreSQL keeps others that psycopg cannot
    read back (year 1 BC): those rows are not the app's to list.
    """
    Event.objects.bulk_create(Event(url=url, modified=modified) for url, modified in events)
    stored = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # naive datetimes, on purpose
        for slug, updated_at in articles:
            try:
                with transaction.atomic():
                    try:
                        article = Article.objects.create(slug=slug, updated_at=updated_at)
                        Article.objects.get(pk=article.pk)
                    except (OverflowError, ValueError, DataError) as exc:
                        raise NotStored from exc
            except NotStored:
                continue
            stored += 1
    return stored


def served_pages(client: Client) -> dict[str, bytes]:
    """Every page file the live views list, checked as a crawler would.

    Each answers 200: a page whose every row is skipped is named by no
    index (the live index probes each page for an entry; a build renders it).
    """
    response = client.get("/sitemap.xml")
    assert response.status_code == 200
    pages: dict[str, bytes] = {}
    for loc, _lastmod in parse_index(response.content):
        path = path_of(loc)
        page = client.get(path)
        gz = client.get(path + ".gz")
        assert page.status_code == gz.status_code == 200, path
        assert gzip.decompress(gz.content) == page.content
        pages[path.lstrip("/")] = page.content
    return pages


def check_file(content: bytes) -> int:
    entries = parse_urlset(content)  # validates against sitemap.xsd
    locs = [entry.loc for entry in entries]
    assert all(is_sitemap_url(loc) for loc in locs), locs
    assert len(locs) == len(set(locs))
    return len(locs)


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[
        HealthCheck.function_scoped_fixture,
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
    ],
)
@given(
    zone=st.sampled_from(ZONES),
    events=st.lists(st.tuples(locations(stored_text), st.one_of(st.none(), dates)), max_size=6),
    articles=st.lists(st.tuples(text(stored_text), st.one_of(naive, aware)), max_size=6),
    entries=st.lists(st.tuples(locations(any_text), lastmods), max_size=6),
)
def test_every_file_is_valid_and_accounts_for_every_item(
    site: Any,
    tmp_path_factory: pytest.TempPathFactory,
    zone: str,
    events: list[tuple[str, datetime.date | None]],
    articles: list[Any],
    entries: list[tuple[str, Any]],
) -> None:
    Event.objects.all().delete()
    Article.objects.all().delete()
    SitemapPage.objects.all().delete()
    caches["default"].clear()
    # One plain entry, so that the index is never empty.
    site.entries = [("/anchor/", None), *entries]
    build_dir = tmp_path_factory.mktemp("build")
    with override_settings(
        TIME_ZONE=zone,
        SITEMAPKIT={"BASE_URL": "https://www.example.com", "BUILD_DIR": str(build_dir)},
    ):
        stored = store(events, articles)
        served = served_pages(Client())
        for content in served.values():
            check_file(content)

        result = default_site.builder(full=True).run()
        folder = Path(build_dir) / "current"
        built = {
            path.name: path.read_bytes()
            for path in folder.iterdir()
            if path.name.startswith("sitemap-") and path.suffix == ".xml"
        }
        assert sum(check_file(content) for content in built.values()) == result.urls
        # Listed plus skipped is every item: one row per section it is in.
        assert result.urls + result.skipped == len(events) + 2 * stored + len(site.entries)
        # Builds and views give the same bytes, and leave out the same pages.
        assert built == served
