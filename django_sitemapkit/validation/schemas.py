"""The official XSDs, when lxml is installed and a folder holds them.

The package ships no schema: ``--xsd-dir`` (which needs lxml: the
``validate`` extra installs it) or the ``SITEMAPKIT_XSD_DIR``
environment variable names a folder with ``sitemap.xsd`` and
``siteindex.xsd`` (and, for pages with image, video, news or hreflang
entries, a wrapper ``sitemap-all.local.xsd`` importing those schemas; a
``xml.xsd`` there stands for the W3C's, which is never fetched). Files are
then parsed by lxml, validating as they stream. Without lxml or a folder,
the same rules run in Python (see ``xmlfile.py``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

try:
    from lxml import etree
except ImportError:  # pragma: no cover - lxml is optional
    etree = None

XSD_DIR_ENV = "SITEMAPKIT_XSD_DIR"
URLSET_WITH_EXTENSIONS = "sitemap-all.local.xsd"
# Remote schema locations served from the folder, never fetched.
_LOCAL_COPIES = {"http://www.w3.org/2001/xml.xsd": "xml.xsd"}


class SchemaError(Exception):
    """The schema folder cannot be used; the message says why."""


@dataclass(frozen=True)
class Schemas:
    folder: Path
    urlset: Any
    sitemapindex: Any

    def for_root(self, kind: str) -> Any:
        return self.urlset if kind == "urlset" else self.sitemapindex


def schema_folder(option: str | None) -> Path | None:
    """The folder ``--xsd-dir`` names, else ``$SITEMAPKIT_XSD_DIR``; None when neither is set."""
    value = option or os.environ.get(XSD_DIR_ENV)
    return Path(value).expanduser() if value else None


def load_schemas(folder: Path | None) -> Schemas | None:
    """The schemas of ``folder``; None without a folder. Raises SchemaError when unusable."""
    if folder is None:
        return None
    if etree is None:
        raise SchemaError(
            f"validating against the XSDs of {folder} needs lxml, which is not installed: "
            "pip install lxml (the package's 'validate' extra installs it)"
        )
    for name in ("sitemap.xsd", "siteindex.xsd"):
        if not (folder / name).is_file():
            raise SchemaError(f"{folder} has no {name}")
    urlset = (
        URLSET_WITH_EXTENSIONS if (folder / URLSET_WITH_EXTENSIONS).is_file() else "sitemap.xsd"
    )
    try:
        return Schemas(folder, _schema(folder, urlset), _schema(folder, "siteindex.xsd"))
    except (etree.XMLSchemaParseError, etree.XMLSyntaxError, OSError) as exc:
        raise SchemaError(f"cannot read the schemas of {folder}: {exc}") from None


def _parser(folder: Path | None) -> Any:
    parser = etree.XMLParser(
        resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False
    )
    if folder is not None:
        parser.resolvers.add(_LocalResolver(folder))
    return parser


def _schema(folder: Path, name: str) -> Any:
    return etree.XMLSchema(etree.parse(str(folder / name), _parser(folder)))


if etree is not None:

    class _LocalResolver(etree.Resolver):  # type: ignore[misc]
        def __init__(self, folder: Path) -> None:
            super().__init__()
            self.folder = folder

        def resolve(self, system_url: str | None, public_id: str | None, context: Any) -> Any:
            local = _LOCAL_COPIES.get(system_url or "")
            if local is None:
                return None
            return self.resolve_filename(str(self.folder / local), context)


class SchemaCheck:
    """Validates the chunks of one file fed to it, keeping its first error.

    lxml parses alongside the standard library's parser (which reads the
    entries and finds well-formedness errors: lxml misses some of those
    while validating against a schema that imports others); each element
    is dropped once validated, so memory stays flat.
    """

    def __init__(self, schema: Any) -> None:
        self.parser = etree.XMLPullParser(
            events=("end",),
            schema=schema,
            resolve_entities=False,
            no_network=True,
            load_dtd=False,
            huge_tree=False,
        )
        self.problem: tuple[str, str] | None = None

    def feed(self, chunk: bytes | None) -> None:
        """Validate the next chunk (None: the end of the file)."""
        if self.problem is not None:
            return
        try:
            if chunk is None:
                self.parser.close()
            else:
                self.parser.feed(chunk)
        except Exception as exc:
            self.problem = lxml_error(exc)
            if self.problem is None:
                raise
            return
        for _, element in self.parser.read_events():
            parent = element.getparent()
            if parent is not None and parent.getparent() is None:
                parent.remove(element)


def lxml_error(exc: BaseException) -> tuple[str, str] | None:
    """("schema" | "xml", message) for an lxml parse error; None for any other exception."""
    if etree is None or not isinstance(exc, etree.XMLSyntaxError):
        return None
    log = getattr(exc, "error_log", None) or []
    schema = any(entry.domain_name == "SCHEMASV" for entry in log)
    message = str(exc.msg or exc).split(" (<string>", 1)[0].split(", line ", 1)[0]
    return ("schema" if schema else "xml", message)
