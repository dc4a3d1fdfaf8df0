"""Tests for django_sitemapkit._protocol.locations: session-id parameters removed, others kept."""

from __future__ import annotations

import os

import pytest
from django.conf import settings

from django_sitemapkit._protocol.locations import (
    DEFAULT_STRIP_PARAMS,
    param_name,
    strip_path_params,
    strip_query,
)

# These tests need no Django settings, but the suite's conftest has autouse
# fixtures that touch django.core.cache.  Under "-p no:django" nothing loads
# tests.settings, so Django's defaults (a local-memory cache) stand in.
if not settings.configured and not os.environ.get("DJANGO_SETTINGS_MODULE"):
    settings.configure()

DEFAULT = frozenset(DEFAULT_STRIP_PARAMS)


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("sessionid=abc&a=1&b=2", "a=1&b=2"),
        ("a=1&PHPSESSID=abc&b=2", "a=1&b=2"),
        ("a=1&b=2&jsessionid=abc", "a=1&b=2"),
        ("session_id=abc", ""),
        ("SessionId=abc", ""),
        ("osCsid=abc&zenid=1&cfid=2&CFTOKEN=3&aspsessionid=4", ""),
        ("sessionid", ""),
        ("sessionid=", ""),
        ("session%5Fid=abc&a=1", "a=1"),
        # "?sessionid=1&" leaves only empty pieces: nothing worth a "?".
        ("sessionid=abc&", ""),
        ("sessionid=1&&", ""),
        ("a=1&sessionid=x&sessionid=y&b=2", "a=1&b=2"),
        # Other parameters keep their order and spelling, nothing re-encoded.
        ("z=%7e&sessionid=1&y=a+b&x=%2F", "z=%7e&y=a+b&x=%2F"),
        ("b=2&a=1&sessionid=1", "b=2&a=1"),
        # Without a session id, the query is returned as it is, empty pieces included.
        ("a&&b=", "a&&b="),
        # Names that merely contain a session name are not session ids.
        ("mysessionid=1&sessionidx=2&q=sessionid", "mysessionid=1&sessionidx=2&q=sessionid"),
        # "sid" is too generic to strip by default.
        ("sid=42", "sid=42"),
    ],
)
def test_strip_query(query: str, expected: str) -> None:
    assert strip_query(query, DEFAULT) == expected


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("/page;jsessionid=ABC123", "/page"),
        ("/page;JSESSIONID=ABC123/", "/page/"),
        ("/a;jsessionid=1/b;jsessionid=2", "/a/b"),
        ("/page;v=2;jsessionid=ABC;w=3", "/page;v=2;w=3"),
        ("/page;v=2", "/page;v=2"),
        ("/a;b/c", "/a;b/c"),
        ("/a/..;jsessionid=1/b", "/a/../b"),
    ],
)
def test_strip_path_params(path: str, expected: str) -> None:
    assert strip_path_params(path, DEFAULT) == expected


def test_custom_names() -> None:
    names = frozenset({"sid", "utm_source"})
    assert strip_query("sid=1&utm_source=x&sessionid=2", names) == "sessionid=2"
    assert strip_path_params("/p;sid=1;jsessionid=2", names) == "/p;jsessionid=2"


def test_no_names_strips_nothing() -> None:
    assert strip_query("sessionid=2", frozenset()) == "sessionid=2"
    assert strip_path_params("/p;jsessionid=1", frozenset()) == "/p;jsessionid=1"


@pytest.mark.parametrize(
    ("param", "name"),
    [("SessionId=1", "sessionid"), ("session%5Fid=x", "session_id"), ("a", "a"), ("=x", "")],
)
def test_param_name(param: str, name: str) -> None:
    assert param_name(param) == name


def test_default_strip_params_shape() -> None:
    assert isinstance(DEFAULT_STRIP_PARAMS, tuple)
    assert all(name == name.lower() for name in DEFAULT_STRIP_PARAMS)
    assert {"sessionid", "jsessionid", "phpsessid", "oscsid"} <= set(DEFAULT_STRIP_PARAMS)
