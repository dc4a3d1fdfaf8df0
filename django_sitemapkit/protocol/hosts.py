"""The authority of a sitemap URL (``host[:port]``) in its one canonical spelling.

Search engines compare URLs as strings, so every spelling of the same host
(case, Unicode or ``xn--``, explicit default port, IPv6 literal written
longhand) becomes one; anything that is not a host a resolver understands is
refused with a ValueError whose message says why.

Host names are converted with Python's built-in ``idna`` codec (IDNA 2003,
the same conversion Django's own ``punycode()`` helper uses).  Labels with
the four characters IDNA 2003 and IDNA 2008 convert differently (``ß``,
``ς``, ZWJ, ZWNJ) are refused rather than silently turned into another
domain (``straße.de`` would become ``strasse.de``); write those hosts in
their ``xn--`` form.
"""

from __future__ import annotations

import functools
import ipaddress
import re

__all__ = ["DEFAULT_PORTS", "normalise_authority", "normalise_host"]

#: The schemes a sitemap may list, with the port a URL without one means.
DEFAULT_PORTS = {"http": 80, "https": 443}

_LABEL = r"[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?"
_HOSTNAME = re.compile(rf"{_LABEL}(?:\.{_LABEL})*\Z").match
_IPV4_LIKE = re.compile(r"[0-9.]+\Z").match
_PORT = re.compile(r"[0-9]{1,5}\Z").match
# Mapped differently by IDNA 2003 (the stdlib codec) and IDNA 2008.
_IDNA_DEVIATIONS = frozenset("\u00df\u03c2\u200c\u200d")


@functools.lru_cache(maxsize=256)
def normalise_host(host: str) -> str:
    """Lower-case, IDNA-encode and validate a host name or IP literal."""
    if not host:
        raise ValueError("the URL has no host")
    if host.startswith("["):
        if not host.endswith("]"):
            raise ValueError(f"host {host!r} is not a valid IPv6 address")
        literal = host[1:-1]
        if "%" in literal:
            # Zone ids only make sense on the machine that wrote them.
            raise ValueError(f"host {host!r}: IPv6 zone ids are not allowed")
        try:
            return f"[{ipaddress.IPv6Address(literal).compressed}]"
        except ValueError:
            raise ValueError(f"host {host!r} is not a valid IPv6 address") from None
    name = host.lower()
    if not name.isascii():
        if not _IDNA_DEVIATIONS.isdisjoint(name):
            raise ValueError(
                f"host {host!r} contains a character that IDNA 2003 and 2008 "
                "convert differently; write the host in its 'xn--' form"
            )
        try:
            name = name.encode("idna").decode("ascii").lower()
        except UnicodeError:
            raise ValueError(f"host {host!r} is not a valid domain name") from None
    if name.endswith("."):
        # DNS-wise the same host, but a different string for every
        # comparison search engines make: one spelling only.
        raise ValueError(f"host {host!r} ends with a dot; write it without")
    if len(name) > 253 or not _HOSTNAME(name):
        raise ValueError(f"host {host!r} is not a valid domain name")
    if _IPV4_LIKE(name):
        # All-numeric names are IPv4 addresses: reject "999.1.1.1" or "1.2.3"
        # instead of listing a URL no resolver understands.
        try:
            ipaddress.IPv4Address(name)
        except ValueError:
            raise ValueError(f"host {host!r} is not a valid IPv4 address") from None
    return name


def normalise_authority(authority: str, scheme: str) -> str:
    """``host[:port]`` in canonical form; the scheme's default port is dropped."""
    if "@" in authority:
        # "https://www.example.com@evil.example/" is a URL on evil.example.
        raise ValueError("user information ('user@') before the host is not allowed")
    if authority.startswith("["):
        # An IPv6 literal contains ":" itself; the port follows the "]".
        end = authority.find("]") + 1
        if not end:
            raise ValueError(f"host {authority!r} is not a valid IPv6 address")
        host, port = authority[:end], authority[end:]
        if port and not port.startswith(":"):
            raise ValueError(f"invalid host {authority!r}")
        port = port[1:]
    else:
        host, _, port = authority.partition(":")
    host = normalise_host(host)
    if not port:
        # "host:" has an empty port, which means the default one.
        return host
    if not _PORT(port) or not 0 < int(port) <= 65535:
        raise ValueError(f"invalid port {port!r}")
    number = int(port)
    if number == DEFAULT_PORTS[scheme]:
        return host
    return f"{host}:{number}"
