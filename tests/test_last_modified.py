"""Last-Modified: never later than the response (RFC 9110 8.8.2.1), never a 500.

A lastmod can be any aware datetime from year 1 to year 9999 in any offset,
so the instant can lie outside the years an HTTP-date (and Python) can
express: 9999-12-31 at -06:00 is in year 10000 UTC.
"""

from __future__ import annotations

import datetime
import re
import time
import zoneinfo
from typing import Any

import pytest
from django.core.management import call_command
from django.http import HttpResponseBase
from django.test import Client, RequestFactory
from django.utils.http import http_date, parse_http_date

import django_sitemapkit as sitemapkit
from django_sitemapkit._engine.rendering import RenderedFile
from django_sitemapkit._serving.views import _respond, last_modified_stamp
from tests.testapp.models import Article
from tests.utils import parse_index, parse_urlset

UTC = datetime.UTC
CHICAGO = datetime.timezone(datetime.timedelta(hours=-6))
LATEST = datetime.datetime(9999, 12, 31, 23, 59, 59, 999999)
EARLIEST = datetime.datetime(1, 1, 1)
# Year 100: the first an HTTP-date parser does not read as a two-digit year.
YEAR_100 = datetime.datetime(100, 1, 1)
# Seconds from the epoch to 0100-01-01T00:00:00Z.
YEAR_100_UTC = -59011459200
NOW = 1_800_000_000
# IMF-fixdate, the HTTP-date servers must send (RFC 9110 5.6.7).
IMF_FIXDATE = re.compile(
    r"(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d\d (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)"
    r" \d{4} \d\d:\d\d:\d\d GMT"
)


def offset(hours: int, minutes: int = 0) -> datetime.timezone:
    return datetime.timezone(datetime.timedelta(hours=hours, minutes=minutes))


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (LATEST.replace(tzinfo=CHICAGO), NOW),
        (LATEST.replace(tzinfo=offset(-23, -59)), NOW),
        (LATEST.replace(tzinfo=UTC), NOW),
        (LATEST.replace(tzinfo=zoneinfo.ZoneInfo("America/Chicago")), NOW),
        (datetime.datetime.fromtimestamp(NOW + 1, UTC), NOW),
        (datetime.datetime.fromtimestamp(NOW - 1, UTC), NOW - 1),
        (datetime.datetime(2026, 1, 1, 0, 0, 0, 999999, tzinfo=UTC), 1767225600),
        (YEAR_100.replace(tzinfo=UTC), YEAR_100_UTC),
        (YEAR_100.replace(tzinfo=CHICAGO), YEAR_100_UTC + 6 * 3600),
        (YEAR_100.replace(tzinfo=offset(14)), None),
        # "0001" would be read as 2001; before 0001-01-01T00:00:00Z there is no HTTP-date at all.
        (EARLIEST.replace(tzinfo=UTC), None),
        (EARLIEST.replace(tzinfo=CHICAGO), None),
        (EARLIEST.replace(tzinfo=offset(23, 59)), None),
        (EARLIEST.replace(tzinfo=zoneinfo.ZoneInfo("Asia/Tokyo")), None),
        (LATEST, None),
        (None, None),
    ],
)
def test_last_modified_stamp(value: datetime.datetime | None, expected: int | None) -> None:
    assert last_modified_stamp(value, NOW + 0.9) == expected


def assert_valid_last_modified(response: HttpResponseBase, sent_by: float) -> None:
    header = response["Last-Modified"]
    assert IMF_FIXDATE.fullmatch(header), header
    stamp = parse_http_date(header)
    assert http_date(stamp) == header
    assert stamp <= sent_by


@pytest.mark.parametrize(
    "value",
    [
        LATEST.replace(tzinfo=CHICAGO),
        LATEST.replace(tzinfo=offset(-23, -59)),
        YEAR_100.replace(tzinfo=UTC),
        YEAR_100.replace(tzinfo=CHICAGO),
        datetime.datetime.now(UTC) + datetime.timedelta(days=1),
    ],
)
@pytest.mark.parametrize("gz", [False, True], ids=["xml", "gz"])
def test_extreme_lastmods_give_a_valid_last_modified(
    rf: RequestFactory, value: datetime.datetime, gz: bool
) -> None:
    served = RenderedFile(b"<urlset/>", value)
    response = _respond(rf.get("/sitemap.xml"), served, gz)
    assert response.status_code == 200
    assert_valid_last_modified(response, time.time())
    header = response["Last-Modified"]
    conditional = _respond(
        rf.get("/sitemap.xml", headers={"if-none-match": served.etag}), served, gz
    )
    assert conditional.status_code == 304
    if value.year == 100:
        # The header reads back as the same date (If-Modified-Since validates built files).
        request = rf.get("/sitemap.xml", headers={"if-modified-since": header})
        assert _respond(request, served, gz, built=True).status_code == 304


