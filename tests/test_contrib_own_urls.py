"""contrib classes overriding ``_urls()`` or ``get_urls()`` list what contrib's views list."""

from __future__ import annotations

import datetime
from typing import Any

import pytest
from django.test import Client
from django.test.utils import override_settings

import django_sitemapkit as sitemapkit
from django_sitemapkit._checks import check_sites
from tests.contribviews import Entry, by_loc, contrib_files, same_day, sitemapkit_files
from tests.testapp.models import Entry as BlogEntry
from tests.urls_own_urls import SITEMAPS, WeblogSitemap

pytestmark = pytest.mark.django_db

SETTINGS = {
    "ROOT_URLCONF": "tests.urls_own_urls",
    "MIDDLEWARE": ["django.middleware.locale.LocaleMiddleware"],
    "LANGUAGE_CODE": "en",
    "SITEMAPKIT": {"BASE_URL": "https://www.example.com", "CACHE_TIMEOUT": 0},
}


@pytest.fixture
def entries() -> list[BlogEntry]:
    start = datetime.datetime(2024, 3, 1, 12, 30, tzinfo=datetime.UTC)
    rows = [
        BlogEntry(slug=f"post-{n}", is_draft=n == 3, pub_date=start + datetime.timedelta(days=n))
        for n in range(11)
    ]
    return BlogEntry.objects.bulk_create(rows)


def lowered(entry: Entry) -> Entry:
    """A contrib entry as the protocol writes it: changefreq in lower case."""
    changefreq = None if entry.changefreq is None else entry.changefreq.lower()
    return Entry(entry.loc, entry.lastmod, changefreq, entry.priority, entry.alternates)


@pytest.mark.parametrize("section", ["weblog", "docs"])
def test_a_class_building_its_entries_lists_what_contrib_lists_page_by_page(
    sitemaps: Any, entries: list[BlogEntry], client: Client, section: str
) -> None:
    sitemapkit.register_sitemaps(SITEMAPS)
    with override_settings(**SETTINGS):
        ours = sitemapkit_files(client, section)
        theirs = contrib_files(client, section)
    assert len(ours) == len(theirs) > 1
    for our_file, their_file in zip(ours, theirs, strict=True):
        assert [same_day(entry) for entry in our_file] == [lowered(e) for e in their_file]
    assert by_loc(ours)


def test_get_urls_extra_entries_and_every_field_are_written(
    sitemaps: Any, entries: list[BlogEntry], client: Client
) -> None:
    sitemapkit.register_sitemaps(SITEMAPS)
    with override_settings(**SETTINGS):
        listed = by_loc(sitemapkit_files(client, "docs"))
        weblog = by_loc(sitemapkit_files(client, "weblog"))
    feed = listed["https://www.example.com/fr/blog/post-0/feed/"]
    assert (feed.priority, feed.changefreq, feed.alternates) == ("0.3", "weekly", frozenset())
    page = listed["https://www.example.com/de/blog/post-0/"]
    assert page.priority == "0.6"
    assert page.lastmod == "2024-03-01T12:30:00+00:00"
    assert ("x-default", "https://www.example.com/blog/post-0/") in page.alternates
    assert ("fr", "https://www.example.com/fr/blog/post-0/") in page.alternates
    assert not [loc for loc in listed if "post-3" in loc]
    # _urls() dropped changefreq and gave priority as text.
    assert {(e.changefreq, e.priority) for e in weblog.values()} <= {
        (None, "0.5"),
        (None, "0.6"),
        (None, "0.7"),
        (None, "0.8"),
    }


class Dated(WeblogSitemap):
    def get_latest_lastmod(self) -> Any:
        return None

    def get_domain(self, site: Any = None) -> str:
        return "docs.example.com"


def test_a_hook_sitemapkit_does_not_call_is_a_warning(sitemaps: Any) -> None:
    sitemapkit.register_sitemaps({"dated": Dated, **SITEMAPS})
    warnings = [message for message in check_sites() if message.id == "sitemapkit.W006"]
    assert [message.msg for message in warnings] == [
        "Sitemap section 'dated' (Dated): Dated.get_latest_lastmod is not used: the index "
        "dates each file by the newest lastmod the file lists.",
        "Sitemap section 'dated' (Dated): Dated.get_domain is not used: every URL takes the "
        "host of BASE_URL (or of the site of SITES).",
    ]
