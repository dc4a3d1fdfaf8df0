from __future__ import annotations

from typing import Any

import pytest
from django.test import RequestFactory

from django_sitemapkit._conf import BaseUrlError, base_url, clean_base_url, get_settings


def test_defaults(settings: Any) -> None:
    settings.SITEMAPKIT = {}
    conf = get_settings()
    assert conf.BASE_URL is None
    assert conf.X_ROBOTS_TAG == "noindex"
    assert conf.CACHE_TIMEOUT == 3600
    assert "sessionid" in conf.STRIP_QUERY_PARAMS


def test_read_lazily(settings: Any) -> None:
    settings.SITEMAPKIT = {
        "BASE_URL": "https://a.test",
        "STRIP_QUERY_PARAMS": ["SID", "utm_source"],
    }
    conf = get_settings()
    assert conf.BASE_URL == "https://a.test"
    assert conf.STRIP_QUERY_PARAMS == ("sid", "utm_source")
    settings.SITEMAPKIT = {"BASE_URL": "https://b.test"}
    assert get_settings().BASE_URL == "https://b.test"


# --------------------------------------------------------------------------- base_url

NOT_SET = (
    "SITEMAPKIT['BASE_URL'] is not set: sitemaps need the site's absolute URL, "
    "e.g. 'https://www.example.com'."
)


def test_base_url_is_normalised(settings: Any) -> None:
    settings.SITEMAPKIT = {"BASE_URL": "https://Bücher.Example/shop/"}
    assert base_url() == "https://xn--bcher-kva.example/shop"


@pytest.mark.parametrize("sitemapkit", [{}, {"BASE_URL": None}, {"BASE_URL": ""}])
def test_base_url_missing(settings: Any, sitemapkit: dict[str, Any]) -> None:
    settings.SITEMAPKIT = sitemapkit
    with pytest.raises(BaseUrlError) as raised:
        base_url()
    assert raised.value.missing
    assert str(raised.value) == NOT_SET


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ("ftp://example.com", "scheme must be http or https, not 'ftp'"),
        ("   ", "must not be empty"),
        (42, "must be a string, not int"),
    ],
)
def test_base_url_malformed(settings: Any, value: object, problem: str) -> None:
    settings.SITEMAPKIT = {"BASE_URL": value}
    with pytest.raises(BaseUrlError) as raised:
        base_url()
    assert not raised.value.missing
    assert str(raised.value) == f"SITEMAPKIT['BASE_URL'] is malformed: {problem}."


def test_clean_base_url_names_its_source() -> None:
    assert clean_base_url("http://example.com:80/", "--base-url") == "http://example.com"
    with pytest.raises(BaseUrlError, match=r"^--base-url is not set: "):
        clean_base_url("", "--base-url")
    with pytest.raises(BaseUrlError, match=r"^--base-url is malformed: "):
        clean_base_url("example.com", "--base-url")


def test_base_url_of_a_request(settings: Any, rf: RequestFactory) -> None:
    request = rf.get("/sitemap.xml", HTTP_HOST="Example.com")
    settings.SITEMAPKIT = {"BASE_URL": "https://www.example.com"}
    assert base_url(request) == "https://www.example.com"
    settings.SITEMAPKIT = {"USE_REQUEST_HOST": True}
    assert base_url(request) == "http://example.com"
    # Without a request (builds, commands, checks) BASE_URL is still what counts.
    with pytest.raises(BaseUrlError):
        base_url()
