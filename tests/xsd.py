"""Validate generated XML against sitemap schemas: the project's own, and the official ones.

Usage in a test::

    from tests.xsd import validate_index, validate_urlset

    root = validate_urlset(response.content)  # -> lxml root element
    validate_index(b"<?xml ...><sitemapindex ...>...</sitemapindex>")

Every document is validated against the schemas in ``tests/schemas/``, which the
project writes itself from the protocol's published structure (sitemaps.org 0.9
and the extensions the package writes), so a fresh clone runs every schema test.
The official schemas are not copied into this repository; wherever they are at
hand each document is validated against them too, in addition. They are read
from ``$SITEMAPKIT_XSD_DIR`` if set, else from ``../shared/xsd`` next to the repo
root. A folder named there that lacks them fails the test; so does a missing
``../shared/xsd`` when the ``CI`` environment variable is set (truthy), unless
``SITEMAPKIT_XSD_DIR`` is set but empty, which says "the project's schemas only"
(CI's fresh-clone step).

Parsing is offline and safe: no network, no DTD loading, no entity expansion.  The
only remote reference in the official set (``http://www.w3.org/2001/xml.xsd``,
imported by the XHTML schema) is mapped to the local copy.
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
# The project's own schemas (see the comment at the top of each file).
PROJECT_XSD_DIR = Path(__file__).resolve().parent / "schemas"
XSD_DIR_ENV = "SITEMAPKIT_XSD_DIR"

# Remote schema locations that must resolve to files in the XSD folder.
_LOCAL_COPIES = {"http://www.w3.org/2001/xml.xsd": "xml.xsd"}

# Core sitemap schema plus the image/video/news schemas and XHTML (hreflang links).
_EXTENDED_URLSET_XSD = "sitemap-all.local.xsd"


def _ci() -> bool:
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no", "off")


def _has_schemas(folder: Path) -> bool:
    return (folder / "sitemap.xsd").is_file() and (folder / "siteindex.xsd").is_file()


def official_xsd_dir() -> Path | None:
    """The folder of the official schemas; None when they are not at hand.

    Fails the calling test when ``$SITEMAPKIT_XSD_DIR`` names a folder without
    them, or when ``../shared/xsd`` lacks them under ``CI`` (see the module's
    docstring).
    """
    configured = os.environ.get(XSD_DIR_ENV)
    if configured is not None and not configured.strip():
        return None
    folder = Path(configured or REPO_ROOT.parent / "shared" / "xsd").expanduser().resolve()
    if _has_schemas(folder):
        return folder
    if configured:
        pytest.fail(f"{XSD_DIR_ENV}={configured} holds no sitemap.xsd and siteindex.xsd")
    if _ci():
        pytest.fail(
            f"CI is set but the official XSDs are not in {folder} (provide ../shared/xsd, "
            f"set {XSD_DIR_ENV}, or set it empty for the project's schemas only)",
            pytrace=False,
        )
    return None


def xsd_dirs() -> list[Path]:
    """The folders every document is validated against: the project's, then the official."""
    official = official_xsd_dir()
    return [PROJECT_XSD_DIR] if official is None else [PROJECT_XSD_DIR, official]


def xsd_dir() -> Path:
    """One folder for a validator run (``--xsd-dir``): the official one when at hand, else ours."""
    return official_xsd_dir() or PROJECT_XSD_DIR


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
    data = _as_bytes(xml)
    try:
        root = etree.fromstring(data, _parser())
    except etree.XMLSyntaxError as exc:
        raise AssertionError(f"not well-formed XML: {exc}\n{_excerpt(data)}") from exc
    expected = f"{{{SITEMAP_NS}}}{root_name}"
    if root.tag != expected:
        raise AssertionError(f"root element is {root.tag!r}, expected {expected!r}")
    for folder in xsd_dirs():
        # A folder of official schemas without the wrapper: the core schema alone.
        name = schema_file if (folder / schema_file).is_file() else "sitemap.xsd"
        errors = schema_errors(root, folder, name)
        if errors:
            raise AssertionError(
                f"XML does not validate against {folder / name}:\n"
                + "\n".join(f"  {error}" for error in errors)
                + f"\n{_excerpt(data)}"
            )
    return root


def schema_errors(root: etree._Element, folder: Path, schema_file: str) -> list[str]:
    """The errors of validating ``root`` against ``folder/schema_file`` (none: valid)."""
    schema = _schema(folder, schema_file)
    if schema.validate(root):
        return []
    return [f"line {e.line}: {e.message}" for e in schema.error_log]


def _excerpt(data: bytes, limit: int = 2000) -> str:
    text = data.decode("utf-8", errors="replace")
    return text if len(text) <= limit else text[:limit] + f"... [{len(text) - limit} more chars]"


def validate_urlset(xml: Any, *, extensions: bool = True) -> etree._Element:
    """Assert ``xml`` is a valid ``<urlset>``; return the parsed root element.

    With ``extensions=True`` (default) the schema is ``sitemap.xsd`` combined with
    Google's image/video/news schemas and XHTML, so ``<image:image>``,
    ``<xhtml:link hreflang>`` etc. are validated strictly too (``sitemap.xsd`` alone
    rejects every foreign element, because its wildcards are ``processContents="strict"``).
    Pass ``extensions=False`` to validate against ``sitemap.xsd`` only.
    """
    return _validate(xml, _EXTENDED_URLSET_XSD if extensions else "sitemap.xsd", "urlset")


def validate_index(xml: Any) -> etree._Element:
    """Assert ``xml`` is a valid ``<sitemapindex>`` (``siteindex.xsd``); return its root."""
    return _validate(xml, "siteindex.xsd", "sitemapindex")
