"""django.contrib.sitemaps projects, registered as they are: compat.py, register_sitemaps."""

from __future__ import annotations

import datetime
import re
from typing import Any

import pytest
from django.contrib import sitemaps as contrib
from django.contrib.sitemaps import GenericSitemap
from django.test import Client
from django.test.utils import override_settings
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import django_sitemapkit as sitemapkit
from django_sitemapkit._serving.cache import sections_of
from tests import contrib_sitemaps
from tests.contribviews import HOST, by_loc, contrib_files, same_day, sitemapkit_files
from tests.contribviews import entries as entries_of
from tests.testapp.models import Entry

pytestmark = pytest.mark.django_db

LOCALE = ["django.middleware.locale.LocaleMiddleware"]
URLCONFS = ["tests.urls_contrib", "tests.urls_i18n", "tests.urls_i18n_unprefixed"]
SECTIONS = ["blog", "static", "entries", "i18n"]
NO_CACHE = {"BASE_URL": "https://www.example.com", "CACHE_TIMEOUT": 0}


@pytest.fixture
def entries() -> list[Entry]:
    start = datetime.datetime(2024, 3, 1, 12, 30, tzinfo=datetime.UTC)
    rows = [
        Entry(slug=f"post-{n}", is_draft=n % 4 == 3, pub_date=start + datetime.timedelta(days=n))
        for n in range(9)
    ]
    return Entry.objects.bulk_create(rows)


def assert_lists_what_contrib_lists(client: Client, section: str) -> None:
    ours = by_loc(sitemapkit_files(client, section))
    theirs = by_loc(contrib_files(client, section))
    assert ours, section
    assert {loc: same_day(e) for loc, e in ours.items()} == theirs
    assert not [loc for loc in ours if "post-3" in loc or "post-7" in loc], "a draft is listed"


@pytest.mark.parametrize("urlconf", URLCONFS)
@pytest.mark.parametrize("language_code", ["en-us", "en"])
def test_documentation_sitemaps_list_what_contribs_views_list(
    sitemaps: Any, entries: list[Entry], client: Client, urlconf: str, language_code: str
) -> None:
    sitemapkit.register_sitemaps(contrib_sitemaps.SITEMAPS)
    with override_settings(
        ROOT_URLCONF=urlconf, MIDDLEWARE=LOCALE, LANGUAGE_CODE=language_code, SITEMAPKIT=NO_CACHE
    ):
        for section in SECTIONS:
            assert_lists_what_contrib_lists(client, section)


@pytest.mark.parametrize("urlconf", URLCONFS)
def test_the_same_classes_rebased_on_sitemapkit_list_the_same(
    sitemaps: Any, entries: list[Entry], client: Client, urlconf: str
) -> None:
    sitemapkit.register_sitemaps(contrib_sitemaps.REBASED)
    with override_settings(
        ROOT_URLCONF=urlconf, MIDDLEWARE=LOCALE, LANGUAGE_CODE="en", SITEMAPKIT=NO_CACHE
    ):
        for section in SECTIONS:
            assert_lists_what_contrib_lists(client, section)


class Small(contrib_sitemaps.BlogSitemap):
    limit = 3


class SmallI18n(contrib_sitemaps.I18nBlogSitemap):
    limit = 5


