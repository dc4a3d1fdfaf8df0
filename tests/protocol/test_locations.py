"""Tests for django_sitemapkit._protocol.locations: ``<loc>`` values and BASE_URL parsing."""

from __future__ import annotations

import contextlib
import os
import re

import pytest
from django.conf import settings
from django.utils.functional import lazy
from django.utils.safestring import SafeString
from hypothesis import example, given
from hypothesis import strategies as st

from django_sitemapkit._protocol.locations import (
    MAX_URL_LENGTH,
    InvalidLocation,
    LocationBuilder,
    parse_base_url,
)
from tests.rfc3986 import is_sitemap_url

# These tests need no Django settings, but the suite's conftest has autouse
# fixtures that touch django.core.cache.  Under "-p no:django" nothing loads
# tests.settings, so Django's defaults (a local-memory cache) stand in.
if not settings.configured and not os.environ.get("DJANGO_SETTINGS_MODULE"):
    settings.configure()

BASE = "https://www.example.com"


@pytest.fixture
def builder() -> LocationBuilder:
    return LocationBuilder(BASE)


@pytest.fixture
def shop() -> LocationBuilder:
    """A site mounted under a path prefix."""
    return LocationBuilder("https://www.example.com/shop")


def reason(builder: LocationBuilder, raw: object) -> str:
    with pytest.raises(InvalidLocation) as info:
        builder.build(raw)
    return str(info.value)


# --------------------------------------------------------------------------- paths


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("/", "/"),
        ("/blog/some-slug-123/", "/blog/some-slug-123/"),
        ("/a/b", "/a/b"),
        ("/~user/file.tar.gz", "/~user/file.tar.gz"),
        ("  /padded/ \n", "/padded/"),
        ("/a//b/", "/a//b/"),
        ("/.well-known/security.txt", "/.well-known/security.txt"),
        ("/a.b/..c/c..", "/a.b/..c/c.."),
    ],
)
def test_plain_paths(builder: LocationBuilder, raw: str, expected: str) -> None:
    assert builder.build(raw) == BASE + expected


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("/s?q=tom&jerry", "/s?q=tom&jerry"),
        ("/s?q=l'été", "/s?q=l'%C3%A9t%C3%A9"),
        ('/s?q="quoted"', "/s?q=%22quoted%22"),
        ("/s?q=<b>&x=1", "/s?q=%3Cb%3E&x=1"),
        ("/s?q=a b", "/s?q=a%20b"),
        ("/s?q=a+b", "/s?q=a+b"),
        ("/s?q=日本", "/s?q=%E6%97%A5%E6%9C%AC"),
        ("/s?next=/a/b?c=d", "/s?next=/a/b?c=d"),
        ("/s?q=100%", "/s?q=100%25"),
        ("/s?a=%7e&b=%7E", "/s?a=%7e&b=%7E"),
        ("/s?a&&b=", "/s?a&&b="),
        # Fragments never reach a server: they are dropped.
        ("/p#top", "/p"),
        ("/p#a b", "/p"),
        ("/p#é", "/p"),
        ("/p#a#b", "/p"),
        ("/p?x=1#f", "/p?x=1"),
        ("/p?x=[1]#f", "/p?x=%5B1%5D"),
        # "[" and "]" are only for IPv6 hosts (RFC 3986 3.2.2).
        ("/a[b]/", "/a%5Bb%5D/"),
        ("/s?q[]=1&q[]=2", "/s?q%5B%5D=1&q%5B%5D=2"),
        ("/%09%C3%BE%C2%95]", "/%09%C3%BE%C2%95%5D"),
        # Empty query and fragment carry nothing and are dropped.
        ("/p?", "/p"),
        ("/p#", "/p"),
        ("/p?#", "/p"),
    ],
)
def test_query_and_fragment(builder: LocationBuilder, raw: str, expected: str) -> None:
    assert builder.build(raw) == BASE + expected


def test_result_is_not_xml_escaped(builder: LocationBuilder) -> None:
    url = builder.build("/a&b/?x=1&y='2'")
    assert url == BASE + "/a&b/?x=1&y='2'"
    assert "&amp;" not in url


