"""W003, W004 and E024: stale sitemaps the system checks can tell without the database."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import SystemCheckError

from django_sitemapkit.stalechecks import check_cache_across_processes, check_stale_build

LOCMEM = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
FILES = {
    "default": {
        "BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
        "LOCATION": "/tmp/sitemapkit-stalechecks",
    }
}


def ids(messages: list[Any]) -> list[str]:
    return [m.id for m in messages]


def test_stale_build_values(settings: Any) -> None:
    assert check_stale_build() == []
    settings.SITEMAPKIT = {**settings.SITEMAPKIT, "STALE_BUILD": "serve"}
    assert ids(check_stale_build()) == ["sitemapkit.W004"]
    settings.SITEMAPKIT = {**settings.SITEMAPKIT, "STALE_BUILD": "live"}
    (error,) = check_stale_build()
    assert error.id == "sitemapkit.E024"
    assert "'live'" in error.msg


def test_process_local_cache_warns(settings: Any) -> None:
    settings.CACHES = LOCMEM
    (warning,) = check_cache_across_processes()
    assert warning.id == "sitemapkit.W003"
    assert "LocMemCache" in warning.msg
    assert "Redis" in warning.hint
    settings.CACHES = FILES
    assert check_cache_across_processes() == []
    settings.CACHES = LOCMEM
    settings.SITEMAPKIT = {**settings.SITEMAPKIT, "CACHE_TIMEOUT": 0}
    assert check_cache_across_processes() == []


def test_w003_only_under_deploy(settings: Any) -> None:
    settings.CACHES = LOCMEM
    settings.SITEMAPKIT = {**settings.SITEMAPKIT, "STALE_BUILD": "nope"}
    with pytest.raises(SystemCheckError) as raised:
        call_command("check", "--deploy", "--fail-level", "WARNING", "--tag", "sitemapkit")
    assert "sitemapkit.W003" in str(raised.value)
    assert "sitemapkit.E024" in str(raised.value)
