"""RFC 3986 syntax for the URLs a sitemap may list, written from the ABNF (appendix A).

A ``<loc>`` is an absolute ``http``/``https`` URI: ``scheme "://" authority
path-abempty [ "?" query ]``. Fragments are not allowed (a crawler drops them
anyway), nor user information.
"""

from __future__ import annotations

import re

_UNRESERVED = r"A-Za-z0-9\-._~"
_SUB_DELIMS = r"!$&'()*+,;="
_PCT = r"%[0-9A-Fa-f]{2}"
_PCHAR = rf"(?:[{_UNRESERVED}{_SUB_DELIMS}:@]|{_PCT})"
_REG_NAME = rf"(?:[{_UNRESERVED}{_SUB_DELIMS}]|{_PCT})*"
_IPV6 = r"\[[0-9A-Fa-f:.]+\]"
_HOST = rf"(?:{_IPV6}|{_REG_NAME})"

SITEMAP_URL = re.compile(rf"https?://{_HOST}(?::[0-9]*)?(?:/{_PCHAR}*)*(?:\?(?:{_PCHAR}|[/?])*)?\Z")


def is_sitemap_url(url: str) -> bool:
    """Whether ``url`` is an absolute http(s) URI by RFC 3986, without a fragment."""
    return SITEMAP_URL.match(url) is not None
