"""What a section checks about itself for contrib's API: E016-E019, and W001 with lastmod()."""

from __future__ import annotations

from typing import Any

import pytest
from django.test.utils import override_settings

import django_sitemapkit as sitemapkit
from django_sitemapkit._checks import check_sites
from tests.testapp.models import Article, Author, Entry


def ids(messages: list[Any]) -> list[str]:
    return [message.id for message in messages]


def test_languages_outside_settings_languages_are_an_error(sitemaps: Any) -> None:
    @sitemapkit.register(section="pages")
    class Pages(sitemapkit.StaticViewSitemap):
        url_names = ["home"]
        i18n = True
        languages = ["en", "es"]

    [message] = check_sites()
    assert message.id == "sitemapkit.E016"
    assert "'es'" in message.msg


def test_languages_of_settings_languages_are_fine(sitemaps: Any) -> None:
    @sitemapkit.register(section="pages")
    class Pages(sitemapkit.StaticViewSitemap):
        url_names = ["home"]
        i18n = True
        languages = ["fr", "de"]

    assert check_sites() == []


@pytest.mark.parametrize(
    ("protocol", "base_url", "request_host", "expected"),
    [
        ("https", "https://www.example.com", False, []),
        ("http", "https://www.example.com", False, ["sitemapkit.W005"]),
        ("http", "https://www.example.com", True, ["sitemapkit.W005"]),
        ("http", None, True, []),
        ("ftp", "https://www.example.com", True, ["sitemapkit.E017"]),
    ],
)
def test_a_protocol_other_than_base_urls_scheme_is_ignored_with_a_warning(
    sitemaps: Any, protocol: str, base_url: str | None, request_host: bool, expected: list[str]
) -> None:
    @sitemapkit.register(section="pages")
    class Pages(sitemapkit.StaticViewSitemap):
        url_names = ["home"]

    Pages.protocol = protocol
    sitemaps["pages"].protocol = protocol
    with override_settings(SITEMAPKIT={"BASE_URL": base_url, "USE_REQUEST_HOST": request_host}):
        assert ids(check_sites()) == expected


def test_url_name_with_lastmod_or_location_methods_is_an_error(sitemaps: Any) -> None:
    @sitemapkit.register(Article)
    class Articles(sitemapkit.ModelSitemap):
        url_name = "article-detail"
        url_kwargs = {"slug": "slug"}

        def lastmod(self, obj: Any) -> Any:
            return obj.updated_at

        def location(self, obj: Any) -> str:
            return "/x/"

    [message] = check_sites()
    assert message.id == "sitemapkit.E018"
    assert "location() and lastmod()" in message.msg


def test_a_model_sitemaps_items_must_be_a_queryset(sitemaps: Any) -> None:
    @sitemapkit.register(Article)
    class Articles(sitemapkit.ModelSitemap):
        def items(self) -> Any:
            return ["not", "rows"]

    assert "sitemapkit.E019" in ids(check_sites())


def test_lastmod_method_without_a_lastmod_field_does_not_warn(sitemaps: Any) -> None:
    @sitemapkit.register(section="blog")
    class Blog(sitemapkit.ModelSitemap):
        def items(self) -> Any:
            return Entry.objects.filter(is_draft=False)

        def lastmod(self, obj: Any) -> Any:
            return obj.pub_date

    assert check_sites() == []
    assert sitemaps["blog"].model is Entry


def test_without_lastmod_method_the_missing_field_still_warns(sitemaps: Any) -> None:
    sitemapkit.register(Author)
    assert ids(check_sites()) == ["sitemapkit.W001"]


def test_a_model_news_section_without_news_date_field_warns(sitemaps: Any) -> None:
    @sitemapkit.register(Entry)
    class EntrySitemap(sitemapkit.ModelSitemap):
        lastmod_field = "pub_date"

        def news(self, item: Any) -> dict[str, Any]:
            return {}

    [message] = check_sites()
    assert message.id == "sitemapkit.W002"
    EntrySitemap.news_date_field = "pub_date"
    assert check_sites() == []