# --------------------------------------------------------------------------- input types


@pytest.mark.parametrize("raw", [None, "", " ", "\t\n", "\u3000"])
def test_empty_locations(builder: LocationBuilder, raw: object) -> None:
    reason(builder, raw)


@pytest.mark.parametrize("raw", [42, 4.2, b"/bytes/", ["/x"], object()])
def test_non_strings_are_rejected(builder: LocationBuilder, raw: object) -> None:
    assert "not a string" in reason(builder, raw)


def test_none_has_its_own_reason(builder: LocationBuilder) -> None:
    assert "None" in reason(builder, None)


def test_lazy_strings_are_accepted(builder: LocationBuilder) -> None:
    lazy_path = lazy(lambda: "/lazy/é/", str)()
    assert builder.build(lazy_path) == BASE + "/lazy/%C3%A9/"


def test_str_subclasses_are_accepted(builder: LocationBuilder) -> None:
    url = builder.build(SafeString("/safe/"))
    assert url == BASE + "/safe/"
    assert type(url) is str


@pytest.mark.parametrize(
    "raw",
    ["foo/bar", "foo", "./foo", "../foo", "?q=1", "#top", "www.example.com/x", "é/x"],
)
def test_relative_urls_are_rejected(builder: LocationBuilder, raw: str) -> None:
    assert "relative" in reason(builder, raw)


@pytest.mark.parametrize(
    "raw",
    [
        "mailto:someone@example.com",
        "javascript:alert(1)",
        "JavaScript:alert(1)",
        "ftp://www.example.com/file",
        "data:text/html,hi",
        "tel:+123",
        "file:///etc/passwd",
    ],
)
def test_other_schemes_are_rejected(builder: LocationBuilder, raw: str) -> None:
    assert "scheme" in reason(builder, raw)


@pytest.mark.parametrize("raw", ["https:/x", "https:x", "http:"])
def test_scheme_without_host(builder: LocationBuilder, raw: str) -> None:
    assert "host" in reason(builder, raw)


# --------------------------------------------------------------------------- absolute URLs


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("https://www.example.com/a/", "/a/"),
        ("https://www.example.com", "/"),
        ("https://www.example.com?x=1", "/?x=1"),
        ("https://www.example.com#f", "/"),
        ("HTTPS://WWW.EXAMPLE.COM/Path/", "/Path/"),
        ("https://www.example.com:443/a", "/a"),
        ("https://www.example.com:0443/a", "/a"),
        ("https://www.example.com:/a", "/a"),
        ("//www.example.com/a", "/a"),
        ("https://www.example.com/a b/é", "/a%20b/%C3%A9"),
        ("  https://www.example.com/a  ", "/a"),
    ],
)
def test_absolute_urls_on_the_same_origin(
    builder: LocationBuilder, raw: str, expected: str
) -> None:
    assert builder.build(raw) == BASE + expected


@pytest.mark.parametrize(
    "raw",
    [
        "https://evil.example/a",
        "https://example.com/a",
        "https://www.example.com.evil.example/a",
        "https://www.example.com:8443/a",
        "https://www.example.com:80/a",
        "//evil.example/a",
        "https://www.example.org/a",
    ],
)
def test_other_hosts_are_rejected(builder: LocationBuilder, raw: str) -> None:
    assert "another host" in reason(builder, raw)


@pytest.mark.parametrize(
    "raw",
    [
        # Looks like our host, is evil.example.
        "https://www.example.com@evil.example/a",
        "https://www.example.com:99999/a",
        "https://[nonsense]/a",
        "https:///a",
        "https://-bad.example/a",
        # A fully-qualified name with its root dot is spelt differently from
        # the base host, so it cannot be listed as it is.
        "https://www.example.com./a",
    ],
)
def test_invalid_hosts_are_rejected(builder: LocationBuilder, raw: str) -> None:
    assert "host" in reason(builder, raw) or "port" in reason(builder, raw)


def test_other_scheme_is_rejected(builder: LocationBuilder) -> None:
    assert "another scheme" in reason(builder, "http://www.example.com/a")


