"""The files besides the XML: their media types, and the XSL stylesheet.

The stylesheet shows a sitemap file to a person as a table: every file names it
in an ``<?xml-stylesheet?>`` line when ``SITEMAPKIT["STYLESHEET"]`` is on
(crawlers ignore the line). It is package data, served by the views and written
into every build beside the index, under one name.
"""

from __future__ import annotations

import functools
import hashlib
from importlib import resources
from pathlib import Path

XML_CONTENT_TYPE = "application/xml; charset=utf-8"
# Raw gzip, not a Content-Encoding: the file *is* a .gz, as sitemaps.org
# describes, and clients must receive the compressed bytes unchanged.
GZIP_CONTENT_TYPE = "application/gzip"
# The type browsers expect of an XSL stylesheet (Chromium also takes XML types).
XSL_CONTENT_TYPE = "text/xsl; charset=utf-8"
JSON_CONTENT_TYPE = "application/json"

STYLESHEET_NAME = "sitemap.xsl"
_RESOURCE = ("static", "django_sitemapkit", STYLESHEET_NAME)


def content_type(name: str) -> str:
    """The type of a published file, by its name: a ``.xml.gz`` is gzip, not gzip-encoded XML.

    ``mimetypes.guess_type()`` says the latter, which a storage turns into a
    ``Content-Encoding: gzip`` header: clients honouring it (browsers,
    requests, CDNs) then receive the XML instead of the file they asked for.
    """
    if name.endswith(".gz"):
        return GZIP_CONTENT_TYPE
    if name.endswith(".xsl"):
        return XSL_CONTENT_TYPE
    if name.endswith(".json"):
        return JSON_CONTENT_TYPE
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
