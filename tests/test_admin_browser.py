"""The admin's browser of the published build: sections, files, a file's URLs (searched and
paginated, with lastmod, alternates and images) and the build history's chart.

The module builds one 100,000-URL site (two files of 50,000) once; every page of the browser is
timed on it, the times printed (``-s``) and held under a generous bound. Chromium looks at the
pages through a live server and its screenshots are kept with the stylesheet test's, in
``$SITEMAPKIT_ARTEFACTS`` (default ``tests/artefacts/``, printed).
"""

from __future__ import annotations

import datetime
import os
import shutil
import time
import tracemalloc
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlencode, urljoin, urlsplit

import pytest
from django.conf import settings as django_settings
from django.contrib.auth import login
from django.contrib.auth.models import Permission, User
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.test import Client, override_settings
from django.urls import path
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st
from lxml import html
from pytest_django.live_server_helper import LiveServer

import django_sitemapkit as sitemapkit
from django_sitemapkit._publishing.base import MANIFEST_NAME, BuildRecord, Manifest, SectionChange
from django_sitemapkit._sites import site as default_site
from django_sitemapkit.models import SitemapPage
from tests import urls
from tests.building.builds import T0, build
from tests.test_browser_stylesheet import ARTEFACTS, CHROMIUM, chromium, png_colours
from tests.test_rich_entries import I18nImagesSitemap
from tests.testapp.models import Article, Tag

pytestmark = pytest.mark.django_db

