"""Media types, and the XSL stylesheet (package data) that shows a file to a person as a
table when ``SITEMAPKIT["STYLESHEET"]`` is on: served by the views, written into builds."""

from __future__ import annotations

import functools
import hashlib
from importlib import resources
from pathlib import Path

XML_CONTENT_TYPE = "application/xml; charset=utf-8"
# Not a Content-Encoding: the file *is* a .gz (sitemaps.org), its bytes must reach clients as is.
GZIP_CONTENT_TYPE = "application/gzip"
# The type browsers expect of an XSL stylesheet (Chromium also takes XML types).
XSL_CONTENT_TYPE = "text/xsl; charset=utf-8"

STYLESHEET_NAME = "sitemap.xsl"
_RESOURCE = ("static", "django_sitemapkit", STYLESHEET_NAME)


def content_type(name: str) -> str:
    """A published file's type: a ``.xml.gz`` is gzip, not what ``mimetypes`` says, gzip-encoded
    XML, which storages send as ``Content-Encoding: gzip`` and clients decompress."""
    if name.endswith(".gz"):
        return GZIP_CONTENT_TYPE
    if name.endswith(".xsl"):
        return XSL_CONTENT_TYPE
    if name.endswith(".json"):
        return "application/json"
    return XML_CONTENT_TYPE


@functools.cache
def stylesheet_bytes() -> bytes:
    return resources.files("django_sitemapkit").joinpath(*_RESOURCE).read_bytes()


@functools.cache
def stylesheet_etag() -> str:
    """A strong ETag of the stylesheet: it changes only with the package."""
    return f'"{hashlib.sha256(stylesheet_bytes()).hexdigest()[:32]}"'


@functools.cache
def stylesheet_mtime() -> int | None:
    """When the installed stylesheet was last modified (epoch seconds); None if not a file."""
    resource = resources.files("django_sitemapkit").joinpath(*_RESOURCE)
    return int(resource.stat().st_mtime) if isinstance(resource, Path) else None
