from __future__ import annotations

import datetime
from typing import Any

import pytest

import django_sitemapkit as sitemapkit
from django_sitemapkit._engine.entries import new_writer
from django_sitemapkit._engine.extensions import (
    EntryRejected,
    Extensions,
    max_entries,
    namespaces,
    news_window,
)
from django_sitemapkit._engine.rows import rows_per_page
from tests.testapp.models import Gallery, Story

BASE = "https://www.example.com"


class Plain(sitemapkit.Sitemap):
    pass


class WithImages(sitemapkit.Sitemap):
    def images(self, item: Any) -> list[str]:
        return [f"/{item}.jpg"]


class WithNews(sitemapkit.Sitemap):
    limit = 20_000
    namespaces = {"ex": "urn:example"}

    def news(self, item: Any) -> dict[str, Any]:
        return {}


class ImageColumn(sitemapkit.ModelSitemap):
    model = Gallery
    images_field = "cover"


def test_namespaces_are_declared_only_where_used() -> None:
    assert namespaces(Plain()) == {}
    assert list(namespaces(WithImages())) == ["image"]
    assert namespaces(WithNews()) == {
        "ex": "urn:example",
        "news": "http://www.google.com/schemas/sitemap-news/0.9",
    }
    assert list(namespaces(ImageColumn())) == ["image"]
    assert 'xmlns:image="http://www.google.com/schemas/sitemap-image/1.1"' in (
        new_writer(WithImages()).root_open
    )
    assert "xmlns:image" not in new_writer(Plain()).root_open


def test_a_news_section_writes_at_most_1000_urls_a_file() -> None:
    assert max_entries(WithNews()) == rows_per_page(WithNews()) == 1000
    assert new_writer(WithNews()).max_entries == 1000
    assert max_entries(Plain()) == 50_000


def test_an_inactive_section_costs_nothing_per_item() -> None:
    assert not Extensions(Plain(), BASE, datetime.UTC, repr).active
    images = Extensions(WithImages(), BASE, datetime.UTC, repr)
    assert images("a") == f"<image:image><image:loc>{BASE}/a.jpg</image:loc></image:image>"


def test_bad_news_rejects_the_item_and_old_news_quietly() -> None:
    extensions = Extensions(WithNews(), BASE, datetime.UTC, repr)
    with pytest.raises(EntryRejected) as caught:
        extensions("x")
    assert not caught.value.quiet


@pytest.mark.django_db
def test_the_news_window_is_applied_in_sql() -> None:
    class Stories(sitemapkit.ModelSitemap):
        model = Story
        news_date_field = "published_at"

        def news(self, item: Any) -> dict[str, Any]:
            return {}

    queryset = news_window(Stories(), Story.objects.all())
    assert "published_at" in str(queryset.query)
    Stories.news_date_field = None
    assert news_window(Stories(), Story.objects.all()).query.where.children == []
