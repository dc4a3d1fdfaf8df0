"""URL templates of column rows give exactly what reverse() gives."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from django.urls import NoReverseMatch, reverse
from hypothesis import given
from hypothesis import strategies as st

from django_sitemapkit._engine.rows import UrlTemplate, find_converters

AWKWARD = [
    "plain-slug_1",
    "a&b'c\"d<e>f",
    "with space",
    "caf\u00e9",
    "\u65e5\u672c",
    "50% off?",
    "a#b",
    "a+b=c;d,e",
    "~tilde.dot",
    "emoji-\U0001f600",
    "x" * 300,
]


def outcome(call: Any) -> str:
    try:
        return str(call())
    except NoReverseMatch:
        return "NoReverseMatch"


@pytest.mark.parametrize(
    "url_name", ["article-detail", "article-slug", "article-path", "article-cafe"]
)
@pytest.mark.parametrize("value", [*AWKWARD, "a/b", "/leading", ""])
def test_single_kwarg_patterns(url_name: str, value: str) -> None:
    template = UrlTemplate(url_name, ["slug"])
    assert template.parts is not None
    expected = outcome(lambda: reverse(url_name, kwargs={"slug": value}))
    assert outcome(lambda: template.fill([value])) == expected


@given(st.text(max_size=40), st.integers(min_value=-5, max_value=10**12))
def test_two_kwargs_against_reverse(slug: str, pk: int) -> None:
    template = UrlTemplate("article-by-id", ["pk", "slug"])
    assert template.parts is not None
    expected = outcome(lambda: reverse("article-by-id", kwargs={"pk": pk, "slug": slug}))
    assert outcome(lambda: template.fill([pk, slug])) == expected


@given(st.text(max_size=40))
def test_str_converter_against_reverse(slug: str) -> None:
    template = UrlTemplate("article-detail", ["slug"])
    assert outcome(lambda: template.fill([slug])) == outcome(
        lambda: reverse("article-detail", kwargs={"slug": slug})
    )


def test_re_path_falls_back_to_reverse() -> None:
    template = UrlTemplate("article-legacy", ["slug"])
    assert template.parts is None
    assert template.fill(["x y"]) == reverse("article-legacy", kwargs={"slug": "x y"})


def test_unknown_name() -> None:
    assert find_converters("nope") is None
    template = UrlTemplate("nope", ["slug"])
    assert template.parts is None
    with pytest.raises(NoReverseMatch):
        template.fill(["x"])


def test_namespaced_converters() -> None:
    converters = find_converters("sitemapkit:section")
    assert converters is not None
    assert sorted(converters) == []  # re_path: constraints unknown
    assert UrlTemplate("sitemapkit:section", ["section", "page"]).parts is None


def test_non_string_values() -> None:
    template = UrlTemplate("article-detail", ["slug"])
    value = uuid.UUID(int=7)
    assert template.fill([value]) == reverse("article-detail", kwargs={"slug": value})
    assert template.fill([12]) == reverse("article-detail", kwargs={"slug": 12})
