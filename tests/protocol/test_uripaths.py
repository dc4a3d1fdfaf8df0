"""Tests for django_sitemapkit._protocol.locations: percent-encoding, dot segments, path and query."""

from __future__ import annotations

import os

import pytest
from django.conf import settings
from hypothesis import given
from hypothesis import strategies as st

from django_sitemapkit._protocol.locations import (
    InvalidLocation,
    may_hold_dot_segment,
    percent_encode,
    remove_dot_segments,
    split_rest,
)

# These tests need no Django settings, but the suite's conftest has autouse
# fixtures that touch django.core.cache.  Under "-p no:django" nothing loads
# tests.settings, so Django's defaults (a local-memory cache) stand in.
if not settings.configured and not os.environ.get("DJANGO_SETTINGS_MODULE"):
    settings.configure()


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("/blog/some-slug-123/", "/blog/some-slug-123/"),
        ("/~user/file.tar.gz", "/~user/file.tar.gz"),
        # Reserved characters are data in a path and must stay as they are;
        # & and ' are escaped later by the XML writer, not here.
        ("/tom&jerry/", "/tom&jerry/"),
        ("/l'été/", "/l'%C3%A9t%C3%A9/"),
        ("/a:b@c!$&'()*+,;=/", "/a:b@c!$&'()*+,;=/"),
        ("/[x]/", "/%5Bx%5D/"),
        # Characters a URI cannot contain are percent-encoded.
        ('/say-"hi"/', "/say-%22hi%22/"),
        ("/<script>/", "/%3Cscript%3E/"),
        ("/a b/", "/a%20b/"),
        ("/a\\b", "/a%5Cb"),
        ("/a^b`c{d|e}f", "/a%5Eb%60c%7Bd%7Ce%7Df"),
        ("/a\x00b\x1fc\x7fd", "/a%00b%1Fc%7Fd"),
        ("/a\tb", "/a%09b"),
        ("/a#b", "/a%23b"),
        # Non-ASCII: UTF-8 percent-encoded (RFC 3987 section 3.1).
        ("/café/", "/caf%C3%A9/"),
        ("/日本/", "/%E6%97%A5%E6%9C%AC/"),
        ("/emoji/😀", "/emoji/%F0%9F%98%80"),
        ("/nbsp\u00a0in/", "/nbsp%C2%A0in/"),
        # Percent signs: valid escapes kept byte for byte, lone ones escaped.
        ("/a%2Fb", "/a%2Fb"),
        ("/%E2%82%AC", "/%E2%82%AC"),
        ("/%e2%82%ac", "/%e2%82%ac"),
        ("/100%", "/100%25"),
        ("/50%off", "/50%25off"),
        ("/%zz/%4", "/%25zz/%254"),
        ("/%%41", "/%25%41"),
        # A query is encoded alike: "/" and "?" are data there too.
        ("q=tom&jerry", "q=tom&jerry"),
        ("q=a+b", "q=a+b"),
        ("next=/a/b?c=d", "next=/a/b?c=d"),
        ("q[]=1&q[]=2", "q%5B%5D=1&q%5B%5D=2"),
        ("a=%7e&b=%7E", "a=%7e&b=%7E"),
    ],
)
def test_percent_encode(raw: str, expected: str) -> None:
    assert percent_encode(raw) == expected


def test_lone_surrogate_is_rejected() -> None:
    with pytest.raises(InvalidLocation, match="Unicode"):
        percent_encode("/bad\ud800")


def test_invalid_location_is_a_value_error() -> None:
    assert issubclass(InvalidLocation, ValueError)


@given(raw=st.text(alphabet=st.characters(codec="utf-8"), max_size=40))
def test_percent_encode_is_idempotent(raw: str) -> None:
    once = percent_encode(raw)
    assert percent_encode(once) == once
    assert once.isascii()


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("/a/./b", "/a/b"),
        ("/a/b/../c", "/a/c"),
        ("/a/b/..", "/a/"),
        ("/a/b/.", "/a/b/"),
        ("/a/..", "/"),
        ("/..", "/"),
        ("/../../a", "/a"),
        ("/./", "/"),
        ("/a/%2e/b", "/a/b"),
        ("/a/%2E%2e/b", "/b"),
        ("/shop/../admin/", "/admin/"),
        # Not dot segments.
        ("/.well-known/x", "/.well-known/x"),
        ("/a.b/..c/c..", "/a.b/..c/c.."),
        ("/a//b/", "/a//b/"),
    ],
)
def test_remove_dot_segments(path: str, expected: str) -> None:
    assert remove_dot_segments(path) == expected


@pytest.mark.parametrize("path", ["/a/..;x=1/b", "/a/.;x/b", "/%2e%2e;x/"])
def test_dot_segment_with_parameters_is_refused(path: str) -> None:
    # Tomcat reads "..;x" as "..": too ambiguous to list.
    with pytest.raises(InvalidLocation, match="dot segment"):
        remove_dot_segments(path)


@pytest.mark.parametrize(
    ("path", "maybe"),
    [("/a/b", False), ("/a.b/c", False), ("/a/./b", True), ("/.well-known", True), ("/%2E", True)],
)
def test_may_hold_dot_segment(path: str, maybe: bool) -> None:
    assert bool(may_hold_dot_segment(path)) is maybe


@pytest.mark.parametrize(
    ("rest", "expected"),
    [
        ("/p", ("/p", "")),
        ("/p?x=1", ("/p", "x=1")),
        ("/p?next=/a?b", ("/p", "next=/a?b")),
        # Fragments never reach a server: they go.
        ("/p#top", ("/p", "")),
        ("/p?x=1#f?g", ("/p", "x=1")),
        ("/p#a?b", ("/p", "")),
        ("/p?", ("/p", "")),
        # Tabs and newlines stay, to be percent-encoded.
        ("/a\tb?c\nd", ("/a\tb", "c\nd")),
        ("", ("", "")),
    ],
)
def test_split_rest(rest: str, expected: tuple[str, str]) -> None:
    assert split_rest(rest) == expected