def test_http_base_rejects_https_urls() -> None:
    builder = LocationBuilder("http://www.example.com")
    assert builder.build("//www.example.com/a") == "http://www.example.com/a"
    assert "another scheme" in reason(builder, "https://www.example.com/a")


def test_non_default_port_in_base() -> None:
    builder = LocationBuilder("http://localhost:8000/")
    assert builder.base_url == "http://localhost:8000"
    assert builder.build("/a") == "http://localhost:8000/a"
    assert builder.build("http://LOCALHOST:8000/a") == "http://localhost:8000/a"
    assert builder.build("//localhost:8000/a") == "http://localhost:8000/a"
    assert "another host" in reason(builder, "http://localhost/a")
    assert "another host" in reason(builder, "http://localhost:8001/a")


def test_ipv6_base() -> None:
    builder = LocationBuilder("http://[::1]:8000")
    assert builder.build("/a") == "http://[::1]:8000/a"
    assert builder.build("http://[0:0::0:1]:8000/a") == "http://[::1]:8000/a"
    assert "another host" in reason(builder, "http://[::2]:8000/a")


def test_ipv4_base() -> None:
    builder = LocationBuilder("http://127.0.0.1")
    assert builder.build("http://127.0.0.1:80/a") == "http://127.0.0.1/a"


# --------------------------------------------------------------------------- IDNA


def test_idna_base_and_locations() -> None:
    builder = LocationBuilder("https://Bücher.example/")
    assert builder.base_url == "https://xn--bcher-kva.example"
    expected = "https://xn--bcher-kva.example/k%C3%BCche/"
    assert builder.build("/küche/") == expected
    assert builder.build("https://bücher.example/küche/") == expected
    assert builder.build("https://BÜCHER.EXAMPLE/küche/") == expected
    assert builder.build("https://xn--bcher-kva.example/k%C3%BCche/") == expected
    assert builder.build("https://XN--BCHER-KVA.example/k%C3%BCche/") == expected
    assert builder.build("//bücher.example/küche/") == expected
    assert "another host" in reason(builder, "https://bucher.example/")


def test_idna_location_against_ascii_base() -> None:
    builder = LocationBuilder("https://xn--wgv71a.jp")
    assert builder.build("https://日本.jp/日本") == "https://xn--wgv71a.jp/%E6%97%A5%E6%9C%AC"
    # Ideographic full stop is a label separator in IDNA.
    assert builder.build("https://日本。jp/") == "https://xn--wgv71a.jp/"


def test_idna_deviation_characters_are_refused() -> None:
    # IDNA 2003 would turn straße.de into strasse.de, another domain.
    with pytest.raises(ValueError, match="xn--"):
        parse_base_url("https://straße.de")
    builder = LocationBuilder("https://xn--strae-oqa.de")
    assert "host" in reason(builder, "https://straße.de/x")
    assert builder.build("https://xn--strae-oqa.de/x") == "https://xn--strae-oqa.de/x"


# --------------------------------------------------------------------------- session ids


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("/p?sessionid=abc&a=1&b=2", "/p?a=1&b=2"),
        ("/p?session%5Fid=abc&a=1", "/p?a=1"),
        # Nothing left: no "?" either.
        ("/p?sessionid=abc&", "/p"),
        ("/p?sessionid=abc#top", "/p"),
        # Encoded first, then stripped: the other parameters as encoded.
        ("/p?q=é&sessionid=1", "/p?q=%C3%A9"),
        ("/p?sid=42", "/p?sid=42"),
        # A session name in the fragment goes with the fragment.
        ("/p#sessionid=1", "/p"),
    ],
)
def test_session_ids_in_query(builder: LocationBuilder, raw: str, expected: str) -> None:
    assert builder.build(raw) == BASE + expected


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("/page;jsessionid=ABC123?x=1", "/page?x=1"),
        ("/page;v=2;jsessionid=ABC;w=3", "/page;v=2;w=3"),
        ("/page;jsessionid=ABC?jsessionid=DEF&x=1", "/page?x=1"),
    ],
)
def test_session_ids_in_path_parameters(builder: LocationBuilder, raw: str, expected: str) -> None:
    assert builder.build(raw) == BASE + expected


