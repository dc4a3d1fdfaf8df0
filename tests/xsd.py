"""Validate generated XML against the official sitemaps.org schemas.

Usage in a test::

    from tests.xsd import validate_index, validate_urlset

    root = validate_urlset(response.content)  # -> lxml root element
    validate_index(b"<?xml ...><sitemapindex ...>...</sitemapindex>")

The schemas are not copied into this repository.  They are read from
``$SITEMAPKIT_XSD_DIR`` if set, else from ``../shared/xsd`` next to the repo root.
If that folder is missing the calling test is *skipped* -- unless the ``CI``
environment variable is set (truthy), in which case it *fails*: CI must never pass
without schema validation.

Parsing is offline and safe: no network, no DTD loading, no entity expansion.  The
only remote reference in the schema set (``http://www.w3.org/2001/xml.xsd``, imported
by the XHTML schema) is mapped to the local copy.
"""

from __future__ import annotations

import functools
import os
from pathlib import Path
from typing import Any

import pytest
from lxml import etree

SITEMAP_NS = "http://www.sitemaps.org/schemas/sitemap/0.9"

REPO_ROOT = Path(__file__).resolve().parent.parent

# Remote schema locations that must resolve to files in the XSD folder.
_LOCAL_COPIES = {"http://www.w3.org/2001/xml.xsd": "xml.xsd"}

# Core sitemap schema plus the Google image/video/news schemas and XHTML (hreflang links).
_EXTENDED_URLSET_XSD = "sitemap-all.local.xsd"


def _ci() -> bool:
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no", "off")


def xsd_dir() -> Path:
    """The folder holding the schemas (may not exist; see :func:`_require_dir`)."""
    configured = os.environ.get("SITEMAPKIT_XSD_DIR")
    if configured:
        return Path(configured).expanduser().resolve()
    return (REPO_ROOT.parent / "shared" / "xsd").resolve()


def _require_dir() -> Path:
    folder = xsd_dir()
    if (folder / "sitemap.xsd").is_file() and (folder / "siteindex.xsd").is_file():
        return folder
    msg = (
        f"sitemap XSDs not found in {folder} "
        "(set SITEMAPKIT_XSD_DIR or provide ../shared/xsd beside the repo)"
    )
    if _ci():
        pytest.fail(f"CI is set but {msg}", pytrace=False)
    pytest.skip(msg)


class _LocalResolver(etree.Resolver):
    """Serve known remote schema URLs from the local XSD folder; never the network."""

    def __init__(self, folder: Path) -> None:
        super().__init__()
        self.folder = folder

    def resolve(self, system_url: str | None, public_id: str | None, context: Any) -> Any:
        local = _LOCAL_COPIES.get(system_url or "")
        if local is not None:
            return self.resolve_filename(str(self.folder / local), context)
        return None


def _parser(folder: Path | None = None) -> etree.XMLParser:
    parser = etree.XMLParser(
        resolve_entities=False,
        no_network=True,
        load_dtd=False,
        dtd_validation=False,
        huge_tree=False,
    )
    if folder is not None:
        parser.resolvers.add(_LocalResolver(folder))
    return parser


@functools.cache
def _schema(folder: Path, filename: str) -> etree.XMLSchema:
    doc = etree.parse(str(folder / filename), _parser(folder))
    return etree.XMLSchema(doc)


def _as_bytes(xml: Any) -> bytes:
    """Accept bytes, str, or a Django (streaming) response."""
    if hasattr(xml, "streaming_content"):
        return b"".join(xml.streaming_content)
    if hasattr(xml, "content"):
        xml = xml.content
    if isinstance(xml, str):
        return xml.encode("utf-8")
    if isinstance(xml, bytes | bytearray | memoryview):
        return bytes(xml)
    raise TypeError(f"expected XML bytes/str or a response, got {type(xml).__name__}")


def _validate(xml: Any, schema_file: str, root_name: str) -> etree._Element:
    folder = _require_dir()
    data = _as_bytes(xml)
    try:
        root = etree.fromstring(data, _parser())
    except etree.XMLSyntaxError as exc:
        raise AssertionError(f"not well-formed XML: {exc}\n{_excerpt(data)}") from exc
    expected = f"{{{SITEMAP_NS}}}{root_name}"
    if root.tag != expected:
        raise AssertionError(f"root element is {root.tag!r}, expected {expected!r}")
    schema = _schema(folder, schema_file)
    if not schema.validate(root):
        errors = "\n".join(f"  line {e.line}: {e.message}" for e in schema.error_log)
        raise AssertionError(
            f"XML does not validate against {schema_file}:\n{errors}\n{_excerpt(data)}"
        )
    return root


def _excerpt(data: bytes, limit: int = 2000) -> str:
    text = data.decode("utf-8", errors="replace")
    return text if len(text) <= limit else text[:limit] + f"... [{len(text) - limit} more chars]"


def validate_urlset(xml: Any, *, extensions: bool = True) -> etree._Element:
    """Assert ``xml`` is a valid ``<urlset>``; return the parsed root element.

    With ``extensions=True`` (default) the schema is ``sitemap.xsd`` combined with
    Google's image/video/news schemas and XHTML, so ``<image:image>``,
    ``<xhtml:link hreflang>`` etc. are validated strictly too (``sitemap.xsd`` alone
    rejects every foreign element, because its wildcards are ``processContents="strict"``).
    Falls back to plain ``sitemap.xsd`` if the combined wrapper is not present.
    Pass ``extensions=False`` to validate against ``sitemap.xsd`` only.
    """
    schema_file = "sitemap.xsd"
    if extensions and (xsd_dir() / _EXTENDED_URLSET_XSD).is_file():
        schema_file = _EXTENDED_URLSET_XSD
    return _validate(xml, schema_file, "urlset")


def validate_index(xml: Any) -> etree._Element:
    """Assert ``xml`` is a valid ``<sitemapindex>`` (``siteindex.xsd``); return its root."""
    return _validate(xml, "siteindex.xsd", "sitemapindex")
