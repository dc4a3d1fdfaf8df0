"""W003: a sitemap cache that each process keeps to itself."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import SystemCheckError

from django_sitemapkit._serving.cache import check_cache_across_processes

LOCMEM = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
FILES = {
    "default": {
        "BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
        "LOCATION": "/tmp/sitemapkit-stalechecks",
    }
}


def test_process_local_cache_warns(settings: Any) -> None:
    settings.CACHES = LOCMEM
    (warning,) = check_cache_across_processes()
    assert warning.id == "sitemapkit.W003"
    assert "LocMemCache" in warning.msg
    assert "Redis" in warning.hint
    settings.CACHES = FILES
    assert check_cache_across_processes() == []
    # Files uncached, the cache still carries the writes the views go by.
    settings.CACHES = LOCMEM
    settings.SITEMAPKIT = {**settings.SITEMAPKIT, "CACHE_TIMEOUT": 0}
    assert [m.id for m in check_cache_across_processes()] == ["sitemapkit.W003"]


def test_w003_only_under_deploy(settings: Any) -> None:
    settings.CACHES = LOCMEM
    call_command("check", "--fail-level", "WARNING", "--tag", "sitemapkit")
    with pytest.raises(SystemCheckError) as raised:
        call_command("check", "--deploy", "--fail-level", "WARNING", "--tag", "sitemapkit")
    assert "sitemapkit.W003" in str(raised.value)
