"""One sitemap or index file, read as a stream (memory stays flat): entries, size, hash, problem.
The schemas' rules run in Python on every file; with the XSDs at hand (``--xsd-dir``) lxml
validates the file against them too. A file gets one ``xml`` or ``schema`` finding at most."""

from __future__ import annotations

import datetime
import hashlib
import os
import re
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast
from urllib.parse import urlsplit

from django.core.management.base import CommandError

from django_sitemapkit._protocol.locations import DEFAULT_PORTS, MAX_URL_LENGTH
from django_sitemapkit._protocol.writer import CHANGEFREQS, MAX_BYTES_PER_FILE, SITEMAP_NS
from django_sitemapkit._validation.sources import Readable

try:
    from lxml import etree
except ImportError:  # pragma: no cover - lxml is optional
    etree = None

XSD_DIR_ENV = "SITEMAPKIT_XSD_DIR"
URLSET_WITH_EXTENSIONS = "sitemap-all.local.xsd"
_LOCAL_COPIES = {"http://www.w3.org/2001/xml.xsd": "xml.xsd"}  # read from the folder, not fetched
LOC_MIN = 12  # tLoc: an anyURI of 12 to 2,048 characters; the protocol wants it absolute
# xsd:date or xsd:dateTime (seconds required, fractions and a zone optional).
_LASTMOD = re.compile(
    r"(?P<date>\d{4}-\d{2}-\d{2})"
    r"(?:T(?P<time>\d{2}:\d{2}:\d{2})(?P<fraction>\.\d+)?)?"
    r"(?P<zone>Z|[+-]\d{2}:\d{2})?"
)
_DECIMAL = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)")
_NS = f"{{{SITEMAP_NS}}}"
FIELDS = {
    "urlset": ("url", ("loc", "lastmod", "changefreq", "priority")),
    "sitemapindex": ("sitemap", ("loc", "lastmod")),
}
# The root element's name, found in the first bytes to pick the schema.
_ROOT = re.compile(rb"<(?:[\w.-]+:)?(urlset|sitemapindex)[\s>/]")
# The encoding the XML declaration names (after a UTF-8 byte order mark, if any).
_ENCODING = re.compile(rb"(?:\xef\xbb\xbf)?\s*<\?xml[^>]*?\bencoding\s*=\s*[\"']([^\"']*)[\"']")
_PEEK_BYTES = 65_536
_CHUNK = 1 << 20


def loc_problem(value: str) -> str | None:
    if not LOC_MIN <= len(value) <= MAX_URL_LENGTH:
        return f"<loc> must be {LOC_MIN} to {MAX_URL_LENGTH:,} characters long, not {len(value):,}"
    if any(c.isspace() for c in value):
        return f"<loc> {value[:100]!r} contains whitespace"
    try:
        parts = urlsplit(value)
    except ValueError:
        return f"<loc> {value[:100]!r} is not a URL"
    if parts.scheme not in DEFAULT_PORTS or not parts.netloc:
        return f"<loc> {value[:100]!r} is not an absolute http(s) URL"
    return None


def parse_lastmod(value: str) -> datetime.datetime | None:
    """The instant a lastmod names (a date: its start, at UTC+14), or None when invalid."""
    match = _LASTMOD.fullmatch(value)
    if match is None:
        return None
    # No zone: read as early as it can be anywhere. Fractions of a second are dropped.
    zone = match["zone"] or "+14:00"
    try:
        return datetime.datetime.fromisoformat(f"{match['date']}T{match['time'] or '00:00'}{zone}")
    except ValueError:
        return None


# The values of a field other than <loc>: the test a valid one passes, what is said of the others.
_VALUES: dict[str, tuple[Callable[[str], object], str]] = {
    "lastmod": (parse_lastmod, "is not a W3C date or date-time"),
    "changefreq": (CHANGEFREQS.__contains__, f"is not one of {', '.join(sorted(CHANGEFREQS))}"),
    "priority": (
        lambda value: _DECIMAL.fullmatch(value) and 0 <= float(value) <= 1,
        "is not a number from 0.0 to 1.0",
    ),
}


def value_problem(field: str, value: str) -> str | None:
    """What is wrong with the text of ``<field>`` (a field of FIELDS), or None."""
    if field == "loc":
        return loc_problem(value)
    valid, problem = _VALUES[field]
    return None if valid(value) else f"<{field}> {value[:60]!r} {problem}"


Schemas = dict[str, Any]  # the XSDs of a folder, by root element


