"""The media types of the files sitemapkit serves and publishes: one place for views and storages."""

from __future__ import annotations

XML_CONTENT_TYPE = "application/xml; charset=utf-8"
# Raw gzip, not a Content-Encoding: the file *is* a .gz, as sitemaps.org
# describes, and clients must receive the compressed bytes unchanged.
GZIP_CONTENT_TYPE = "application/gzip"
# The type browsers expect of an XSL stylesheet (Chromium also takes XML types).
XSL_CONTENT_TYPE = "text/xsl; charset=utf-8"
JSON_CONTENT_TYPE = "application/json"


def content_type(name: str) -> str:
    """The type of a published file, by its name: a ``.xml.gz`` is gzip, not gzip-encoded XML.

    ``mimetypes.guess_type()`` says the latter (``('application/xml', 'gzip')``),
    which a storage turns into a ``Content-Encoding: gzip`` header: clients
    honouring it (browsers, requests, CDNs) then receive the XML instead of
    the file they asked for.
    """
    if name.endswith(".gz"):
        return GZIP_CONTENT_TYPE
    if name.endswith(".xsl"):
        return XSL_CONTENT_TYPE
    if name.endswith(".json"):
        return JSON_CONTENT_TYPE
    return XML_CONTENT_TYPE
