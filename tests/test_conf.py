from __future__ import annotations

from typing import Any

from django_sitemapkit.conf import get_settings


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