@pytest.mark.parametrize("sitemap_class", [Small, SmallI18n])
def test_pages_split_at_the_classs_limit(
    sitemaps: Any, entries: list[Entry], client: Client, sitemap_class: Any
) -> None:
    sitemapkit.register_sitemaps({"blog": sitemap_class})
    with override_settings(ROOT_URLCONF="tests.urls_i18n", MIDDLEWARE=LOCALE, SITEMAPKIT=NO_CACHE):
        files = sitemapkit_files(client, "blog")
    assert len(files) > 1
    assert all(0 < len(file) <= sitemap_class.limit for file in files)
    # Each item's languages are in one file, never split across two.
    for file in files:
        slugs = [entry.loc.rstrip("/").rsplit("/", 1)[1] for entry in file]
        assert all(slugs.count(slug) == len(slugs) // len(set(slugs)) for slug in slugs)


def test_register_takes_every_form_contrib_projects_use(sitemaps: Any) -> None:
    @sitemapkit.register(section="decorated")
    class Decorated(contrib.Sitemap):
        def items(self) -> list[str]:
            return ["main"]

    assert isinstance(Decorated, type) and issubclass(Decorated, contrib.Sitemap)
    sitemapkit.register(None, contrib_sitemaps.StaticViewSitemap, section="called")
    generic = GenericSitemap({"queryset": Entry.objects.all()}, priority=0.3)
    sitemapkit.register(sitemap_class=generic, section="generic")
    assert sitemaps.sections() == ["decorated", "called", "generic"]
    assert sitemaps["generic"].get_model() is Entry
    assert sitemaps["generic"].priority == 0.3


def test_register_says_what_it_takes(sitemaps: Any) -> None:
    with pytest.raises(TypeError, match=r"section='name'"):
        sitemapkit.register(sitemap_class=contrib_sitemaps.BlogSitemap)
    with pytest.raises(TypeError, match=r"django\.contrib\.sitemaps Sitemap subclass or instance"):
        sitemapkit.register(section="x")(object)  # type: ignore[arg-type]


def test_a_contrib_section_is_invalidated_by_its_models_saves(
    sitemaps: Any, entries: list[Entry]
) -> None:
    sitemapkit.register_sitemaps({"blog": contrib_sitemaps.BlogSitemap})
    assert sections_of(Entry, sitemaps) == ["blog"]


@pytest.mark.parametrize(
    ("path", "target"),
    [
        ("/sitemap-blog.xml", "/sitemap-blog-1.xml"),
        ("/sitemap-blog.xml?p=1", "/sitemap-blog-1.xml"),
        ("/sitemap-blog.xml?p=2", "/sitemap-blog-2.xml"),
    ],
)
def test_contribs_section_urls_redirect_permanently(
    sitemaps: Any, client: Client, path: str, target: str
) -> None:
    sitemapkit.register_sitemaps({"blog": contrib_sitemaps.BlogSitemap})
    response = client.get(path, **HOST)
    assert response.status_code == 301
    assert response["Location"] == target


@pytest.mark.parametrize(
    "path", ["/sitemap-blog.xml?p=x", "/sitemap-blog.xml?p=0", "/sitemap-nope.xml"]
)
def test_contribs_section_urls_404_where_contrib_404s(
    sitemaps: Any, client: Client, path: str
) -> None:
    sitemapkit.register_sitemaps({"blog": contrib_sitemaps.BlogSitemap})
    assert client.get(path, **HOST).status_code == 404


# What a visitor may put in ``?p=``: digits of every script (isdigit() is true of
# "²" and "①", which int() refuses), signs, spaces, huge and overlong numbers.
UNICODE_DIGITS = "²³¹①⑨٠١٢٣٩۰۹०९０９𝟎𝟗"
page_values = st.one_of(
    st.text(alphabet="0123456789+- _.e" + UNICODE_DIGITS, max_size=12),
    st.integers(min_value=-(10**12), max_value=10**12).map(str),
    st.sampled_from([str(10**100), "9" * 5000, "0" * 5000 + "1", "1" * 4301, "1000000000"]),
)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(page_values)
def test_contribs_page_parameter_answers_301_or_404_for_every_value(
    sitemaps: Any, client: Client, value: str
) -> None:
    sitemapkit.register_sitemaps({"blog": contrib_sitemaps.BlogSitemap})
    response = client.get("/sitemap-blog.xml", {"p": value}, **HOST)
    canonical = value.lstrip("0")
    if re.fullmatch(r"[0-9]+", value) and 1 <= len(canonical) <= 9:
        assert response.status_code == 301
        assert response["Location"] == f"/sitemap-blog-{int(canonical)}.xml"
    else:
        assert response.status_code == 404, value


class PlainQuerySetSitemap(sitemapkit.Sitemap):
    def items(self) -> Any:
        return Entry.objects.filter(is_draft=False).order_by("pk")

    def lastmod(self, obj: Entry) -> Any:
        return obj.pub_date


@pytest.mark.parametrize("sitemap_class", [PlainQuerySetSitemap, contrib_sitemaps.BlogSitemap])
def test_a_querysets_page_costs_a_bounded_number_of_queries(
    sitemaps: Any, client: Client, django_assert_max_num_queries: Any, sitemap_class: Any
) -> None:
    start = datetime.datetime(2024, 1, 1, tzinfo=datetime.UTC)
    Entry.objects.bulk_create(
        (
            Entry(slug=f"e{n}", pub_date=start + datetime.timedelta(minutes=n))
            for n in range(120_000)
        ),
        batch_size=5_000,
    )
    sitemapkit.register_sitemaps({"blog": sitemap_class})
    with override_settings(SITEMAPKIT=NO_CACHE, ROOT_URLCONF="tests.urls_contrib"):
        with django_assert_max_num_queries(2):
            page = client.get("/sitemap-blog-3.xml", **HOST)
        # As before, then one small query a page probing it for an entry.
        with django_assert_max_num_queries(4 + 3):
            index = client.get("/sitemap.xml", **HOST)
    assert page.status_code == index.status_code == 200
    assert page.content.count(b"<url>") == 20_000
    assert index.content.count(b"<sitemap>") == 3
    assert b"/blog/e119999/" in page.content and b"/blog/e99999/" not in page.content


class Secure(contrib_sitemaps.StaticViewSitemap):
    protocol = "https"


def test_protocol_sets_the_scheme_of_the_sections_urls(sitemaps: Any, client: Client) -> None:
    """Behind a proxy that ends TLS, the request is http; the site, and its URLs, https."""
    sitemapkit.register_sitemaps({"static": Secure})
    conf = {"USE_REQUEST_HOST": True, "CACHE_TIMEOUT": 0}
    with override_settings(SITEMAPKIT=conf, ROOT_URLCONF="tests.urls_contrib"):
        response = client.get("/sitemap-static-1.xml", HTTP_HOST="www.example.com")
    assert response.status_code == 200
    assert [entry.loc for entry in entries_of(response.content)] == [
        "https://www.example.com/",
        "https://www.example.com/about/",
        "https://www.example.com/license/",
    ]
