from __future__ import annotations

import datetime
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import SystemCheckError
from django.db import connection
from django.test.utils import CaptureQueriesContext

import django_sitemapkit as sitemapkit
from django_sitemapkit._checks import check_index_directory, check_settings, check_sites
from tests.perrow import PerRow
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


@pytest.mark.parametrize("value", ["css", None, False])
def test_a_stylesheet_browsers_keep_is_not_warned_of(settings: Any, value: object) -> None:
    settings.SITEMAPKIT = {**settings.SITEMAPKIT, "STYLESHEET": value}
    assert check_settings() == []


@pytest.mark.parametrize("value", ["xsl", True])
def test_the_xsl_is_warned_of_as_browsers_remove_xslt(settings: Any, value: object) -> None:
    settings.SITEMAPKIT = {**settings.SITEMAPKIT, "STYLESHEET": value}
    [warning] = check_settings()
    assert warning.id == "sitemapkit.W008"
    assert f"SITEMAPKIT['STYLESHEET'] = {value!r} names the XSL stylesheet" in warning.msg
    assert "removing XSLT" in warning.msg and '"css"' in warning.hint and "None" in warning.hint
    call_command("check", "--fail-level", "ERROR")  # a warning: runserver and migrate run


@pytest.mark.parametrize("value", ["XSL", "text/css", "", 1, 0, ["css"], {"css": True}])
def test_a_stylesheet_it_does_not_take_is_an_error(settings: Any, value: object) -> None:
    settings.SITEMAPKIT = {**settings.SITEMAPKIT, "STYLESHEET": value}
    [error] = check_settings()
    assert error.id == "sitemapkit.E028"
    assert error.msg == f"SITEMAPKIT['STYLESHEET'] is {value!r}, not one of 'css', 'xsl', None."
    with pytest.raises(SystemCheckError, match=r"sitemapkit\.E028"):
        call_command("check")


def test_messages_have_hints(settings: Any) -> None:
    settings.SITEMAPKIT = {}
    [error] = check_settings()
    assert "BASE_URL" in error.msg and error.hint


def test_base_url_messages_are_those_of_every_other_caller(settings: Any) -> None:
    # The views, builds and sitemapkit_robots word these failures the same way.
    settings.SITEMAPKIT = {}
    [missing] = check_settings()
    assert missing.msg.startswith("SITEMAPKIT['BASE_URL'] is not set: ")
    settings.SITEMAPKIT = {"BASE_URL": "ftp://example.com"}
    [malformed] = check_settings()
    assert malformed.msg == (
        "SITEMAPKIT['BASE_URL'] is malformed: scheme must be http or https, not 'ftp'."
    )


def test_missing_lastmod_field_warns(sitemaps: Any) -> None:
    sitemapkit.register(Author)
    [warning] = check_sites()
    assert warning.id == "sitemapkit.W001"
    assert "testapp.Author has no 'updated_at' field" in warning.msg


def test_lastmod_field_none_silences_the_warning(sitemaps: Any) -> None:
    @sitemapkit.register(Author)
    class AuthorSitemap(sitemapkit.ModelSitemap):
        lastmod_field = None

    assert check_sites() == []


def test_wrong_lastmod_field_is_an_error(sitemaps: Any) -> None:
    @sitemapkit.register(Event)
    class EventSitemap(sitemapkit.ModelSitemap):
        lastmod_field = "url"

    @sitemapkit.register(Author)
    class AuthorSitemap(sitemapkit.ModelSitemap):
        lastmod_field = "modified_at"

    assert ids(check_sites()) == ["sitemapkit.E009", "sitemapkit.E009"]


