"""The one XML writer behind every sitemap and index, served or built: entries are plain strings
(no template, no DOM), cheap by the million; each writer enforces the per-file limits and tells
the caller when the next entry does not fit, so no code path writes an oversized file."""

from __future__ import annotations

import io
import re
from collections.abc import Callable, Mapping
from decimal import Decimal
from typing import Any
from xml.sax.saxutils import unescape

SITEMAP_NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
MAX_ENTRIES_PER_FILE = 50_000
MAX_BYTES_PER_FILE = 52_428_800

CHANGEFREQS = frozenset({"always", "hourly", "daily", "weekly", "monthly", "yearly", "never"})
XML_DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>\n'


_ESCAPES = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;"})


def escape(value: str) -> str:
    return value.translate(_ESCAPES)


# Most locations need no escaping; a search is cheaper than a translate.
needs_escape = re.compile(r"[&<>\"']").search


def url_element(loc: str, lastmod_xml: str = "", details: str = "") -> str:
    """The one ``<url>`` element: ``loc`` (escaped here), then ``lastmod_xml`` and ``details``
    (changefreq, priority, alternates, extension elements), written already."""
    if needs_escape(loc):
        loc = escape(loc)
    return f"<url><loc>{loc}</loc>{lastmod_xml}{details}</url>\n"


class IndexFull(Exception):
    """More sitemap files than one index may name."""


def priority_value(value: object) -> float:
    """``value`` (``0.6``, ``Decimal("0.6")``, ``"0.6"``) as a priority, taken as contrib takes
    it; ValueError saying what is wrong: not a number, or not from 0.0 to 1.0."""
    if isinstance(value, bool) or not isinstance(value, str | int | float | Decimal):
        raise ValueError(f"{value!r} is not a number")
    try:
        number = float(value)
    except ValueError:
        raise ValueError(f"{value!r} is not a number") from None
    if not 0.0 <= number <= 1.0:  # NaN fails this too
        raise ValueError(f"{value!r} is not from 0.0 to 1.0")
    return number


def changefreq_value(value: object) -> str:
    """``value`` as sitemaps.org writes a changefreq (``" Daily"`` is taken), else ValueError."""
    if isinstance(value, str) and (text := value.strip().lower()) in CHANGEFREQS:
        return text
    raise ValueError(f"{value!r} is not one of {', '.join(sorted(CHANGEFREQS))}")


def accepts(parse: Callable[[object], object], value: object) -> bool:
    try:
        parse(value)
    except ValueError:
        return False
    return True


def format_priority(value: float) -> str:
    """``0.5`` -> ``"0.5"``, ``1`` -> ``"1.0"``, ``0.25`` -> ``"0.25"`` (at most 2 places)."""
    text = f"{value:.2f}".rstrip("0")
    return text + "0" if text.endswith(".") else text


_ENCODE_EVERY = 1000


class _FileWriter:
    """One file's entries under ``root_open``/``root_close``; ``stylesheet``: the
    ``<?xml-stylesheet?>`` line after the declaration (``Stylesheet.instruction()``), or ""."""

    root_open: str
    root_close: str

    def __init__(
        self,
        *,
        max_entries: int = MAX_ENTRIES_PER_FILE,
        max_bytes: int = MAX_BYTES_PER_FILE,
        stylesheet: str = "",
    ) -> None:
        self.max_entries = min(max_entries, MAX_ENTRIES_PER_FILE)
        self.max_bytes = max_bytes
        self.head = XML_DECLARATION + stylesheet + self.root_open
        # Encoded a thousand at a time into one buffer, whose bytes content() takes without a
        # copy: never the whole file twice, as text and bytes or as parts and their join.
        self._entries: list[str] = []
        self._buffer = io.BytesIO()
        self._buffer.write(self.head.encode())
        self._content: bytes | None = None
        # Sizes are counted in UTF-8 bytes as entries arrive.
        self.size = len(self.head) + len(self.root_close)
        self.count = 0

    def add_xml(self, xml: str, entries: int = 1) -> bool:
        """Append serialised entries (one, or ``entries`` of one item), or none and return False."""
        return self.add_entries([xml], len(xml) if xml.isascii() else len(xml.encode()), entries)

    def add_entries(self, xmls: list[str], size: int, entries: int | None = None) -> bool:
        """Append ``xmls``, ``size`` UTF-8 bytes in all, holding ``entries`` entries (default: one
        each), or none and return False."""
        count = self.count + (len(xmls) if entries is None else entries)
        if count > self.max_entries or self.size + size > self.max_bytes:
            return False
        self._entries.extend(xmls)
        self.size += size
        self.count = count
        if len(self._entries) >= _ENCODE_EVERY:
            self._encode()
        return True

    def _encode(self) -> None:
        if self._entries:
            self._buffer.write("".join(self._entries).encode())
            self._entries.clear()

    def content(self) -> bytes:
        """The whole file; ends the writer."""
        if self._content is None:
            self._encode()
            self._buffer.write(self.root_close.encode())
            self._content = self._buffer.getvalue()
            self._buffer = io.BytesIO()
        return self._content


class UrlsetWriter(_FileWriter):
    """Writes one ``<urlset>`` declaring the extension ``namespaces`` (prefix: URI)."""

    root_close = "</urlset>\n"

    def __init__(self, *, namespaces: Mapping[str, str] | None = None, **limits: Any) -> None:
        declarations = "".join(
            f' xmlns:{prefix}="{escape(uri)}"' for prefix, uri in sorted((namespaces or {}).items())
        )
        self.root_open = f'<urlset xmlns="{SITEMAP_NS}"{declarations}>\n'
        # The locations written so far: callers skip a URL the file lists already.
        self.locs: set[str] = set()
        super().__init__(**limits)

    def written_locs(self) -> set[str]:
        """Every location written so far, read back from the file's text: for a caller that
        kept no ``locs`` while its locations could not repeat, and now meets one that might."""
        text = self._buffer.getvalue().decode() + "".join(self._entries)
        return {unescape(loc, _QUOTES) for loc in _LOC.findall(text)}


_LOC = re.compile(r"<loc>([^<]*)</loc>")
# What escape() writes beyond the three entities unescape() reads by default.
_QUOTES = {"&quot;": '"', "&apos;": "'"}


class IndexWriter(_FileWriter):
    """Writes one ``<sitemapindex>``; raises IndexFull rather than overflow."""

    root_open = f'<sitemapindex xmlns="{SITEMAP_NS}">\n'
    root_close = "</sitemapindex>\n"

    def add(self, loc: str, lastmod: str | None = None) -> None:
        xml = f"<sitemap><loc>{escape(loc)}</loc>"
        if lastmod is not None:
            xml += f"<lastmod>{lastmod}</lastmod>"
        if not self.add_xml(xml + "</sitemap>\n"):
            raise IndexFull(
                f"The sitemap index would name more than {self.max_entries:,} files or pass "
                f"{self.max_bytes:,} bytes; raise the sections' limit or split the site "
                "into several indexes."
            )