def test_session_ids_in_absolute_urls(builder: LocationBuilder) -> None:
    raw = "https://www.example.com/page;jsessionid=X?PHPSESSID=1&q=2"
    assert builder.build(raw) == BASE + "/page?q=2"


def test_custom_strip_params() -> None:
    builder = LocationBuilder(BASE, strip_params=["SID", "utm_source"])
    assert builder.build("/p?sid=1&utm_source=x&sessionid=2") == BASE + "/p?sessionid=2"


def test_strip_params_can_be_disabled() -> None:
    builder = LocationBuilder(BASE, strip_params=())
    raw = "/p;jsessionid=1?sessionid=2"
    assert builder.build(raw) == BASE + raw


# --------------------------------------------------------------------------- length


def test_3000_character_url_is_rejected(builder: LocationBuilder) -> None:
    assert "longer than 2048" in reason(builder, "/" + "a" * 3000)


def test_length_limit_is_inclusive(builder: LocationBuilder) -> None:
    room = MAX_URL_LENGTH - len(BASE)
    assert len(builder.build("/" + "a" * (room - 1))) == MAX_URL_LENGTH
    assert "longer than" in reason(builder, "/" + "a" * room)


def test_length_counts_the_encoded_url(builder: LocationBuilder) -> None:
    # 500 characters, but 3,000 once percent-encoded.
    assert "longer than" in reason(builder, "/" + "é" * 500)


def test_length_is_measured_after_stripping_session_ids(builder: LocationBuilder) -> None:
    room = MAX_URL_LENGTH - len(BASE)
    raw = "/" + "a" * (room - 1) + "?sessionid=" + "x" * 100
    assert len(builder.build(raw)) == MAX_URL_LENGTH


# --------------------------------------------------------------------------- prefix & directory


def test_base_prefix(shop: LocationBuilder) -> None:
    assert shop.base_url == "https://www.example.com/shop"
    assert shop.build("/a/") == "https://www.example.com/shop/a/"
    assert shop.build("/") == "https://www.example.com/shop/"
    assert shop.build("https://www.example.com/shop/a/") == "https://www.example.com/shop/a/"
    assert shop.build("//www.example.com/shop/a") == "https://www.example.com/shop/a"


@pytest.mark.parametrize(
    "raw",
    [
        "https://www.example.com/",
        "https://www.example.com/other/",
        "https://www.example.com/shopping/",
        "https://www.example.com/shop",
        "https://www.example.com/Shop/a",
        "https://www.example.com/shop/../admin/",
        "/../admin/",
        "/%2e%2e/admin/",
        "/%2E%2E/%2e%2e/admin/",
        "/a/../../admin",
    ],
)
def test_outside_base_prefix(shop: LocationBuilder, raw: str) -> None:
    assert "outside the sitemap directory" in reason(shop, raw)


def test_prefix_with_non_ascii() -> None:
    builder = LocationBuilder("https://www.example.com/bücher/")
    assert builder.base_url == "https://www.example.com/b%C3%BCcher"
    assert builder.build("/x") == "https://www.example.com/b%C3%BCcher/x"
    assert (
        builder.build("https://www.example.com/bücher/x") == "https://www.example.com/b%C3%BCcher/x"
    )


def test_directory_url() -> None:
    builder = LocationBuilder(BASE, directory_url="https://www.example.com/sitemaps/")
    assert builder.directory_url == "https://www.example.com/sitemaps/"
    assert builder.build("/sitemaps/a") == BASE + "/sitemaps/a"
    assert builder.build("/sitemaps/") == BASE + "/sitemaps/"
    assert "outside the sitemap directory" in reason(builder, "/a")
    assert "outside the sitemap directory" in reason(builder, "/sitemaps")
    assert "outside the sitemap directory" in reason(builder, "/sitemaps-old/a")
    assert "outside the sitemap directory" in reason(builder, "/sitemaps/../a")


def test_directory_url_normalisation() -> None:
    # Without its slash "/sitemapsX" would pass; it is added.  Host spelling
    # and dot segments are normalised like any location.
    builder = LocationBuilder(BASE, directory_url="HTTPS://WWW.EXAMPLE.COM:443/x/../sitemaps")
    assert builder.directory_url == "https://www.example.com/sitemaps/"
    assert "outside" in reason(builder, "/sitemapsX/")


