"""Entries of i18n sections: each item in each of its languages, with alternates (entries.py)."""

from __future__ import annotations

import datetime
import logging
from typing import Any

import pytest
from django.test import Client
from django.test.utils import override_settings
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import django_sitemapkit as sitemapkit
from django_sitemapkit._engine import rows
from tests.contribviews import HOST, entries, get
from tests.perrow import PerRow
from tests.testapp.models import Entry

pytestmark = pytest.mark.django_db

I18N = {"ROOT_URLCONF": "tests.urls_i18n", "LANGUAGE_CODE": "en"}
T0 = datetime.datetime(2024, 3, 1, 12, 30, tzinfo=datetime.UTC)


class Base(sitemapkit.ModelSitemap):
    """Entries in each language, with alternates."""

    model = Entry
    lastmod_field = "pub_date"
    i18n = True
    alternates = True
    x_default = True


class Slow(PerRow, Base):
    """Instances, ``get_absolute_url()`` reversed under each language."""


class Fast(Base):
    """Column rows: one URL template per language."""

    url_name = "entry-detail"
    url_kwargs = {"slug": "slug"}


class Derived(Base):
    """Column rows: the URL template read from ``Entry.get_absolute_url()``."""


def register_both(sitemaps: Any) -> None:
    sitemapkit.register(section="slow")(Slow)
    sitemapkit.register(section="fast")(Fast)
    sitemapkit.register(section="derived")(Derived)


def page(client: Client, section: str) -> bytes:
    return get(client, f"/sitemap-{section}-1.xml")


SLUGS = st.one_of(
    st.from_regex(r"[A-Za-z0-9_-]{1,30}", fullmatch=True),
    st.text(st.sampled_from([*"aZ09-_.~ é日%&<>\"'/"]), min_size=1, max_size=20),
)


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(slugs=st.lists(SLUGS, min_size=1, max_size=12, unique=True))
def test_the_fast_path_writes_what_instances_write(
    sitemaps: Any, client: Client, slugs: list[str]
) -> None:
    Entry.objects.all().delete()
    # The position prefix keeps the slugs unique under MariaDB's case- and
    # accent-insensitive collation too.
    Entry.objects.bulk_create(
        Entry(slug=f"{n}-{slug}", pub_date=T0) for n, slug in enumerate(slugs)
    )
    register_both(sitemaps)
    with override_settings(
        **I18N, SITEMAPKIT={"BASE_URL": "https://www.example.com", "CACHE_TIMEOUT": 0}
    ):
        slow = client.get("/sitemap-slow-1.xml", **HOST)
        fast = client.get("/sitemap-fast-1.xml", **HOST)
        derived = client.get("/sitemap-derived-1.xml", **HOST)
    # Every row skipped: no file (404), by each path alike.
    assert slow.status_code == fast.status_code == derived.status_code in (200, 404)
    assert rows.url_route(sitemaps["derived"]) is not None
    if slow.status_code == 200:
        assert slow.content == fast.content == derived.content
        for entry in entries(slow.content):
            assert {lang for lang, _href in entry.alternates} == {"en", "fr", "de", "x-default"}


def test_a_fast_page_in_three_languages_is_one_query(
    sitemaps: Any, client: Client, django_assert_max_num_queries: Any
) -> None:
    Entry.objects.bulk_create(Entry(slug=f"e{n}", pub_date=T0) for n in range(3000))
    sitemapkit.register(section="fast")(Fast)
    with override_settings(
        **I18N, SITEMAPKIT={"BASE_URL": "https://www.example.com", "CACHE_TIMEOUT": 0}
    ):
        page(client, "fast")  # records the page table
        with django_assert_max_num_queries(2):
            content = page(client, "fast")
    assert content.count(b"<url>") == 9000
    assert content.count(b"<xhtml:link ") == 9000 * 4


def test_a_page_holds_limit_urls_with_an_items_languages_together(
    sitemaps: Any, client: Client
) -> None:
    Entry.objects.bulk_create(Entry(slug=f"e{n}", pub_date=T0) for n in range(10))

    class Small(Fast):
        limit = 7

    sitemapkit.register(section="small")(Small)
    with override_settings(
        **I18N, SITEMAPKIT={"BASE_URL": "https://www.example.com", "CACHE_TIMEOUT": 0}
    ):
        index = get(client, "/sitemap.xml")
        files = [entries(get(client, f"/sitemap-small-{n}.xml")) for n in range(1, 6)]
    assert index.count(b"<sitemap>") == 5
    assert [len(file) for file in files] == [6, 6, 6, 6, 6]


class Chosen(Slow):
    def get_languages_for_item(self, item: Any) -> list[str]:
        return ["fr", "xx"] if item.slug == "only-fr" else ["en", "de"]


def test_languages_outside_settings_are_left_out_with_a_warning(
    sitemaps: Any, client: Client, caplog: pytest.LogCaptureFixture
) -> None:
    Entry.objects.bulk_create([Entry(slug="only-fr", pub_date=T0), Entry(slug="both", pub_date=T0)])
    sitemapkit.register(section="chosen")(Chosen)
    with override_settings(**I18N), caplog.at_level(logging.WARNING, "django_sitemapkit"):
        listed = {entry.loc: entry for entry in entries(page(client, "chosen"))}
    assert set(listed) == {
        "https://www.example.com/fr/blog/only-fr/",
        "https://www.example.com/en/blog/both/",
        "https://www.example.com/de/blog/both/",
    }
    # x-default only where LANGUAGE_CODE is one of the item's languages, as in contrib.
    assert "x-default" not in dict(listed["https://www.example.com/fr/blog/only-fr/"].alternates)
    assert dict(listed["https://www.example.com/de/blog/both/"].alternates)["x-default"] == (
        "https://www.example.com/blog/both/"
    )
    assert "left out language 'xx'" in caplog.text


class Failing(Slow):
    def location(self, item: Any) -> str:
        if item.slug == "bad":
            raise ValueError("no URL")
        return str(item.get_absolute_url())


def test_one_failing_item_is_skipped_and_counted(sitemaps: Any, client: Client) -> None:
    Entry.objects.bulk_create([Entry(slug="bad", pub_date=T0), Entry(slug="good", pub_date=T0)])
    sitemapkit.register(section="failing")(Failing)
    with override_settings(**I18N):
        listed = [entry.loc for entry in entries(page(client, "failing"))]
    assert listed == [
        "https://www.example.com/en/blog/good/",
        "https://www.example.com/fr/blog/good/",
        "https://www.example.com/de/blog/good/",
    ]


class FailingLanguages(Slow):
    def get_languages_for_item(self, item: Any) -> list[str]:
        if item.slug == "bad":
            raise LookupError("no languages")
        return ["de"]


def test_failing_languages_skip_their_item_only(sitemaps: Any, client: Client) -> None:
    Entry.objects.bulk_create([Entry(slug="bad", pub_date=T0), Entry(slug="good", pub_date=T0)])
    sitemapkit.register(section="failing")(FailingLanguages)
    with override_settings(**I18N):
        listed = [entry.loc for entry in entries(page(client, "failing"))]
    assert listed == ["https://www.example.com/de/blog/good/"]
