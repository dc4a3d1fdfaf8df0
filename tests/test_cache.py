from __future__ import annotations

from typing import Any

from django.core.cache import caches

from django_sitemapkit.cache import (
    file_key,
    get_or_render,
    invalidate_sections,
    section_tokens,
)
from django_sitemapkit.rendering import RenderedFile


def test_tokens_are_stable_until_invalidated() -> None:
    cache = caches["default"]
    first = section_tokens(cache, ["a", "b"])
    assert section_tokens(cache, ["a", "b"]) == first
    invalidate_sections(["a"])
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