@pytest.mark.parametrize("built", [False, True], ids=["live", "built"])
def test_if_modified_since_validates_only_a_built_file_dated_in_the_past(
    rf: RequestFactory, built: bool
) -> None:
    past = RenderedFile(b"<urlset/>", datetime.datetime(2014, 1, 1, tzinfo=UTC))
    header = _respond(rf.get("/sitemap.xml"), past, False, built=built)["Last-Modified"]
    request = rf.get("/sitemap.xml", headers={"if-modified-since": header})
    assert _respond(request, past, False, built=built).status_code == (304 if built else 200)
    # A lastmod in the future is sent as the response's time: no version's date.
    future = RenderedFile(b"<urlset/>", datetime.datetime.now(UTC) + datetime.timedelta(days=1))
    header = _respond(rf.get("/sitemap.xml"), future, False, built=built)["Last-Modified"]
    request = rf.get("/sitemap.xml", headers={"if-modified-since": header})
    assert _respond(request, future, False, built=built).status_code == 200
    request = rf.get("/sitemap.xml", headers={"if-none-match": future.etag})
    assert _respond(request, future, False, built=built).status_code == 304


@pytest.mark.parametrize(
    "value", [EARLIEST.replace(tzinfo=offset(14)), EARLIEST.replace(tzinfo=CHICAGO)]
)
def test_a_lastmod_in_the_first_century_sends_no_last_modified(
    rf: RequestFactory, value: datetime.datetime
) -> None:
    served = RenderedFile(b"<urlset/>", value)
    response = _respond(rf.get("/sitemap.xml"), served, False)
    assert response.status_code == 200
    assert not response.has_header("Last-Modified")
    request = rf.get("/sitemap.xml", headers={"if-none-match": served.etag})
    assert _respond(request, served, False).status_code == 304
    # Without a Last-Modified, a date cannot validate the file.
    request = rf.get("/sitemap.xml", headers={"if-modified-since": http_date(NOW)})
    assert _respond(request, served, False).status_code == 200


def fetch_all(client: Client, *, dated: bool = True) -> None:
    """Every file of the site twice (the second may come from the cache), each valid.

    ``dated``: whether every entry could be written with its lastmod; a file
    with an entry listed without has no Last-Modified.
    """
    for _ in range(2):
        index = client.get("/sitemap.xml")
        assert index.status_code == 200
        for loc, _lastmod in parse_index(index.content):
            page = client.get(loc.removeprefix("https://www.example.com"))
            assert page.status_code == 200
            assert len(parse_urlset(page.content)) == 2
            for response in (index, page):
                if dated:
                    assert_valid_last_modified(response, time.time())
                else:
                    assert not response.has_header("Last-Modified")
    assert client.get("/sitemap.xml", headers={"if-none-match": index["ETag"]}).status_code == 304


@pytest.fixture
def article_site(sitemaps: Any, settings: Any) -> None:
    settings.TIME_ZONE = "America/Chicago"

    @sitemapkit.register(Article)
    class ArticleSitemap(sitemapkit.ModelSitemap):
        pass


cache_timeouts = pytest.mark.parametrize("cache_timeout", [0, 3600], ids=["uncached", "cached"])


@pytest.mark.django_db
@cache_timeouts
def test_the_latest_utc_lastmod_end_to_end(
    article_site: None, client: Client, settings: Any, cache_timeout: int
) -> None:
    settings.SITEMAPKIT = {**settings.SITEMAPKIT, "CACHE_TIMEOUT": cache_timeout}
    Article.objects.create(slug="old", updated_at=datetime.datetime(2026, 1, 1, tzinfo=UTC))
    Article.objects.create(slug="latest", updated_at=LATEST.replace(tzinfo=UTC))
    fetch_all(client)


@pytest.mark.django_db
@cache_timeouts
def test_a_local_lastmod_in_year_10000_utc_end_to_end(
    article_site: None, client: Client, settings: Any, cache_timeout: int
) -> None:
    # Without USE_TZ the row's 9999-12-31 23:59:59.999999 is Chicago time:
    # 05:59 on 10000-01-01 UTC.
    settings.USE_TZ = False
    settings.SITEMAPKIT = {**settings.SITEMAPKIT, "CACHE_TIMEOUT": cache_timeout}
    Article.objects.create(slug="old", updated_at=datetime.datetime(2026, 1, 1))
    Article.objects.create(slug="latest", updated_at=LATEST)
    # That lastmod cannot be written in Chicago: the entry is listed without it.
    fetch_all(client, dated=False)


