"""Tests for django_sitemapkit._protocol.locations: one spelling of every host and port."""

from __future__ import annotations

import os
import re

import pytest
from django.conf import settings

from django_sitemapkit._protocol.locations import DEFAULT_PORTS, normalise_authority, normalise_host

# These tests need no Django settings, but the suite's conftest has autouse
# fixtures that touch django.core.cache.  Under "-p no:django" nothing loads
# tests.settings, so Django's defaults (a local-memory cache) stand in.
if not settings.configured and not os.environ.get("DJANGO_SETTINGS_MODULE"):
    settings.configure()


@pytest.mark.parametrize(
    ("authority", "scheme", "expected"),
    [
        ("www.example.com", "https", "www.example.com"),
        ("WWW.Example.COM", "https", "www.example.com"),
        # The scheme's default port goes; an empty port means the default one.
        ("www.example.com:443", "https", "www.example.com"),
        ("www.example.com:0443", "https", "www.example.com"),
        ("www.example.com:", "https", "www.example.com"),
        ("www.example.com:80", "http", "www.example.com"),
        ("www.example.com:443", "http", "www.example.com:443"),
        ("www.example.com:08443", "https", "www.example.com:8443"),
        ("localhost:8000", "http", "localhost:8000"),
        ("LOCALHOST:8000", "http", "localhost:8000"),
        ("my_host.internal", "https", "my_host.internal"),
        # IP literals.
        ("127.0.0.1:8000", "http", "127.0.0.1:8000"),
        ("127.0.0.1:80", "http", "127.0.0.1"),
        ("[::1]:8000", "http", "[::1]:8000"),
        ("[0:0::0:1]:8000", "http", "[::1]:8000"),
        ("[2001:DB8::0:1]", "http", "[2001:db8::1]"),
        # IDNA, whatever the case of the Unicode or the "xn--" spelling.
        ("Bücher.example", "https", "xn--bcher-kva.example"),
        ("BÜCHER.EXAMPLE", "https", "xn--bcher-kva.example"),
        ("XN--BCHER-KVA.example", "https", "xn--bcher-kva.example"),
        ("日本.jp", "https", "xn--wgv71a.jp"),
        # Ideographic full stop is a label separator in IDNA.
        ("日本。jp", "https", "xn--wgv71a.jp"),
        ("xn--strae-oqa.de", "https", "xn--strae-oqa.de"),
    ],
)
def test_normalise_authority(authority: str, scheme: str, expected: str) -> None:
    assert normalise_authority(authority, scheme) == expected
    # Normalising twice changes nothing.
    assert normalise_authority(expected, scheme) == expected


@pytest.mark.parametrize(
    ("authority", "message"),
    [
        ("", "no host"),
        (":443", "no host"),
        ("user@www.example.com", "user information ('user@')"),
        ("user:pw@www.example.com", "user information ('user@')"),
        # Looks like our host, is evil.example.
        ("www.example.com@evil.example", "user information ('user@')"),
        ("www.example.com:http", "invalid port"),
        ("www.example.com:99999", "invalid port"),
        ("www.example.com:0", "invalid port"),
        ("www.example.com:-1", "invalid port"),
        ("www.example.com:x", "invalid port"),
        ("www.example.com:８０", "invalid port"),
        ("[::1", "not a valid IPv6 address"),
        ("[nonsense]", "not a valid IPv6 address"),
        ("[::1]x", "invalid host"),
        ("[fe80::1%25eth0]", "zone"),
        ("exa mple.com", "not a valid domain name"),
        ("-example.com", "not a valid domain name"),
        ("example-.com", "not a valid domain name"),
        ("www..example.com", "not a valid domain name"),
        ("www%2Eexample.com", "not a valid domain name"),
        ("a" * 64 + ".com", "not a valid domain name"),
        (".".join(["a" * 60] * 5), "not a valid domain name"),
        # A fully-qualified name with its root dot: one spelling only.
        ("www.example.com.", "ends with a dot"),
        ("999.1.1.1", "not a valid IPv4 address"),
        ("1.2.3", "not a valid IPv4 address"),
        # IDNA 2003 would turn straße.de into strasse.de, another domain.
        ("straße.de", "xn--"),
        ("ς.example", "xn--"),
    ],
)
def test_normalise_authority_errors(authority: str, message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        normalise_authority(authority, "https")


def test_normalise_host_takes_no_port() -> None:
    assert normalise_host("[::1]") == "[::1]"
    with pytest.raises(ValueError, match="not a valid domain name"):
        normalise_host("www.example.com:8000")


def test_default_ports() -> None:
    assert DEFAULT_PORTS == {"http": 80, "https": 443}
