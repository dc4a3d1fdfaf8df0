"""Media types, and the stylesheets (package data) that show a file to a person when
``SITEMAPKIT["STYLESHEET"]`` names one: served by the views, written into builds."""

from __future__ import annotations

import functools
import hashlib
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from django_sitemapkit._protocol.writer import escape

XML_CONTENT_TYPE = "application/xml; charset=utf-8"
# Not a Content-Encoding: the file *is* a .gz (sitemaps.org), its bytes must reach clients as is.
GZIP_CONTENT_TYPE = "application/gzip"


@dataclass(frozen=True)
class Stylesheet:
    """One stylesheet every file may name: ``name`` beside the index (and in the package's
    static folder), ``media_type`` its ``<?xml-stylesheet?>`` type."""

    name: str
    media_type: str

    @property
    def content_type(self) -> str:
        return f"{self.media_type}; charset=utf-8"

    def instruction(self, href: str) -> str:
        """The ``<?xml-stylesheet?>`` line naming this stylesheet at ``href`` (escaped)."""
        return f'<?xml-stylesheet type="{self.media_type}" href="{escape(href)}"?>\n'

    @functools.cached_property
    def content(self) -> bytes:
        return self._resource().read_bytes()

    @functools.cached_property
    def etag(self) -> str:
        """A strong ETag: it changes only with the package."""
        return f'"{hashlib.sha256(self.content).hexdigest()[:32]}"'

    @functools.cached_property
    def mtime(self) -> int | None:
        """When the installed file was last modified (epoch seconds); None if not a file."""
        resource = self._resource()
        return int(resource.stat().st_mtime) if isinstance(resource, Path) else None

    def _resource(self) -> resources.abc.Traversable:
        return resources.files("django_sitemapkit").joinpath(
            "static", "django_sitemapkit", self.name
        )


# SITEMAPKIT["STYLESHEET"]'s values, each to its stylesheet: CSS lays the XML out for people
# (browsers keep CSS for XML); XSLT makes a table, but browsers are removing it (check W008).
STYLESHEETS = {
    "css": Stylesheet("sitemap.css", "text/css"),
    "xsl": Stylesheet("sitemap.xsl", "text/xsl"),
}
# The same by file name, as the views and storages meet them.
STYLESHEET_FILES = {sheet.name: sheet for sheet in STYLESHEETS.values()}


def content_type(name: str) -> str:
    """A published file's type: a ``.xml.gz`` is gzip, not what ``mimetypes`` says, gzip-encoded
    XML, which storages send as ``Content-Encoding: gzip`` and clients decompress."""
    if name.endswith(".gz"):
        return GZIP_CONTENT_TYPE
    if name.endswith(".json"):
        return "application/json"
    sheet = STYLESHEET_FILES.get(name)
    return XML_CONTENT_TYPE if sheet is None else sheet.content_type