STATUS = "/admin/django_sitemapkit/sitemapstatus/"
PUBLISHED = STATUS + "published/"
FILE = PUBLISHED + "file/"
HISTORY = STATUS + "history/"
BIG = 100_000
# Seconds a page of the browser may take: generous (a loaded CI runner, PostgreSQL, MariaDB);
# the times measured are printed.
BOUND = 5.0
# Each example searches a 50,000-URL file: a few are enough.
settings_for_fuzz = hypothesis_settings(
    max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
FIRST, SECOND = "sitemap-testapp-article-1.xml", "sitemap-testapp-article-2.xml"


def slug(n: int) -> str:
    return f"a{n:06}"


@pytest.fixture(scope="module")
def big(django_db_setup: Any, django_db_blocker: Any, tmp_path_factory: Any) -> Iterator[Path]:
    """100,000 articles, built once: committed, so that a live server's thread sees them."""
    folder = tmp_path_factory.mktemp("big")
    saved = dict(default_site._registry)
    override = override_settings(
        SITEMAPKIT={**django_settings.SITEMAPKIT, "BUILD_DIR": str(folder)}
    )
    override.enable()
    default_site._registry.clear()
    sitemapkit.register(Article)
    try:
        with django_db_blocker.unblock():
            started = time.perf_counter()
            Article.objects.bulk_create(
                (
                    Article(slug=slug(n), updated_at=T0 + datetime.timedelta(seconds=n))
                    for n in range(BIG)
                ),
                batch_size=5_000,
            )
            inserted = time.perf_counter()
            build()
            print(
                f"\n100,000 rows inserted in {inserted - started:.2f} s, "
                f"built in {time.perf_counter() - inserted:.2f} s"
            )
            yield folder
            Article.objects.all().delete()
            SitemapPage.objects.all().delete()
    finally:
        default_site._registry.clear()
        default_site._registry.update(saved)
        override.disable()


def staff(*, can_view: bool = True, name: str = "operator") -> User:
    user = User.objects.create_user(name, password="pw", is_staff=True)
    if can_view:
        user.user_permissions.add(Permission.objects.get(codename="view_sitemapstatus"))
    return user


@pytest.fixture
def client() -> Client:
    client = Client()
    client.force_login(staff())
    return client


def timed(client: Client, url: str, params: dict[str, str] | None = None) -> Any:
    started = time.perf_counter()
    response = client.get(url, params or {})
    took = time.perf_counter() - started
    print(f"\nGET {url} {params or ''}: {took * 1000:.0f} ms")
    assert response.status_code == 200, response.content[:500]
    assert took < BOUND, f"{url} {params} took {took:.2f} s"
    return response


def cells(content: bytes, table: str) -> list[list[str]]:
    """Each body row of ``table`` as a person reads it, header cells included."""
    tree = html.fromstring(content.decode())
    return [
        [" ".join(cell.text_content().split()) for cell in row]
        for row in tree.cssselect(f"table.{table} tbody tr")
    ]


def file_params(name: str, **more: str) -> dict[str, str]:
    return {"registry": "sitemapkit", "site": "", "file": name, **more}


def test_the_sections_and_their_files(big: Path, client: Client) -> None:
    response = timed(client, PUBLISHED)
    sizes = {p.name: p.stat().st_size for p in (big / "current").glob("sitemap-*.xml")}
    lastmod = [(T0 + datetime.timedelta(seconds=n)).isoformat() for n in (49_999, BIG - 1)]
    assert cells(response.content, "sitemapkit-files") == [
        ["testapp-article", "1", FIRST, "50000", str(sizes[FIRST]), lastmod[0]],
        ["2", SECOND, "50000", str(sizes[SECOND]), lastmod[1]],
    ]
    (line,) = html.fromstring(response.content).cssselect("p.sitemapkit-build")
    assert "100000 URLs in 2 files, 0 skipped." in line.text_content()
    links = html.fromstring(response.content).cssselect("table.sitemapkit-files a")
    assert [a.get("href") for a in links] == [
        f"{FILE}?registry=sitemapkit&site=&file={FIRST}",
        f"{FILE}?registry=sitemapkit&site=&file={SECOND}",
    ]


def urls_shown(content: bytes) -> list[str]:
    return [row[0] for row in cells(content, "sitemapkit-urls")]


def test_a_files_urls_page_by_page(big: Path, client: Client) -> None:
    first = timed(client, FILE, file_params(FIRST))
    base = "https://www.example.com/articles/"
    assert urls_shown(first.content) == [f"{base}{slug(n)}/" for n in range(100)]
    lastmod = (T0 + datetime.timedelta(seconds=0)).isoformat()
    assert cells(first.content, "sitemapkit-urls")[0][1:] == [lastmod, "", ""]
    count = (
        html.fromstring(first.content.decode()).cssselect("p.sitemapkit-count")[0].text_content()
    )
    assert count == "50000 URLs; 1 to 100 shown."
    last = timed(client, FILE, file_params(SECOND, page="500"))
    assert urls_shown(last.content) == [f"{base}{slug(n)}/" for n in range(BIG - 100, BIG)]
    # Out of range or not a number: the last page, the first; never an error.
    assert urls_shown(timed(client, FILE, file_params(SECOND, page="9999")).content) == (
        urls_shown(last.content)
    )
    assert urls_shown(timed(client, FILE, file_params(SECOND, page="x")).content)[0] == (
        f"{base}{slug(50_000)}/"
    )


def test_searching_a_files_urls(big: Path, client: Client) -> None:
    base = "https://www.example.com/articles/"
    # In any case: the hundred URLs a099800 to a099899.
    found = timed(client, FILE, file_params(SECOND, q="A0998"))
    assert urls_shown(found.content) == [f"{base}{slug(n)}/" for n in range(99_800, 99_900)]
    count = (
        html.fromstring(found.content.decode()).cssselect("p.sitemapkit-count")[0].text_content()
    )
    assert count == "100 URLs containing “A0998”; 1 to 100 shown."
    wider = timed(client, FILE, file_params(SECOND, q="a099", page="2"))
    assert urls_shown(wider.content) == [f"{base}{slug(n)}/" for n in range(99_100, 99_200)]
    pages = html.fromstring(wider.content).cssselect("nav.sitemapkit-pages a")
    assert pages[0].get("href") == (f"?registry=sitemapkit&site=&file={SECOND}&q=a099&page=1")
    nothing = timed(client, FILE, file_params(FIRST, q="no such URL <script>"))
    assert urls_shown(nothing.content) == []
    assert b"<script>" not in nothing.content


def test_a_file_is_read_as_a_stream(big: Path, client: Client) -> None:
    """Searching the whole 50,000-URL file never holds its tree: the memory it takes stays a
    small multiple of the file's bytes (a tree of it would take several times them)."""
    size = (big / "current" / SECOND).stat().st_size
    client.get(FILE, file_params(SECOND, q="a0"))  # warm: templates, the manifest
    tracemalloc.start()
    try:
        assert client.get(FILE, file_params(SECOND, q="a0", page="400")).status_code == 200
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    print(f"\nsearching a {size:,}-byte file: peak {peak:,} bytes allocated")
    assert peak < 2 * size


def test_alternates_and_images(
    sitemaps: Any, settings: Any, tmp_path: Path, client: Client
) -> None:
    settings.SITEMAPKIT = {**settings.SITEMAPKIT, "BUILD_DIR": str(tmp_path)}
    sitemapkit.register(section="rich")(I18nImagesSitemap)
    build()
    response = client.get(FILE, file_params("sitemap-rich-1.xml"))
    base = "https://www.example.com"
    assert cells(response.content, "sitemapkit-urls")[0] == [
        f"{base}/articles/a/",
        "none",
        f"en: {base}/articles/a/ fr: {base}/articles/a/",
        f"{base}/media/a.jpg",
    ]


def test_wrong_requests_are_answers_not_errors(big: Path, client: Client) -> None:
    for params in [
        file_params("sitemap-testapp-article-3.xml"),
        file_params("../sitemapkit-manifest.json"),
        file_params(FIRST + ".gz"),
        file_params("sitemap.xml"),
        {**file_params(FIRST), "registry": "nope"},
        {**file_params(FIRST), "site": "shop"},  # no SITES
        {},
    ]:
        assert client.get(FILE, params).status_code == 404, params
    assert client.post(PUBLISHED).status_code == 405
    assert client.post(FILE + f"?registry=sitemapkit&site=&file={FIRST}").status_code == 405
    assert client.get(FILE, file_params(FIRST, q="\x00" * 5000)).status_code == 200


@settings_for_fuzz
@given(query=st.text(max_size=80), page=st.text(max_size=12))
def test_any_search_and_page_is_an_answer(big: Path, client: Client, query: str, page: str) -> None:
    response = client.get(FILE, file_params(FIRST, q=query, page=page))
    assert response.status_code == 200
    shown = urls_shown(response.content)
    assert len(shown) <= 100
    assert all(query.strip().casefold() in url.casefold() for url in shown)


@pytest.mark.parametrize("url", [PUBLISHED, FILE, HISTORY])
def test_only_staff_with_the_view_permission(big: Path, url: str) -> None:
    anonymous = Client().get(url)
    assert anonymous.status_code == 302 and anonymous["Location"].startswith("/admin/login/")
    refused = Client()
    refused.force_login(staff(can_view=False, name="someone"))
    assert refused.get(url).status_code == 403


def builds(*listed: dict[str, int]) -> list[BuildRecord]:
    """A history as the builds record it: each build's URLs listed per section."""
    return [
        BuildRecord(
            generation=f"g{n}",
            built_at=(T0 + datetime.timedelta(days=n, microseconds=5)).isoformat(),
            seconds=1.5 + n,
            sections={
                name: SectionChange(listed=urls, added=urls, skipped=n) for name, urls in s.items()
            },
            forced=n == 3,
            churn=["testapp-tag"] if n == 4 else [],
        )
        for n, s in enumerate(listed)
    ]


HISTORY_BUILDS = builds(
    {"testapp-article": 60_000, "testapp-tag": 5_000},
    {"testapp-article": 75_000, "testapp-tag": 9_000},
    {"testapp-article": 90_000, "testapp-tag": 12_000},
    {"testapp-article": 40_000, "testapp-tag": 12_500},
    {"testapp-article": 100_000, "testapp-tag": 30_000},
    {"testapp-article": 100_000},
)


def with_history(folder: Path, into: Path, history: list[BuildRecord]) -> Path:
    """``folder``'s published set, copied into ``into`` with ``history`` in its manifest, as
    the builds record it (the manifest's format being the contract)."""
    shutil.copytree(folder, into, symlinks=True)
    manifest_file = into / "current" / MANIFEST_NAME
    manifest = Manifest.from_json(manifest_file.read_bytes())
    manifest.history = history
    manifest_file.write_bytes(manifest.to_json())
    return into


def test_the_history_chart(big: Path, client: Client, settings: Any, tmp_path: Path) -> None:
    folder = with_history(big, tmp_path / "set", HISTORY_BUILDS)
    settings.SITEMAPKIT = {**settings.SITEMAPKIT, "BUILD_DIR": str(folder)}
    response = timed(client, HISTORY)
    tree = html.fromstring(response.content)
    (svg,) = tree.cssselect("svg.sitemapkit-chart")
    assert svg.cssselect("title")[0].text_content() == "URLs listed per section, build by build"
    desc = svg.cssselect("desc")[0].text_content()
    assert "testapp-article: 60000, 75000, 90000, 40000, 100000, 100000." in desc
    assert "testapp-tag: 5000, 9000, 12000, 12500, 30000." in desc
    lines = svg.cssselect("polyline")
    assert [len(line.get("points").split()) for line in lines] == [6, 5]
    # The oldest build on the left, the axis from 0 (the bottom) to 100,000 (the top).
    article = [tuple(map(float, p.split(","))) for p in lines[0].get("points").split()]
    assert [x for x, _ in article] == sorted(x for x, _ in article)
    assert article[4][1] == min(y for _, y in article) and article[3][1] > article[0][1]
    legend = [li.text_content() for li in tree.cssselect(".sitemapkit-legend li")]
    assert legend == ["testapp-article", "testapp-tag"]
    rows = cells(response.content, "sitemapkit-builds")
    assert rows[0] == [
        "1",
        "g0",
        "2026-01-01T00:00:00+00:00",
        "1.50",
        "60000 (+60000 −0 ~0)",
        "5000 (+5000 −0 ~0)",
        "0",
        "",
    ]
    assert rows[3][-1] == "forced past the shrink guard"
    assert rows[4][-1] == "lastmod churn: testapp-tag"
    assert rows[4][-2] == "8"  # 4 skipped in each section
    assert rows[5][-3:] == ["none", "5", ""]


def test_without_a_build_or_history(
    sitemaps: Any, settings: Any, tmp_path: Path, client: Client
) -> None:
    settings.SITEMAPKIT = {**settings.SITEMAPKIT, "BUILD_DIR": str(tmp_path)}
    sitemapkit.register(Tag)
    for url in (PUBLISHED, HISTORY):
        assert b"No published build" in client.get(url).content or url == HISTORY
    assert b"No build recorded yet" in client.get(HISTORY).content


def test_one_block_per_site(sitemaps: Any, settings: Any, tmp_path: Path, client: Client) -> None:
    settings.SITEMAPKIT = {
        "SITES": {
            "shop": {"BASE_URL": "https://shop.example.com", "SECTIONS": ["tags"]},
            "blog": {"BASE_URL": "https://blog.example.com", "SECTIONS": ["tags"]},
        },
        "BUILD_DIR": str(tmp_path),
    }
    sitemapkit.register(Tag, section="tags")
    Tag.objects.create(slug="t", updated_at=T0)
    build(site="shop")
    tree = html.fromstring(client.get(PUBLISHED).content)
    assert [h.text_content() for h in tree.cssselect(".sitemapkit-set h2")] == [
        "site shop",
        "site blog",
    ]
    (link,) = tree.cssselect("table.sitemapkit-files a")
    shown = client.get(link.get("href"))
    assert urls_shown(shown.content) == ["https://shop.example.com/tags/t/"]
    # Under SITES a file is named with its site.
    assert client.get(FILE, file_params("sitemap-tags-1.xml")).status_code == 404


def links(content: bytes, page: str) -> set[str]:
    return {
        urljoin(page, href)
        for href in html.fromstring(content).xpath("//a/@href")
        if not href.startswith("#")
    }


def test_every_link_answers(big: Path, client: Client, settings: Any, tmp_path: Path) -> None:
    """Each link of the browser's pages (and the status page's to them) answers 200."""
    folder = with_history(big, tmp_path / "set", HISTORY_BUILDS)
    settings.SITEMAPKIT = {**settings.SITEMAPKIT, "BUILD_DIR": str(folder)}
    pages = [
        STATUS,
        PUBLISHED,
        HISTORY,
        f"{FILE}?registry=sitemapkit&site=&file={SECOND}&q=a09",
    ]
    followed = set()
    for page in pages:
        for link in links(client.get(page).content, page) - followed:
            followed.add(link)
            parts = urlsplit(link)
            assert not parts.netloc, link  # no link leaves the site
            status = client.get(f"{parts.path}?{parts.query}").status_code
            assert status == 200, link
    # The browser's pages, each file, the search's pages, the explain lookup of a URL.
    assert PUBLISHED in followed and HISTORY in followed
    assert any(link.startswith(f"{STATUS}?url=") for link in followed)
    assert any("&page=" in link for link in followed)
    print(f"\n{len(followed)} links followed")


# The live server logs a person in with a link: Chromium keeps the session's cookie.
def log_in(request: HttpRequest) -> HttpResponse:
    login(request, User.objects.get(username="chromium"))
    return HttpResponseRedirect(request.GET["next"])


urlpatterns = [path("test-login/", log_in), *urls.urlpatterns]


# Transactional: the live server's thread sees the user (on PostgreSQL and MariaDB too).
@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(
    CHROMIUM is None and not os.environ.get("CI"),
    reason="no chromium (apt-get install chromium); required under CI",
)
def test_chromium_shows_the_pages(big: Path, settings: Any, tmp_path: Path) -> None:
    folder = with_history(big, tmp_path / "set", HISTORY_BUILDS)
    settings.ROOT_URLCONF = __name__
    ARTEFACTS.mkdir(parents=True, exist_ok=True)
    staff(name="chromium")
    # The admin's CSS, served by the live server as runserver serves it.
    settings.INSTALLED_APPS = [*settings.INSTALLED_APPS, "django.contrib.staticfiles"]
    live = LiveServer("localhost")
    settings.SITEMAPKIT = {**settings.SITEMAPKIT, "BASE_URL": live.url}
    shots = {
        "admin-published.png": (PUBLISHED, None),
        "admin-file-search.png": (
            f"{FILE}?registry=sitemapkit&site=&file={SECOND}&q=a0998&page=1",
            None,
        ),
        "admin-history.png": (HISTORY, folder),
    }
    try:
        for name, (page, build_dir) in shots.items():
            if build_dir is not None:
                settings.SITEMAPKIT = {**settings.SITEMAPKIT, "BUILD_DIR": str(build_dir)}
            shot = tmp_path / name
            started = time.perf_counter()
            chromium(
                f"--screenshot={shot}",
                "--window-size=1280,1100",
                f"{live.url}/test-login/?{urlencode({'next': page})}",
            )
            print(f"\nChromium: {page} in {time.perf_counter() - started:.2f} s")
            assert len(png_colours(shot)) > 10, f"{shot} is blank"
            shutil.copy(shot, ARTEFACTS / name)
            dom = html.fromstring(
                chromium("--dump-dom", f"{live.url}/test-login/?{urlencode({'next': page})}")
            )
            assert dom.cssselect("#content-main table"), f"{page}: no table in Chromium"
    finally:
        live.stop()
    print(f"\nscreenshots: {ARTEFACTS}")