def test_bad_attributes(sitemaps: Any) -> None:
    @sitemapkit.register(Article)
    class ArticleSitemap(sitemapkit.ModelSitemap):
        priority = 2
        changefreq = "sometimes"
        limit = 50_001

    @sitemapkit.register(Tag, section="Bad Name")
    class TagSitemap(sitemapkit.ModelSitemap):
        limit = 0

    assert ids(check_sites()) == [
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

    assert check_sites() == []


def test_duplicate_sections(sitemaps: Any) -> None:
    sitemapkit.register(Tag, section="things")
    sitemapkit.register(Article, section="things")
    assert "sitemapkit.E007" in ids(check_sites())


def test_checks_run_through_manage_py_check(sitemaps: Any, settings: Any) -> None:
    settings.SITEMAPKIT = {}
    with pytest.raises(SystemCheckError, match=r"sitemapkit\.E001"):
        call_command("check")


DIRECTORY_HINT = 'path("", site.urls)'


def register_outside_sections() -> None:
    """Three sections whose URLs lie at the site's root, each known without a query."""

    @sitemapkit.register(section="pages")
    class PageSitemap(sitemapkit.StaticViewSitemap):
        url_names = ["home", "about"]

    @sitemapkit.register(Article)
    class ArticleSitemap(sitemapkit.ModelSitemap):
        url_name = "article-detail"
        url_kwargs = {"slug": "slug"}

    @sitemapkit.register(section="list")
    class ListSitemap(sitemapkit.Sitemap):
        def items(self) -> list[str]:
            return ["/item/1/"]

        def location(self, item: str) -> str:
            return item


@pytest.mark.urls("tests.urls_sitemapkit_in_directory")
def test_urls_outside_the_index_directory_are_an_error(sitemaps: Any) -> None:
    register_outside_sections()
    errors = check_index_directory()
    assert ids(errors) == ["sitemapkit.E014"] * 3
    pages, articles, items = errors
    assert pages.msg.startswith("Sitemap section 'pages' (")
    assert pages.msg.endswith(
        "PageSitemap) lists https://www.example.com/, outside "
        "https://www.example.com/sitemapkit/, the directory of the sitemap index "
        "/sitemapkit/sitemap.xml: a sitemap may only list URLs under its own directory."
    )
    assert "lists URLs starting https://www.example.com/articles/," in articles.msg
    assert "lists https://www.example.com/item/1/," in items.msg
    assert all(DIRECTORY_HINT in error.hint for error in errors)


def test_urls_under_an_index_at_the_root_are_fine(sitemaps: Any) -> None:
    register_outside_sections()
    assert check_index_directory() == []


@pytest.mark.urls("tests.urls_without_sitemapkit")
def test_unrouted_views_put_the_index_at_the_root(sitemaps: Any) -> None:
    @sitemapkit.register(section="pages")
    class PageSitemap(sitemapkit.StaticViewSitemap):
        url_names = ["home", "about"]

    assert check_index_directory() == []


@pytest.mark.urls("tests.urls_sitemapkit_in_directory")
def test_urls_inside_the_index_directory_are_fine(sitemaps: Any) -> None:
    @sitemapkit.register(section="help")
    class HelpSitemap(sitemapkit.StaticViewSitemap):
        url_names = ["sitemapkit-help"]

    @sitemapkit.register(Article)
    class ArticleSitemap(sitemapkit.ModelSitemap):
        url_name = "nested-article"
        url_kwargs = {"slug": "slug"}

    assert check_index_directory() == []


@pytest.mark.django_db
@pytest.mark.urls("tests.urls_sitemapkit_in_directory")
def test_the_directory_check_makes_no_query(sitemaps: Any) -> None:
    """Sections that need rows are left to sitemapkit_build, which checks their first URL."""
    Article.objects.create(slug="a", updated_at=datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC))

    @sitemapkit.register(Article)
    class PerRowArticles(PerRow, sitemapkit.ModelSitemap):
        """location() per row: only a row can tell."""

    @sitemapkit.register(section="from-rows")
    class RowSitemap(sitemapkit.Sitemap):
        def items(self) -> list[Article]:
            return list(Article.objects.all())

    # Both would be errors if the check read the row (see the build's tests).
    with CaptureQueriesContext(connection) as queries:
        assert check_index_directory() == []
    assert len(queries) == 0


@pytest.mark.django_db
@pytest.mark.urls("tests.urls_sitemapkit_in_directory")
def test_the_directory_check_reads_a_derived_pattern_with_no_query(sitemaps: Any) -> None:
    """register(Article): get_absolute_url() is read as the URL pattern, whose prefix tells."""
    Article.objects.create(slug="a", updated_at=datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC))
    sitemapkit.register(Article)
    with CaptureQueriesContext(connection) as queries:
        errors = check_index_directory()
    assert len(queries) == 0
    assert ids(errors) == ["sitemapkit.E014"]
    assert "lists URLs starting https://www.example.com/articles/, outside" in errors[0].msg


@pytest.mark.urls("tests.urls_sitemapkit_in_directory")
def test_directory_check_runs_through_manage_py_check(sitemaps: Any) -> None:
    register_outside_sections()
    with pytest.raises(SystemCheckError, match=r"sitemapkit\.E014") as caught:
        call_command("check")
    assert DIRECTORY_HINT in str(caught.value)
