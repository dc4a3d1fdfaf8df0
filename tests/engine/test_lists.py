"""Paging list sections (sections.py): QuerySets by slices, lists by measured cuts."""

from __future__ import annotations

import datetime
from typing import Any

import pytest
from django.contrib.sitemaps import GenericSitemap

import django_sitemapkit as sitemapkit
from django_sitemapkit._engine import sections
from django_sitemapkit._engine.pages import PageNotFound
from django_sitemapkit._engine.rendering import make_context
from tests.testapp.models import Entry

pytestmark = pytest.mark.django_db

T0 = datetime.datetime(2024, 1, 1, tzinfo=datetime.UTC)


@pytest.fixture
def context() -> Any:
    return make_context("https://www.example.com")


@pytest.fixture
def rows() -> list[Entry]:
    # pub_date falls as keys rise: the newest of a page is its first row.
    return Entry.objects.bulk_create(
        Entry(slug=f"e{n}", pub_date=T0 - datetime.timedelta(days=n)) for n in range(10)
    )


class Unordered(sitemapkit.Sitemap):
    limit = 4

    def items(self) -> Any:
        return Entry.objects.all()

    def lastmod(self, obj: Entry) -> Any:
        return obj.pub_date


def test_a_queryset_is_cut_by_count_in_key_order(
    sitemaps: Any, rows: list[Entry], context: Any
) -> None:
    sitemapkit.register(section="entries")(Unordered)
    sitemap = sitemaps["entries"]
    summaries = sections.list_figures(sitemap, context)
    assert [(s.number, s.count) for s in summaries] == [(1, 4), (2, 4), (3, 2)]
    assert [s.newest for s in summaries] == [rows[0].pub_date, rows[4].pub_date, rows[8].pub_date]
    pages = [
        [obj.slug for _key, obj in sections.list_items(sitemap, n, context)] for n in (1, 2, 3)
    ]
    assert pages == [["e0", "e1", "e2", "e3"], ["e4", "e5", "e6", "e7"], ["e8", "e9"]]
    with pytest.raises(PageNotFound):
        list(sections.list_items(sitemap, 4, context))


def test_a_generic_sitemaps_date_field_dates_pages_in_sql(
    sitemaps: Any, rows: list[Entry], context: Any, django_assert_num_queries: Any
) -> None:
    class OwnItems(GenericSitemap):  # type: ignore[type-arg]
        # Its own items(): a list section (a plain GenericSitemap is a model section).
        def items(self) -> Any:
            return super().items()

    generic = OwnItems({"queryset": Entry.objects.order_by("pk"), "date_field": "pub_date"})
    generic.limit = 4
    sitemapkit.register(sitemap_class=generic, section="generic")
    with django_assert_num_queries(4):  # the count, then one aggregate a page
        summaries = sections.list_figures(sitemaps["generic"], context)
    assert [s.newest for s in summaries] == [rows[0].pub_date, rows[4].pub_date, rows[8].pub_date]


class Pages(sitemapkit.Sitemap):
    limit = 2

    def items(self) -> list[str]:
        return ["/a/", "/b/", "/a/", "/c/", "https://elsewhere.example/"]

    def location(self, item: str) -> str:
        return item


def test_a_list_is_cut_by_what_it_lists(sitemaps: Any, context: Any) -> None:
    """Skipped items (a duplicate, another host) take no room in a page."""
    sitemapkit.register(section="pages")(Pages)
    assert sections.list_cuts(sitemaps["pages"], context, Pages().items()) == [
        sections.Cut(0, 3, None, undated=True),
        sections.Cut(3, 5, None, undated=True),
    ]
