"""One sitemap or index file, read as a stream: its entries, size, hash and first problem.

Memory stays bounded whatever the file's size: elements are dropped as soon
as their entry is read (``iterparse``), and the bytes only pass through a
hash. The structure rules of the schemas (root element and namespace, the
entry's children and their order, required ``<loc>``, the values of
``values.py``) run in Python on every file; with schemas at hand, lxml
validates the file against them as it streams too. A file gets one
``xml`` or ``schema`` finding at most: its first problem. The protocol
wants UTF-8: a file in any other encoding is reported, and not parsed.
"""

from __future__ import annotations

import hashlib
import re
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, cast

from django_sitemapkit.protocol.writer import MAX_BYTES_PER_FILE, SITEMAP_NS
from django_sitemapkit.validation import values
from django_sitemapkit.validation.bounded import Readable
from django_sitemapkit.validation.schemas import SchemaCheck, Schemas

_NS = f"{{{SITEMAP_NS}}}"
FIELDS = {
    "urlset": ("url", ("loc", "lastmod", "changefreq", "priority")),
    "sitemapindex": ("sitemap", ("loc", "lastmod")),
}
_CHECKS: dict[str, Callable[[str], str | None]] = {
    "loc": values.loc_problem,
    "lastmod": values.lastmod_problem,
    "changefreq": values.changefreq_problem,
    "priority": values.priority_problem,
}
# The root element's name, found in the first bytes to pick the schema.
_ROOT = re.compile(rb"<(?:[\w.-]+:)?(urlset|sitemapindex)[\s>/]")
# The encoding the XML declaration names (after a UTF-8 byte order mark, if any).
_ENCODING = re.compile(rb"(?:\xef\xbb\xbf)?\s*<\?xml[^>]*?\bencoding\s*=\s*[\"']([^\"']*)[\"']")
_PEEK_BYTES = 65_536
_CHUNK = 1 << 20


@dataclass(frozen=True)
class Entry:
    number: int
    loc: str
    lastmod: str | None
    # The file's root: "urlset" (a page URL) or "sitemapindex" (a page file).
    kind: str = "urlset"


@dataclass
class Scan:
    kind: str | None = None  # "urlset" or "sitemapindex" once the root is read
    entries: int = 0
    size: int = 0
    sha256: str = ""
    # (rule, message, where) of the file's first problem.
    problem: tuple[str, str, str] | None = None


class HashingReader:
    """``stream``, counting and hashing the bytes read through it."""

    def __init__(self, stream: Readable, head: bytes = b"") -> None:
        self.stream = stream
        self.head = head
        self.size = 0
        self.hash = hashlib.sha256()

    def read(self, size: int = -1) -> bytes:
        if self.head:
            data, self.head = self.head, b""
        else:
            data = self.stream.read(size if size and size > 0 else _CHUNK)
        self.size += len(data)
        self.hash.update(data)
        return data

    def drain(self) -> None:
        while self.read(_CHUNK):
            pass


