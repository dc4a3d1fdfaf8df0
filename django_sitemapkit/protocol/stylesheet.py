"""The XSL stylesheet that shows a sitemap file to a person as a table.

Every file references it with an ``<?xml-stylesheet?>`` line after the XML
declaration (``writer.stylesheet_instruction``) when ``SITEMAPKIT["STYLESHEET"]``
is on; crawlers ignore the line. The stylesheet is package data, served by the
views and written into every build beside the index, under one name.
"""

from __future__ import annotations

import functools
import hashlib
from importlib import resources
from pathlib import Path

STYLESHEET_NAME = "sitemap.xsl"
# Where the package holds it (package data, as in the wheel).
_RESOURCE = ("static", "django_sitemapkit", STYLESHEET_NAME)


@functools.cache
def stylesheet_bytes() -> bytes:
    """The stylesheet's bytes, read once from the package."""
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
