from __future__ import annotations

import datetime
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from django_sitemapkit._protocol.extensionxml import NEWS_NS, NotNews, news_language, news_xml
from django_sitemapkit._protocol.writer import UrlsetWriter
from tests.xsd import validate_urlset

NOW = datetime.datetime(2026, 5, 10, 12, 0, tzinfo=datetime.UTC)
NEWS = {
    "publication_name": "The Example Times",
    "publication_language": "en",
    "publication_date": NOW - datetime.timedelta(hours=47),
    "title": "Companies A, B in merger talks",
}


def valid(xml: str) -> Any:
    writer = UrlsetWriter(namespaces={"news": NEWS_NS})
    writer.add_xml(f"<url><loc>https://www.example.com/n</loc>{xml}</url>\n")
    return validate_urlset(writer.content())


def test_an_article_of_the_last_two_days() -> None:
    xml = news_xml(NEWS, NOW, datetime.UTC)
    assert "<news:publication_date>2026-05-08T13:00:00+00:00</news:publication_date>" in xml
    valid(xml)


def test_older_articles_are_not_news() -> None:
    old = {**NEWS, "publication_date": NOW - datetime.timedelta(days=2, seconds=1)}
    with pytest.raises(NotNews) as caught:
        news_xml(old, NOW, datetime.UTC)
    assert caught.value.old


@pytest.mark.parametrize(
    "change",
    [
        {"publication_date": None},
        {"publication_date": "soon"},
        {"title": " "},
        {"publication_name": None},
        {"publication_language": "english"},
    ],
)
def test_incomplete_news_is_not_news(change: dict[str, Any]) -> None:
    with pytest.raises(NotNews) as caught:
        news_xml({**NEWS, **change}, NOW, datetime.UTC)
    assert not caught.value.old


def test_languages_as_google_wants_them() -> None:
    assert news_language("en-US") == "en"
    assert news_language("zh-TW") == "zh-tw"
    assert news_language("gsw") == "gsw"


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.text(max_size=200), title=st.text(max_size=400), language=st.text(max_size=6))
def test_whatever_users_give_the_file_validates(name: str, title: str, language: str) -> None:
    try:
        xml = news_xml(
            {**NEWS, "publication_name": name, "title": title, "publication_language": language},
            NOW,
            datetime.UTC,
        )
    except NotNews:
        return
    valid(xml)