def test_directory_url_as_path_is_relative_to_base() -> None:
    builder = LocationBuilder("https://www.example.com/shop", directory_url="/maps/")
    assert builder.directory_url == "https://www.example.com/shop/maps/"
    assert builder.build("/maps/x") == "https://www.example.com/shop/maps/x"


def test_directory_url_above_the_prefix() -> None:
    builder = LocationBuilder(
        "https://www.example.com/shop", directory_url="https://www.example.com/"
    )
    assert builder.build("https://www.example.com/blog/") == "https://www.example.com/blog/"


@pytest.mark.parametrize(
    "directory",
    [
        "https://evil.example/",
        "http://www.example.com/",
        "https://www.example.com/?x=1",
        "https://www.example.com/#f",
        "sitemaps/",
        "",
    ],
)
def test_invalid_directory_url(directory: str) -> None:
    with pytest.raises(ValueError, match="directory_url"):
        LocationBuilder(BASE, directory_url=directory)


def test_invalid_base_url_raises_value_error() -> None:
    with pytest.raises(ValueError, match="scheme"):
        LocationBuilder("ftp://www.example.com")


# --------------------------------------------------------------------------- dot segments


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("/a/./b", "/a/b"),
        ("/a/b/..", "/a/"),
        ("/../../a", "/a"),
        ("/a/%2E%2e/b", "/b"),
        ("/a/b/../c?x=/../y", "/a/c?x=/../y"),
        ("/a/b/../c#/../y", "/a/c"),
        ("https://www.example.com/a/../b", "/b"),
        ("/a/..;jsessionid=1/b", "/b"),
    ],
)
def test_dot_segments_are_resolved(builder: LocationBuilder, raw: str, expected: str) -> None:
    assert builder.build(raw) == BASE + expected


def test_dot_segment_with_parameters_is_refused(builder: LocationBuilder) -> None:
    # Tomcat reads "..;x" as "..": too ambiguous to list.
    assert "dot segment" in reason(builder, "/a/..;x=1/b")


# --------------------------------------------------------------------------- idempotency


IDEMPOTENCY_CASES = [
    "/",
    '/a b/é/日本?q="x"&y=<z>#f g',
    "/100%/%zz/%41",
    "/page;jsessionid=1;v=2?sessionid=1&a=b",
    "/a/./b/../c",
    "https://BÜCHER.example/x",
    "/tom&jerry/l'été",
    "/p#a#b",
]


@pytest.mark.parametrize("raw", IDEMPOTENCY_CASES)
def test_idempotent_examples(raw: str) -> None:
    builder = LocationBuilder("https://bücher.example")
    once = builder.build(raw)
    assert builder.build(once) == once
    assert is_sitemap_url(once), once


# Fragments chosen to hit the interesting branches (escapes, dot segments,
# session parameters) mixed with arbitrary characters.
path_text = st.lists(
    st.one_of(
        st.sampled_from(
            [*"/?#%;=&'\"<> .~:@[]!$()*+,\\^`{|}-_", "%2e", "%41", "..", "sessionid=1"]
        ),
        st.characters(codec="utf-8"),
        st.characters(min_codepoint=0x20, max_codepoint=0x7E),
    ),
    max_size=40,
).map("".join)


@given(raw=path_text.map(lambda s: "/" + s))
@example(raw="/%2e%2e/x")
@example(raw="/..;x/")
@example(raw="/?sessionid=1&&")
def test_build_is_idempotent_and_well_formed(raw: str) -> None:
    builder = LocationBuilder("https://www.example.com/shop")
    try:
        once = builder.build(raw)
    except InvalidLocation as exc:
        message = str(exc)
        # Every rejection carries a reason for the log.
        assert message, raw
        return
    assert builder.build(once) == once
    assert is_sitemap_url(once), once
    assert once.startswith("https://www.example.com/shop/")
    assert len(once) <= MAX_URL_LENGTH
    # No dot segment survives, so nothing can step out of the directory.
    path = once.split("?")[0].split("#")[0]
    assert "/../" not in path + "/"
    assert "/./" not in path + "/"


