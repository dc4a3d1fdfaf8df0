"""The change log (``CHANGE_LOG``): what a save, a delete or ``invalidate()`` notes, for whom,
and what a build reads and consumes."""

from __future__ import annotations

import datetime
from typing import Any

import pytest
from django.db import transaction

import django_sitemapkit as sitemapkit
from django_sitemapkit import changelog
from django_sitemapkit.models import SitemapChange
from django_sitemapkit.sites import SitemapSite
from tests.testapp.models import Article, Tag

pytestmark = pytest.mark.django_db(transaction=True)

T0 = datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC)


@pytest.fixture
def log_on(settings: Any, sitemaps: Any) -> None:
    settings.SITEMAPKIT = {**settings.SITEMAPKIT, "CHANGE_LOG": True}
    sitemapkit.register(Article)


def noted() -> list[tuple[str, str, str | None]]:
    return list(SitemapChange.objects.order_by("id").values_list("target", "section", "key"))


def test_saves_and_deletes_of_listed_rows_are_noted(log_on: None) -> None:
    article = Article.objects.create(slug="a", updated_at=T0)
    article.title = "edited"
    article.save()
    key = str(article.pk)
    article.delete()
    Tag.objects.create(slug="t")  # no section lists tags
    assert noted() == [("sitemapkit", "testapp-article", key)] * 3


def test_nothing_is_noted_with_the_log_off(sitemaps: Any) -> None:
    sitemapkit.register(Article)
    Article.objects.create(slug="a", updated_at=T0)
    sitemapkit.invalidate(Article)
    assert noted() == []


def test_a_rolled_back_write_notes_nothing(log_on: None) -> None:
    def write_then_fail() -> None:
        with transaction.atomic():
            Article.objects.create(slug="a", updated_at=T0)
            assert len(noted()) == 1
            raise RuntimeError

    with pytest.raises(RuntimeError):
        write_then_fail()
    assert noted() == []


def test_invalidate_notes_keys_or_a_scan(log_on: None) -> None:
    sitemapkit.invalidate(Article, pks=[3, 4])
    sitemapkit.invalidate("testapp-article")
    sitemapkit.invalidate(Tag)  # lists nothing
    assert noted() == [
        ("sitemapkit", "testapp-article", "3"),
        ("sitemapkit", "testapp-article", "4"),
        ("sitemapkit", "testapp-article", None),
    ]
    changes = changelog.read("sitemapkit")
    assert changes.of("testapp-article") is None  # a scan: keys or not
    assert changes.of("testapp-tag") == set()


def test_each_site_and_registry_gets_its_own_rows(settings: Any, sitemaps: Any) -> None:
    settings.SITEMAPKIT = {
        "CHANGE_LOG": True,
        "SITES": {
            "shop": {"BASE_URL": "https://shop.example.com", "SECTIONS": ["articles", "tags"]},
            "blog": {"BASE_URL": "https://blog.example.com", "SECTIONS": ["articles"]},
            "docs": {"BASE_URL": "https://docs.example.com", "SECTIONS": ["tags"]},
        },
    }
    sitemapkit.register(Article, section="articles")
    sitemapkit.register(Tag, section="tags")
    other = SitemapSite("other")
    other.register(Article, section="articles")
    article = Article.objects.create(slug="a", updated_at=T0)
    key = str(article.pk)
    # A build per registry and site: "docs" lists no section of articles.
    assert sorted(noted()) == [
        ("other@blog", "articles", key),
        ("other@shop", "articles", key),
        ("sitemapkit@blog", "articles", key),
        ("sitemapkit@shop", "articles", key),
    ]


def test_a_build_consumes_exactly_the_rows_it_read(log_on: None) -> None:
    sitemapkit.invalidate(Article, pks=[1])
    changes = changelog.read("sitemapkit")
    # Noted after the read (a transaction committing late): left for the next build.
    sitemapkit.invalidate(Article, pks=[2])
    assert changes.consume(["testapp-article"]) == 1
    assert noted() == [("sitemapkit", "testapp-article", "2")]
    assert changelog.read("sitemapkit").of("testapp-article") == {"2"}
