"""The one XML writer behind every sitemap and index, served or built.

Entries arrive as text, formatted with plain string operations (no template
engine, no DOM) by ``engine.entries.EntryFactory`` and the fused loop: that is what
keeps millions of URLs cheap. Each writer enforces the
protocol's per-file limits itself -- 50,000 entries and 52,428,800 bytes
*uncompressed* -- and tells the caller when the next entry does not fit, so
no code path can produce an oversized file.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from decimal import Decimal
from xml.sax.saxutils import unescape

SITEMAP_NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
MAX_ENTRIES_PER_FILE = 50_000
MAX_BYTES_PER_FILE = 52_428_800

CHANGEFREQS = frozenset({"always", "hourly", "daily", "weekly", "monthly", "yearly", "never"})

XML_DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>\n'


def stylesheet_instruction(href: str | None) -> str:
    """The ``<?xml-stylesheet?>`` line naming the XSL at ``href``; "" for None (no stylesheet)."""
    if href is None:
        return ""
    return f'<?xml-stylesheet type="text/xsl" href="{escape(href)}"?>\n'


_ESCAPES = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;"})


def escape(value: str) -> str:
    """Entity-escape the five characters the protocol names."""
    return value.translate(_ESCAPES)


# Most locations need no escaping; a search is cheaper than a translate.
needs_escape = re.compile(r"[&<>\"']").search


class IndexFull(Exception):
    """More sitemap files than one index may name."""


def priority_value(value: object) -> float:
    """``value`` as a sitemaps.org priority, taken as contrib takes it: a number or its text.

    ``0.6``, ``Decimal("0.6")`` and ``"0.6"`` are 0.6. Raises ValueError saying
    what is wrong: not a number, or not from 0.0 to 1.0.
    """
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
    """``value`` as sitemaps.org writes a changefreq: ``"Daily"`` and ``" weekly"`` are taken.

    Raises ValueError saying what is wrong.
    """
    if isinstance(value, str) and (text := value.strip().lower()) in CHANGEFREQS:
        return text
    raise ValueError(f"{value!r} is not one of {', '.join(sorted(CHANGEFREQS))}")


def accepts(parse: Callable[[object], object], value: object) -> bool:
    """Whether ``parse`` (``priority_value``, ``changefreq_value``) takes ``value``."""
    try:
        parse(value)
    except ValueError:
        return False
    return True


def format_priority(value: float) -> str:
    """``0.5`` -> ``"0.5"``, ``1`` -> ``"1.0"``, ``0.25`` -> ``"0.25"`` (at most 2 places)."""
    text = f"{value:.2f}".rstrip("0")
    return text + "0" if text.endswith(".") else text


# Entries per segment. A file is written as pieces -- its head, segments of
# this many entries, its tail -- and its .gz compresses each piece on its own
# (see deflate.py), so an incremental build can replace the few segments whose
# rows changed and reuse every other piece's bytes, compressed ones included.
# Smaller segments re-render less per edit but compress worse, each starting
# a fresh deflate block (docs/building.md gives the trade's figures).
SEGMENT_ENTRIES = 1000


class _FileWriter:
    root_open: str
    root_close: str

    def __init__(
        self,
        *,
        max_entries: int,
        max_bytes: int,
        segment_entries: int = SEGMENT_ENTRIES,
        stylesheet: str | None = None,
    ) -> None:
        self.max_entries = max_entries
        self.max_bytes = max_bytes
        self.segment_entries = segment_entries
        # ``stylesheet``: the href of the XSL a browser shows the file with.
        self.head = (XML_DECLARATION + stylesheet_instruction(stylesheet) + self.root_open).encode()
        self.tail = self.root_close.encode()
        self._segments: list[bytes] = []
        # Entries are kept as text until their segment is full, then encoded
        # in one call: one encode per segment instead of per entry.
        self._batch: list[str] = []
        # The key of each segment's last row (every segment but the last), and
        # the rows skipped within each segment's key range (see skip()).
        self.segment_cuts: list[object] = []
        self.segment_skips: list[int] = [0]
        # Sizes are counted in UTF-8 bytes as entries arrive.
        self.size = len(self.head) + len(self.tail)
        self.count = 0
        self._pieces: list[bytes] | None = None

    def add_xml(self, xml: str, key: object = None, entries: int = 1) -> bool:
        """Append serialised entries (one, or ``entries`` of one row); False when they do not fit.

        Nothing is written then. ``key`` identifies the entries' row; it is
        remembered where a segment ends.
        """
        if self.count + entries > self.max_entries:
            return False
        size = len(xml) if xml.isascii() else len(xml.encode())
        if self.size + size > self.max_bytes:
            return False
        batch = self._batch
        batch.append(xml)
        if len(batch) >= self.segment_entries:
            self._end_segment("".join(batch), key)
            batch.clear()
        self.size += size
        self.count += entries
        return True

    def add_entries(self, xmls: Sequence[str], keys: Sequence[object]) -> int:
        """``add_xml()`` of each entry (one a row) in turn; returns how many fit.

        The same file as adding them one by one, with one join per segment.
        """
        joined = "".join(xmls)
        size = len(joined) if joined.isascii() else len(joined.encode())
        count = len(xmls)
        if self.count + count > self.max_entries or self.size + size > self.max_bytes:
            # Near a limit: stop exactly where add_xml() would.
            for taken, (xml, key) in enumerate(zip(xmls, keys, strict=True)):
                if not self.add_xml(xml, key):
                    return taken
            return count
        batch = self._batch
        if not batch and count == self.segment_entries:
            self._end_segment(joined, keys[-1])
        else:
            start = 0
            while start < count:
                room = self.segment_entries - len(batch)
                batch.extend(xmls[start : start + room])
                start += room
                if len(batch) == self.segment_entries:
                    self._end_segment("".join(batch), keys[start - 1])
                    batch.clear()
        self.size += size
        self.count += count
        return count

    def _end_segment(self, text: str, key: object) -> None:
        self._segments.append(text.encode())
        self.segment_cuts.append(key)
        self.segment_skips.append(0)

    def skip(self) -> None:
        """Count one row that was read but not written (its own segment's key range)."""
        self.segment_skips[-1] += 1

    def pieces(self) -> list[bytes]:
        """The whole file as its pieces: head, segments, tail (no joined copy); ends the writer."""
        if self._pieces is not None:
            return self._pieces
        if self._batch:
            self._segments.append("".join(self._batch).encode())
            self._batch.clear()
        elif self.segment_cuts:
            # The last segment ended exactly full: its range runs to the end
            # of the file after all, with any rows skipped after it.
            self.segment_cuts.pop()
            skipped_after = self.segment_skips.pop()
            self.segment_skips[-1] += skipped_after
        self._pieces = [self.head, *self._segments, self.tail]
        return self._pieces


class UrlsetWriter(_FileWriter):
    """Writes one ``<urlset>`` file.

    ``namespaces`` maps prefixes to URIs of extension namespaces declared on
    the root element, for the extension elements of entries (``Sitemap.extra_xml``).
    """

    def __init__(
        self,
        *,
        max_entries: int = MAX_ENTRIES_PER_FILE,
        max_bytes: int = MAX_BYTES_PER_FILE,
        namespaces: Mapping[str, str] | None = None,
        segment_entries: int = SEGMENT_ENTRIES,
        stylesheet: str | None = None,
    ) -> None:
        declarations = "".join(
            f' xmlns:{prefix}="{escape(uri)}"' for prefix, uri in sorted((namespaces or {}).items())
        )
        self.root_open = f'<urlset xmlns="{SITEMAP_NS}"{declarations}>\n'
        self.root_close = "</urlset>\n"
        # The locations written so far: callers skip a URL the file lists already.
        self.locs: set[str] = set()
        super().__init__(
            max_entries=min(max_entries, MAX_ENTRIES_PER_FILE),
            max_bytes=max_bytes,
            segment_entries=segment_entries,
            stylesheet=stylesheet,
        )

    def written_locs(self) -> set[str]:
        """Every location written so far, read back from the file's own text.

        For a caller that did not keep ``locs`` while it knew its locations
        could not repeat, and now meets one that might.
        """
        text = b"".join(self._segments).decode() + "".join(self._batch)
        return {unescape(loc, _QUOTES) for loc in _LOC.findall(text)}


_LOC = re.compile(r"<loc>([^<]*)</loc>")
# What escape() writes beyond the three entities unescape() reads by default.
_QUOTES = {"&quot;": '"', "&apos;": "'"}


class IndexWriter(_FileWriter):
    """Writes one ``<sitemapindex>``; raises IndexFull rather than overflow."""

    root_open = f'<sitemapindex xmlns="{SITEMAP_NS}">\n'
    root_close = "</sitemapindex>\n"

    def __init__(
        self,
        *,
        max_entries: int = MAX_ENTRIES_PER_FILE,
        max_bytes: int = MAX_BYTES_PER_FILE,
        stylesheet: str | None = None,
    ) -> None:
        super().__init__(
            max_entries=min(max_entries, MAX_ENTRIES_PER_FILE),
            max_bytes=max_bytes,
            stylesheet=stylesheet,
        )

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