# -- the index's lastmod of each page: one definition, live and built ------------------------

T0 = datetime.datetime(2026, 1, 1, tzinfo=UTC)
BASE = "https://www.example.com"


def register_articles(sitemaps: Any, skip: str | None = None) -> None:
    """Articles 10 a page; the one whose slug is ``skip`` has a location no sitemap may list."""

    @sitemapkit.register(Article)
    class ArticleSitemap(sitemapkit.ModelSitemap):
        limit = 10

        def get_queryset(self) -> Any:
            return Article.objects.filter(published=True)

        def location(self, item: Article) -> str:
            return "mailto:x@example.com" if item.slug == skip else f"/articles/{item.slug}/"


def add_articles(count: int) -> list[Article]:
    Article.objects.bulk_create(
        Article(slug=f"a{i}", updated_at=T0 + datetime.timedelta(hours=i)) for i in range(count)
    )
    return list(Article.objects.order_by("pk"))


def served_index(client: Client, settings: Any, *, built: bool) -> bytes:
    """``/sitemap.xml`` as the views serve it: the published build's, or rendered live."""
    settings.SITEMAPKIT = {**settings.SITEMAPKIT, "SERVE_BUILT_FILES": built, "CACHE_TIMEOUT": 0}
    response = client.get("/sitemap.xml")
    assert response.status_code == 200
    return b"".join(response)


def built_index(folder: Any) -> bytes:
    return (folder / "current" / "sitemap.xml").read_bytes()


def lastmods(index: bytes) -> dict[str, str | None]:
    return dict(parse_index(index))


@pytest.mark.django_db
def test_an_unchanged_page_never_announces_an_older_lastmod(
    sitemaps: Any, client: Client, settings: Any, tmp_path: Any
) -> None:
    """Build; delete a row (the newest of page 1) and edit a row of page 3; invalidate.

    Whichever index is served -- the build before, the live one, the next build --
    the pages whose rows did not change keep their lastmod, and live equals built.
    """
    settings.SITEMAPKIT = {**settings.SITEMAPKIT, "BUILD_DIR": str(tmp_path)}
    register_articles(sitemaps)
    rows = add_articles(35)
    call_command("sitemapkit_build", verbosity=0)
    before = built_index(tmp_path)
    assert served_index(client, settings, built=False) == before

    rows[9].delete()
    rows[25].updated_at = T0 + datetime.timedelta(days=30)
    rows[25].save()
    sitemaps.invalidate()
    live_between = served_index(client, settings, built=False)
    served_between = served_index(client, settings, built=True)
    call_command("sitemapkit_build", verbosity=0)
    after = built_index(tmp_path)
    assert served_index(client, settings, built=False) == after
    assert served_index(client, settings, built=True) == after
    assert live_between == after

    unchanged = [f"{BASE}/sitemap-testapp-article-{n}.xml" for n in (2, 4)]
    for index in (served_between, live_between, after):
        for page in unchanged:
            assert lastmods(index)[page] == lastmods(before)[page], page
    # The changed pages: page 1 dated by its newest row left, page 3 by the edit.
    assert (
        lastmods(after)[f"{BASE}/sitemap-testapp-article-1.xml"] == rows[8].updated_at.isoformat()
    )
    assert lastmods(after)[f"{BASE}/sitemap-testapp-article-3.xml"] == "2026-01-31T00:00:00+00:00"


@pytest.mark.django_db
def test_a_skipped_item_dates_its_page_alike_live_and_built(
    sitemaps: Any, client: Client, settings: Any, tmp_path: Any
) -> None:
    """The newest row of page 2 is skipped (its location may not be listed): the live index,
    which counts rows without rendering them, and the build give page 2 the same lastmod."""
    settings.SITEMAPKIT = {**settings.SITEMAPKIT, "BUILD_DIR": str(tmp_path)}
    register_articles(sitemaps, skip="a19")
    rows = add_articles(25)
    call_command("sitemapkit_build", verbosity=0)
    built = built_index(tmp_path)
    live = served_index(client, settings, built=False)
    assert live == built
    page_2 = lastmods(built)[f"{BASE}/sitemap-testapp-article-2.xml"]
    assert page_2 == rows[19].updated_at.isoformat()
    urlset = client.get("/sitemap-testapp-article-2.xml")
    assert "/articles/a19/" not in b"".join(urlset).decode()