def load_schemas(option: str | None) -> Schemas | None:
    """The XSDs of ``--xsd-dir``, else ``$SITEMAPKIT_XSD_DIR`` (None: neither); for pages,
    ``sitemap-all.local.xsd`` (importing the extensions' schemas) if there, else ``sitemap.xsd``."""
    value = option or os.environ.get(XSD_DIR_ENV)
    if not value:
        return None
    folder = Path(value).expanduser()
    if etree is None:
        raise CommandError(
            f"validating against the XSDs of {folder} needs lxml, which is not installed: "
            "pip install lxml (the package's 'validate' extra installs it)"
        )
    for name in ("sitemap.xsd", "siteindex.xsd"):
        if not (folder / name).is_file():
            raise CommandError(f"{folder} has no {name}")
    extended = (folder / URLSET_WITH_EXTENSIONS).is_file()
    urlset = URLSET_WITH_EXTENSIONS if extended else "sitemap.xsd"
    try:
        return {"urlset": _schema(folder, urlset), "sitemapindex": _schema(folder, "siteindex.xsd")}
    except (etree.XMLSchemaParseError, etree.XMLSyntaxError, OSError) as exc:
        raise CommandError(f"cannot read the schemas of {folder}: {exc}") from None


_SAFE = {"resolve_entities": False, "no_network": True, "load_dtd": False, "huge_tree": False}


def _schema(folder: Path, name: str) -> Any:
    class LocalCopies(etree.Resolver):  # type: ignore[misc]
        def resolve(self, system_url: str | None, _public_id: str | None, context: Any) -> Any:
            local = _LOCAL_COPIES.get(system_url or "")
            return None if local is None else self.resolve_filename(str(folder / local), context)

    parser = etree.XMLParser(**_SAFE)
    parser.resolvers.add(LocalCopies())
    return etree.XMLSchema(etree.parse(str(folder / name), parser))


class SchemaCheck:
    """Validates the chunks of one file fed to it, keeping its first error (no schema: none).
    lxml parses alongside the standard library's parser, which reads the entries and finds the
    well-formedness errors lxml misses with a schema that imports others."""

    def __init__(self, schema: Any) -> None:
        self.parser = schema and etree.XMLPullParser(events=("end",), schema=schema, **_SAFE)
        self.problem: tuple[str, str] | None = None

    def feed(self, chunk: bytes | None) -> None:
        """Validate the next chunk (None: the end of the file)."""
        if self.parser is None or self.problem is not None:
            return
        try:
            if chunk is None:
                self.parser.close()
            else:
                self.parser.feed(chunk)
        except etree.XMLSyntaxError as exc:
            log = getattr(exc, "error_log", None) or []
            schema = any(entry.domain_name == "SCHEMASV" for entry in log)
            message = str(exc.msg or exc).split(" (<string>", 1)[0].split(", line ", 1)[0]
            self.problem = ("schema" if schema else "xml", message)
            return
        for _, element in self.parser.read_events():
            parent = element.getparent()
            if parent is not None and parent.getparent() is None:
                parent.remove(element)


@dataclass(frozen=True)
class Entry:
    number: int
    loc: str
    lastmod: str | None
    kind: str = "urlset"  # the file's root: "urlset" (a page URL) or "sitemapindex" (a page file)


class HashingReader:
    """``stream``, counting and hashing the bytes read through it."""

    def __init__(self, stream: Readable) -> None:
        self.stream = stream
        self.size = 0
        self.hash = hashlib.sha256()

    def read(self, size: int) -> bytes:
        data = self.stream.read(size)
        self.size += len(data)
        self.hash.update(data)
        return data

    def drain(self) -> HashingReader:
        while self.read(_CHUNK):
            pass
        return self