@given(raw=st.one_of(path_text, st.none(), st.integers(), st.binary(max_size=10)))
def test_build_raises_only_invalid_location(raw: object) -> None:
    builder = LocationBuilder(BASE)
    with contextlib.suppress(InvalidLocation):
        builder.build(raw)


@given(path=st.from_regex(r"/[A-Za-z0-9._~/-]{0,40}", fullmatch=True))
def test_fast_path_agrees_with_slow_path(path: str) -> None:
    # A str subclass never takes the fast path, so both must agree.
    builder = LocationBuilder("https://www.example.com/shop")
    for raw in (path, "https://www.example.com/shop" + path):
        try:
            fast: str | Exception = builder.build(raw)
        except InvalidLocation as exc:
            fast = exc
        try:
            slow: str | Exception = builder.build(SafeString(raw))
        except InvalidLocation as exc:
            slow = exc
        assert str(fast) == str(slow)


# --------------------------------------------------------------------------- parse_base_url


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("https://www.example.com", "https://www.example.com"),
        ("https://www.example.com/", "https://www.example.com"),
        ("HTTPS://WWW.Example.COM/", "https://www.example.com"),
        ("https://Bücher.example/shop/", "https://xn--bcher-kva.example/shop"),
        ("https://www.example.com:443/", "https://www.example.com"),
        ("http://www.example.com:80", "http://www.example.com"),
        ("http://www.example.com:443", "http://www.example.com:443"),
        ("https://www.example.com:08443", "https://www.example.com:8443"),
        ("http://localhost:8000", "http://localhost:8000"),
        ("http://127.0.0.1:8000/", "http://127.0.0.1:8000"),
        ("http://[::1]:8000/", "http://[::1]:8000"),
        ("http://[2001:DB8::0:1]/", "http://[2001:db8::1]"),
        ("https://www.example.com/a/b//", "https://www.example.com/a/b"),
        ("https://www.example.com//", "https://www.example.com"),
        ("https://www.example.com/Shop", "https://www.example.com/Shop"),
        ("https://www.example.com/a b/é/", "https://www.example.com/a%20b/%C3%A9"),
        ("https://www.example.com/a/../b/./c/", "https://www.example.com/b/c"),
        ("  https://www.example.com/x  ", "https://www.example.com/x"),
        ("https://my_host.internal", "https://my_host.internal"),
        ("https://日本.jp", "https://xn--wgv71a.jp"),
    ],
)
def test_parse_base_url(value: str, expected: str) -> None:
    assert parse_base_url(value) == expected
    # Normalising twice changes nothing.
    assert parse_base_url(expected) == expected


def test_parse_base_url_accepts_lazy_strings() -> None:
    assert parse_base_url(lazy(lambda: "https://www.example.com/", str)()) == BASE


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (None, "must be a string"),
        (42, "must be a string"),
        ("", "empty"),
        ("   ", "empty"),
        ("www.example.com", "absolute URL"),
        ("localhost:8000", "absolute URL"),
        ("/shop", "absolute URL"),
        ("https:/www.example.com", "absolute URL"),
        ("ftp://www.example.com", "scheme must be http or https"),
        ("https://", "no host"),
        ("https:///shop", "no host"),
        ("https://www.example.com/?a=1", "query string or fragment"),
        ("https://www.example.com?", "query string or fragment"),
        ("https://www.example.com/#top", "query string or fragment"),
        ("https://user:pw@www.example.com", "user information ('user@')"),
        ("https://www.example.com:99999", "invalid port"),
        ("https://[::1", "IPv6"),
        ("https://exa mple.com", "not a valid domain name"),
        ("https://www.example.com.", "ends with a dot"),
        ("https://999.1.1.1", "IPv4"),
        ("https://straße.de", "xn--"),
    ],
)
def test_parse_base_url_errors(value: object, message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        parse_base_url(value)


# --------------------------------------------------------------------------- names


def test_names_other_modules_import_from_here() -> None:
    assert issubclass(InvalidLocation, ValueError)
    assert MAX_URL_LENGTH == 2048