class _Structure:
    """The schemas' structure rules, fed the parser's events."""

    def __init__(self, scan: Scan, on_entry: Callable[[Entry], None]) -> None:
        self.scan = scan
        self.on_entry = on_entry
        self.depth = 0
        self.root: Any = None
        self._reset()

    def _reset(self) -> None:
        self.position = -1  # index in FIELDS of the last field seen
        self.foreign = False
        self.field: str | None = None
        self.loc: str | None = None
        self.lastmod: str | None = None

    def fail(self, rule: str, message: str) -> None:
        if self.scan.problem is None:
            where = f"entry {self.scan.entries + 1}" if self.depth > 1 else ""
            self.scan.problem = (rule, message, where)

    def start(self, element: Any) -> None:
        self.depth += 1
        tag = str(element.tag)
        if self.depth == 1:
            self.root = element
            name = tag.removeprefix(_NS)
            if name in FIELDS and tag.startswith(_NS):
                self.scan.kind = name
            else:
                self.fail(
                    "schema", f"root element {tag!r}, not <urlset> or <sitemapindex> of {_NS}"
                )
        elif self.scan.kind is None:
            return
        elif self.depth == 2:
            self._start_entry(tag)
        elif self.depth == 3:
            self._start_field(tag)
        elif self.depth == 4 and self.field is not None:
            self.fail("schema", f"<{self.field}> holds an element")

    def _start_entry(self, tag: str) -> None:
        assert self.scan.kind is not None
        entry = FIELDS[self.scan.kind][0]
        if tag == _NS + entry:
            self._reset()
        elif tag.startswith(_NS) or self.scan.entries:
            self.fail("schema", f"unexpected {_short(tag)} in <{self.scan.kind}>")

    def _start_field(self, tag: str) -> None:
        assert self.scan.kind is not None
        entry, names = FIELDS[self.scan.kind]
        if not tag.startswith(_NS):
            if self.position < 0:
                self.fail("schema", f"<{entry}> must start with <loc>, not {_short(tag)}")
            self.foreign = True
            return
        name = tag.removeprefix(_NS)
        if self.position < 0 and name != "loc":
            self.fail("schema", f"<{entry}> must start with <loc>, not <{name}>")
            return
        if name not in names or names.index(name) <= self.position or self.foreign:
            self.fail("schema", f"unexpected <{name}> in <{entry}>")
            return
        self.position = names.index(name)
        self.field = name

    def end(self, element: Any) -> None:
        if self.scan.kind is not None and self.depth == 3 and self.field is not None:
            self._end_field(self.field, values.collapse(element.text))
        elif self.scan.kind is not None and self.depth == 2 and self.field is None:
            self._end_entry(element)
        elif self.depth == 1 and self.scan.kind is not None and not self.scan.entries:
            self.fail("schema", f"<{self.scan.kind}> has no <{FIELDS[self.scan.kind][0]}>")
        self.depth -= 1

    def _end_field(self, name: str, text: str) -> None:
        problem = _CHECKS[name](text)
        if problem is not None:
            self.fail("schema", problem)
        elif name == "loc":
            self.loc = text
        elif name == "lastmod":
            self.lastmod = text
        self.field = None

    def _end_entry(self, element: Any) -> None:
        assert self.scan.kind is not None
        entry = FIELDS[self.scan.kind][0]
        if element.tag != _NS + entry:
            return
        self.scan.entries += 1
        if self.loc is None and self.position < 0:
            self.fail("schema", f"<{entry}> has no <loc>")
        if self.loc is not None:
            self.on_entry(Entry(self.scan.entries, self.loc, self.lastmod, self.scan.kind))
        self._reset()
        self.root.clear()  # keep memory flat: the entry is read


def scan(
    stream: Readable, on_entry: Callable[[Entry], None], schemas: Schemas | None = None
) -> Scan:
    """Read ``stream`` to its end, calling ``on_entry`` per entry with a ``<loc>``."""
    result = Scan()
    head = stream.read(_PEEK_BYTES)
    reader = HashingReader(stream, head)
    structure = _Structure(result, on_entry)
    not_utf8 = _encoding_problem(head)
    match = _ROOT.search(head)
    if not_utf8 is not None:
        structure.fail("xml", not_utf8)
    else:
        kind = match.group(1).decode() if match is not None else None
        check = SchemaCheck(schemas.for_root(kind)) if schemas is not None and kind else None
        _parse(reader, structure, check)
    reader.drain()
    result.size, result.sha256 = reader.size, reader.hash.hexdigest()
    return result


def _parse(reader: HashingReader, structure: _Structure, check: SchemaCheck | None) -> None:
    parser: ET.XMLPullParser[ET.Element] = ET.XMLPullParser(events=("start", "end"))
    try:
        while chunk := reader.read(_CHUNK):
            parser.feed(chunk)
            _events(parser, structure)
            if check is not None:
                check.feed(chunk)
        if reader.size > MAX_BYTES_PER_FILE:
            return  # read up to the protocol's cap only: the file's end is not reached
        parser.close()
        _events(parser, structure)
    except (ET.ParseError, LookupError, ValueError) as exc:  # an encoding expat cannot read
        structure.fail("xml", f"not well-formed XML: {exc}")
    if check is not None:
        check.feed(None)
        if check.problem is not None:
            structure.fail(*check.problem)


def _encoding_problem(head: bytes) -> str | None:
    """What says the file is not UTF-8, as the protocol wants: a declaration, or zero bytes."""
    if head.startswith((b"\xff\xfe", b"\xfe\xff")) or b"\x00" in head[:4]:
        return "not UTF-8 (UTF-16 or UTF-32): sitemaps must be UTF-8"
    match = _ENCODING.match(head)
    if match is not None and match.group(1).lower() != b"utf-8":
        name = match.group(1).decode("ascii", "replace")[:40]
        return f"declares the encoding {name!r}: sitemaps must be UTF-8"
    return None


def _events(parser: ET.XMLPullParser[ET.Element], structure: _Structure) -> None:
    # Only "start" and "end" were asked for: every event is (event, element).
    for event, element in cast("Iterator[tuple[str, ET.Element]]", parser.read_events()):
        if event == "start":
            structure.start(element)
        else:
            structure.end(element)


def _short(tag: str) -> str:
    namespace, _, name = tag.rpartition("}")
    if namespace and namespace[1:] != SITEMAP_NS:
        return f"<{name}> of {namespace[1:]}"
    return f"<{name}>"