class Scan:
    """One file's scan: its root (``kind``), entries, size, SHA-256 and first problem."""

    def __init__(self, on_entry: Callable[[Entry], None]) -> None:
        self.on_entry = on_entry
        self.kind: str | None = None  # "urlset" or "sitemapindex" once the root is read
        self.entry = ""  # with names, FIELDS[kind]
        self.names: tuple[str, ...] = ()
        self.entries = self.size = self.depth = 0
        self.sha256 = ""
        self.problem: tuple[str, str, str] | None = None  # (rule, message, where)
        self.root: Any = None
        self._reset()

    def _reset(self) -> None:
        self.position = -1  # index in names of the last field seen; len(names) after an extension
        self.field: str | None = None
        self.loc: str | None = None
        self.lastmod: str | None = None

    def fail(self, rule: str, message: str) -> None:
        if self.problem is None:
            self.problem = (rule, message, f"entry {self.entries + 1}" if self.depth > 1 else "")

    def parse(self, head: bytes, reader: HashingReader, check: SchemaCheck) -> None:
        """Parse ``head``, the bytes read so far, then the rest of ``reader``."""
        parser: ET.XMLPullParser[ET.Element] = ET.XMLPullParser(events=("start", "end"))
        chunk = head
        try:
            while chunk:
                parser.feed(chunk)
                self._events(parser)
                check.feed(chunk)
                chunk = reader.read(_CHUNK)
            if reader.size > MAX_BYTES_PER_FILE:
                return  # read up to the protocol's cap only: the file's end is not reached
            parser.close()
            self._events(parser)
        except (ET.ParseError, LookupError, ValueError) as exc:  # an encoding expat cannot read
            self.fail("xml", f"not well-formed XML: {exc}")
        check.feed(None)
        if check.problem is not None:
            self.fail(*check.problem)

    def _events(self, parser: ET.XMLPullParser[ET.Element]) -> None:
        # Only "start" and "end" were asked for: every event is (event, element).
        for event, element in cast("Iterator[tuple[str, ET.Element]]", parser.read_events()):
            if event == "start":
                self._start(element)
            else:
                self._end(element)
                self.depth -= 1

    def _start(self, element: Any) -> None:
        self.depth += 1
        tag = str(element.tag)
        if self.depth == 1:
            self.root = element
            name = tag.removeprefix(_NS)
            if name in FIELDS and tag.startswith(_NS):
                self.kind, (self.entry, self.names) = name, FIELDS[name]
            else:
                self.fail(
                    "schema", f"root element {tag!r}, not <urlset> or <sitemapindex> of {_NS}"
                )
        elif self.kind is None:
            return
        elif self.depth == 2:
            if tag == _NS + self.entry:
                self._reset()
            elif tag.startswith(_NS) or self.entries:
                self.fail("schema", f"unexpected {_short(tag)} in <{self.kind}>")
        elif self.depth == 3:
            self._start_field(tag)
        elif self.depth == 4 and self.field is not None:
            self.fail("schema", f"<{self.field}> holds an element")

    def _start_field(self, tag: str) -> None:
        if not tag.startswith(_NS):
            if self.position < 0:
                self.fail("schema", f"<{self.entry}> must start with <loc>, not {_short(tag)}")
            self.position = len(self.names)
            return
        name = tag.removeprefix(_NS)
        if self.position < 0 and name != "loc":
            self.fail("schema", f"<{self.entry}> must start with <loc>, not <{name}>")
        elif name not in self.names or self.names.index(name) <= self.position:
            self.fail("schema", f"unexpected <{name}> in <{self.entry}>")
        else:
            self.position = self.names.index(name)
            self.field = name

    def _end(self, element: Any) -> None:
        if self.kind is None:
            return
        if self.depth == 3 and self.field is not None:
            text = (element.text or "").strip()
            problem = value_problem(self.field, text)
            if problem is not None:
                self.fail("schema", problem)
            elif self.field in ("loc", "lastmod"):
                setattr(self, self.field, text)
            self.field = None
        elif self.depth == 2 and self.field is None and element.tag == _NS + self.entry:
            self.entries += 1
            if self.loc is not None:
                self.on_entry(Entry(self.entries, self.loc, self.lastmod, self.kind))
            elif self.position < 0:
                self.fail("schema", f"<{self.entry}> has no <loc>")
            self._reset()
            self.root.clear()  # keep memory flat: the entry is read
        elif self.depth == 1 and not self.entries:
            self.fail("schema", f"<{self.kind}> has no <{self.entry}>")


def scan(
    stream: Readable, on_entry: Callable[[Entry], None], schemas: Schemas | None = None
) -> Scan:
    """Read ``stream`` to its end, calling ``on_entry`` per entry with a ``<loc>``."""
    result = Scan(on_entry)
    reader = HashingReader(stream)
    head = reader.read(_PEEK_BYTES)
    if (not_utf8 := _encoding_problem(head)) is not None:
        result.fail("xml", not_utf8)
    else:
        root = _ROOT.search(head)
        schema = schemas[root.group(1).decode()] if schemas is not None and root else None
        result.parse(head, reader, SchemaCheck(schema))
    reader.drain()
    result.size, result.sha256 = reader.size, reader.hash.hexdigest()
    return result


def _encoding_problem(head: bytes) -> str | None:
    """What says the file is not UTF-8, as the protocol wants: a declaration, or zero bytes."""
    if head.startswith((b"\xff\xfe", b"\xfe\xff")) or b"\x00" in head[:4]:
        return "not UTF-8 (UTF-16 or UTF-32): sitemaps must be UTF-8"
    match = _ENCODING.match(head)
    if match is not None and match.group(1).lower() != b"utf-8":
        name = match.group(1).decode("ascii", "replace")[:40]
        return f"declares the encoding {name!r}: sitemaps must be UTF-8"
    return None


def _short(tag: str) -> str:
    namespace, _, name = tag.rpartition("}")
    if namespace and namespace[1:] != SITEMAP_NS:
        return f"<{name}> of {namespace[1:]}"
    return f"<{name}>"
