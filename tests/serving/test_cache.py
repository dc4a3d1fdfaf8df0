from __future__ import annotations

import datetime
from typing import Any
from zoneinfo import ZoneInfo

from django.core.cache import caches

from django_sitemapkit._conf import CACHE_KEY_PREFIX
from django_sitemapkit._engine.rendering import RenderedFile
from django_sitemapkit._serving.cache import (
    file_key,
    get_or_render,
    section_tokens,
    sections_written,
)


def test_tokens_are_stable_until_invalidated() -> None:
    cache = caches["default"]
    first = section_tokens(cache, ["a", "b"])
    assert section_tokens(cache, ["a", "b"]) == first
    sections_written(["a"])
    second = section_tokens(cache, ["a", "b"])
    assert second["a"] != first["a"]
    assert second["b"] == first["b"]


def test_keys_depend_on_base_url_and_tokens() -> None:
    tokens = {"a": "1"}
    assert file_key("index", "https://a.test", tokens) != file_key(
        "index", "https://b.test", tokens
    )
    assert file_key("index", "https://a.test", tokens) != file_key(
        "index", "https://a.test", {"a": "2"}
    )


def test_every_key_is_under_the_apps_prefix() -> None:
    cache = caches["default"]
    section_tokens(cache, ["a"])
    assert file_key("index", "https://a.test", {"a": "1"}).startswith(f"{CACHE_KEY_PREFIX}:")
    assert cache.get(f"{CACHE_KEY_PREFIX}:token:a") is not None


def test_get_or_render_renders_once() -> None:
    cache = caches["default"]
    calls: list[int] = []

    def render() -> RenderedFile:
        calls.append(1)
        return RenderedFile(b"<x/>", None, 1, 0)

    assert get_or_render(cache, "k", render).content == b"<x/>"
    assert get_or_render(cache, "k", render).content == b"<x/>"
    assert len(calls) == 1


def test_no_cache_renders_every_time(settings: Any) -> None:
    calls: list[int] = []

    def render() -> RenderedFile:
        calls.append(1)
        return RenderedFile(b"<x/>", None)

    get_or_render(None, None, render)
    get_or_render(None, None, render)
    assert len(calls) == 2


def test_a_cached_file_keeps_its_last_modified_to_the_microsecond() -> None:
    # The last microsecond of year 9999: a float timestamp rounds it into
    # year 10000, which datetime cannot read back.
    cache = caches["default"]
    latest = datetime.datetime.max.replace(tzinfo=datetime.UTC)
    chicago = datetime.datetime(1, 1, 1, 5, 50, 36, tzinfo=ZoneInfo("America/Chicago"))
    for stamp in (latest, chicago):
        get_or_render(cache, f"k{stamp.year}", lambda s=stamp: RenderedFile(b"<x/>", s))
        cached = get_or_render(cache, f"k{stamp.year}", lambda: RenderedFile(b"", None))
        assert cached.content == b"<x/>"
        assert cached.last_modified == stamp
