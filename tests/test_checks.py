from __future__ import annotations

from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import SystemCheckError

import django_sitemapkit as sitemapkit
from django_sitemapkit.checks import check_settings, check_sitemaps
from tests.testapp.models import Article, Author, Event, Tag


def ids(messages: list[Any]) -> list[str]:
    return [m.id for m in messages]


def test_valid_settings(settings: Any) -> None:
    assert check_settings() == []


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ({}, ["sitemapkit.E001"]),
        ({"BASE_URL": ""}, ["sitemapkit.E001"]),
        ({"USE_REQUEST_HOST": True}, []),
        ({"BASE_URL": "www.example.com"}, ["sitemapkit.E002"]),
        ({"BASE_URL": "ftp://example.com"}, ["sitemapkit.E002"]),
        ({"BASE_URL": "https://example.com/?q=1"}, ["sitemapkit.E002"]),
        ({"BASE_URL": "https://example.com", "BASE_ULR": "x"}, ["sitemapkit.E003"]),
        ("https://example.com", ["sitemapkit.E010"]),
        (
            {"BASE_URL": "https://example.com", "INDEX_LINKS_GZIP": True, "GZIP": False},
            ["sitemapkit.E011"],
        ),
        ({"BASE_URL": "https://example.com", "STORAGE": "nope"}, ["sitemapkit.E012"]),
        ({"BASE_URL": "https://example.com", "CACHE_ALIAS": "nope"}, ["sitemapkit.E013"]),
    ],
)
def test_bad_settings(settings: Any, value: Any, expected: list[str]) -> None:
    settings.SITEMAPKIT = value
    assert ids(check_settings()) == expected


def test_messages_have_hints(settings: Any) -> None:
    settings.SITEMAPKIT = {}
    [error] = check_settings()
    assert "BASE_URL" in error.msg and error.hint


def test_missing_lastmod_field_warns(sitemaps: Any) -> None:
    sitemapkit.register(Author)
    [warning] = check_sitemaps()
    assert warning.id == "sitemapkit.W001"
    assert "testapp.Author has no 'updated_at' field" in warning.msg


def test_lastmod_field_none_silences_the_warning(sitemaps: Any) -> None:
    @sitemapkit.register(Author)
    class AuthorSitemap(sitemapkit.ModelSitemap):
        lastmod_field = None

    assert check_sitemaps() == []


def test_wrong_lastmod_field_is_an_error(sitemaps: Any) -> None:
    @sitemapkit.register(Event)
    class EventSitemap(sitemapkit.ModelSitemap):
        lastmod_field = "url"

    @sitemapkit.register(Author)
    class AuthorSitemap(sitemapkit.ModelSitemap):
        lastmod_field = "modified_at"

    assert ids(check_sitemaps()) == ["sitemapkit.E009", "sitemapkit.E009"]


def test_bad_attributes(sitemaps: Any) -> None:
    @sitemapkit.register(Article)
    class ArticleSitemap(sitemapkit.ModelSitemap):
        priority = 2
        changefreq = "sometimes"
        limit = 50_001

    @sitemapkit.register(Tag, section="Bad Name")
    class TagSitemap(sitemapkit.ModelSitemap):
        limit = 0

    assert ids(check_sitemaps()) == [
        "sitemapkit.E004",
        "sitemapkit.E005",
        "sitemapkit.E006",
        "sitemapkit.E008",
        "sitemapkit.E006",
    ]


def test_methods_are_not_checked_statically(sitemaps: Any) -> None:
    @sitemapkit.register(Article)
    class ArticleSitemap(sitemapkit.ModelSitemap):
        def priority(self, obj: Any) -> float:
            return 0.5

        def changefreq(self, obj: Any) -> str:
            return "daily"

    assert check_sitemaps() == []


def test_duplicate_sections(sitemaps: Any) -> None:
    sitemapkit.register(Tag, section="things")
    sitemapkit.register(Article, section="things")
    assert "sitemapkit.E007" in ids(check_sitemaps())


def test_checks_run_through_manage_py_check(sitemaps: Any, settings: Any) -> None:
    settings.SITEMAPKIT = {}
    with pytest.raises(SystemCheckError, match=r"sitemapkit\.E001"):
        call_command("check")
