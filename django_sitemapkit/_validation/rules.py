"""``sitemapkit_validate``'s rules (docs/commands.md's table) over a set, and its report: at most
:data:`MAX_PER_RULE` findings per rule and file, then one line counting the rest (a broken file of
50,000 entries still gives a readable report)."""

from __future__ import annotations

import datetime
import gzip
import hashlib
import json
import zlib
from array import array
from collections import Counter
from collections.abc import Callable, Sequence
from contextlib import closing, suppress
from dataclasses import asdict, dataclass, field
from typing import TypeVar

from django_sitemapkit._protocol.writer import MAX_BYTES_PER_FILE, MAX_ENTRIES_PER_FILE
from django_sitemapkit._validation import sources, xmlfile

CLOCK_SKEW = datetime.timedelta(minutes=15)  # lastmods this far ahead are "now": clocks disagree
_NOT_GZIP = (gzip.BadGzipFile, EOFError, zlib.error)
MAX_PER_RULE = 10
MAX_TRACKED = 1_000_000  # URLs of a set remembered for the duplicate rule: twenty full files
_FIRST_SLOTS = 1 << 16
_T = TypeVar("_T")


@dataclass(frozen=True)
class Finding:
    file: str  # a file name for a folder or storage, a URL for a live site
    rule: str
    message: str
    where: str = ""

    def line(self) -> str:
        where = f" ({self.where})" if self.where else ""
        return f"{self.file}: [{self.rule}] {self.message}{where}"


@dataclass
class Report:
    target: str
    findings: list[Finding] = field(default_factory=list)
    files: int = 0
    urls: int = 0
    _counts: Counter[tuple[str, str]] = field(default_factory=Counter)
    # Findings past MAX_PER_RULE, per (file, rule): reported as one line each at the end.
    _extra: Counter[tuple[str, str]] = field(default_factory=Counter)

    def add(self, file: str, rule: str, message: str, where: str = "") -> None:
        self._counts[file, rule] += 1
        if self._counts[file, rule] > MAX_PER_RULE:
            self._extra[file, rule] += 1
        else:
            self.findings.append(Finding(file, rule, message, where))

    def finish(self) -> Report:
        for (file, rule), count in self._extra.items():
            self.findings.append(Finding(file, rule, f"... and {count:,} more like these"))
        self._extra.clear()
        return self

    @property
    def ok(self) -> bool:
        return not self.findings


def as_text(reports: Sequence[Report]) -> str:
    lines: list[str] = []
    for report in reports:
        lines += [finding.line() for finding in report.findings]
        verdict = "valid" if report.ok else f"{len(report.findings):,} problem(s)"
        lines.append(
            f"{report.target}: {report.files:,} file(s), {report.urls:,} URL(s) checked: {verdict}."
        )
    return "\n".join(lines) + "\n"


def as_json(reports: Sequence[Report]) -> str:
    sets = [
        {
            "target": report.target,
            "ok": report.ok,
            "files": report.files,
            "urls": report.urls,
            "findings": [asdict(finding) for finding in report.findings],
        }
        for report in reports
    ]
    return json.dumps({"ok": all(r.ok for r in reports), "sets": sets}, indent=2) + "\n"


class SeenUrls:
    """Which file first listed each URL of a set, in bounded memory: an 8-byte fingerprint and
    file number per URL in an open-addressing table of two arrays (20 to 40 bytes a URL; a dict
    takes 135), up to ``limit`` URLs; past that, checked against those and its own file's."""

    def __init__(self, limit: int = MAX_TRACKED) -> None:
        self.limit = limit
        self.count = 0
        self._keys, self._files = array("Q"), array("H")  # file numbers: at most 50,001
        self._resize(_FIRST_SLOTS)
        self._file = -1
        self._overflow: set[int] = set()  # the current file's URLs once the table is full

    def first(self, url: str, file: int) -> int | None:
        """The number of the file that listed ``url`` before, else None (and it is remembered)."""
        # Never 0: the mark of an empty slot.
        key = int.from_bytes(hashlib.blake2b(url.encode(), digest_size=8).digest()) or 1
        slot = self._slot(key)
        if self._keys[slot]:
            return self._files[slot]
        if self.count < self.limit:
            self._keys[slot], self._files[slot] = key, file
            self.count += 1
            if 2 * self.count > len(self._keys):
                self._resize(2 * len(self._keys))
            return None
        if file != self._file:
            self._file, self._overflow = file, set()
        if key in self._overflow:
            return file
        if len(self._overflow) < MAX_ENTRIES_PER_FILE:
            self._overflow.add(key)
        return None

    def _slot(self, key: int) -> int:
        """The slot holding ``key``, or the empty one where it would go."""
        mask = len(self._keys) - 1
        slot = key & mask
        while self._keys[slot] and self._keys[slot] != key:
            slot = (slot + 1) & mask
        return slot

    def _resize(self, slots: int) -> None:
        old = self._keys, self._files
        self._keys, self._files = array("Q", [0]) * slots, array("H", [0]) * slots
        for key, file in zip(*old, strict=True):
            if key:
                slot = self._slot(key)
                self._keys[slot], self._files[slot] = key, file


class SetCheck:
    def __init__(self, source: sources.Source, schemas: xmlfile.Schemas | None) -> None:
        self.source = source
        self.index = source.name(source.index_url)
        self.report = Report(source.label)
        self.schemas = schemas
        self.now = datetime.datetime.now(tz=datetime.UTC) + CLOCK_SKEW
        self.seen = SeenUrls()
        self.files: list[str] = []  # the names of the files named, by number (the index: 0)
        self.folder = ""  # the folder of the file being read: its URLs must be in it
        self.pages: list[xmlfile.Entry] = []  # the files the index names
        self.origin = sources.origin(source.index_url)

    def run(self) -> Report:
        with suppress(sources.TimeUp):  # reported where it struck; nothing more is read
            if self.check_set():
                self.check_robots()
        return self.report.finish()

    def check_set(self) -> bool:
        """Check the index and the files it names; False when there is no index to read."""
        url = self.source.index_url
        # The index URL may name a single sitemap: its entries are then page URLs.
        result = self.check_file(url, f"no index at {url}")
        names: set[str] = set()
        for entry in self.pages if result is not None and result.kind == "sitemapindex" else []:
            where = f"entry {entry.number}"
            if entry.loc in names:
                message = f"the index lists {entry.loc} twice"
                self.report.add(self.index, "duplicate", message, where)
            elif self.in_scope(self.index, entry.loc, sources.directory(url), where):
                self.check_file(entry.loc, f"the index names {entry.loc}", where)
            names.add(entry.loc)
        return result is not None

    def in_scope(self, file: str, loc: str, folder: str, where: str) -> bool:
        if sources.origin(loc) != self.origin:
            self.report.add(file, "scope", f"{loc} is not on {'://'.join(self.origin)}", where)
        elif not loc.startswith(folder):
            self.report.add(file, "scope", f"{loc} is outside {folder}", where)
        else:
            return True
        return False

    def check_file(self, url: str, missing: str, where: str = "") -> xmlfile.Scan | None:
        """Scan the file at ``url`` (the index first); None: missing or unread. ``missing`` and
        ``where``: what the index's finding says when the file does not exist."""
        file = self.source.name(url)
        self.files.append(file)
        self.folder = sources.directory(url)
        result = self.read(file, url, self.scan, missing, where)
        if result is None:
            return None
        self.report.files += 1
        if result.problem is not None:
            self.report.add(file, *result.problem)
        if len(self.files) > 1 and result.kind == "sitemapindex":
            self.report.add(file, "schema", "an index names another index (indexes do not nest)")
        entries = "files" if result.kind == "sitemapindex" else "URLs"
        if result.entries > MAX_ENTRIES_PER_FILE:
            message = f"{result.entries:,} {entries}, more than {MAX_ENTRIES_PER_FILE:,}"
            self.report.add(file, "limit", message)
        if result.size > MAX_BYTES_PER_FILE:
            message = f"more than {MAX_BYTES_PER_FILE:,} bytes uncompressed (read no further)"
            self.report.add(file, "limit", message)
        self.check_twin(url, file, result)
        return result

    def read(
        self,
        file: str,
        url: str,
        read: Callable[[sources.Readable], _T],
        missing: str | None = None,
        where: str = "",
    ) -> _T | None:
        """What ``read`` makes of the file at ``url``; None when missing or unreadable (reported)."""
        try:
            stream = self.source.open(url)
            if stream is None:
                if missing is not None:
                    message = f"{missing}, which does not exist"
                    self.report.add(self.index, "missing", message, where)
                return None
            with closing(stream):
                return read(stream)
        except _NOT_GZIP as exc:
            self.report.add(file, "gzip", f"not a gzip file: {exc}")
        except sources.OffSite as exc:
            self.report.add(file, "scope", str(exc))
        except (sources.FetchError, OSError) as exc:
            self.report.add(file, "fetch", f"cannot read {url}: {exc}")
            if isinstance(exc, sources.TimeUp):
                raise
        return None

    def scan(self, stream: sources.Readable) -> xmlfile.Scan:
        return xmlfile.scan(sources.content(stream), self.on_entry, self.schemas)

    def on_entry(self, entry: xmlfile.Entry) -> None:
        """The rules of each entry of the file being read; the index's files are kept in ``pages``."""
        number, where = len(self.files) - 1, f"entry {entry.number}"
        file = self.files[number]
        value = None if entry.lastmod is None else xmlfile.parse_lastmod(entry.lastmod)
        if value is not None and value > self.now:
            self.report.add(file, "lastmod", f"lastmod {entry.lastmod} is in the future", where)
        if number == 0 and entry.kind == "sitemapindex":
            if len(self.pages) < MAX_ENTRIES_PER_FILE:  # the protocol's most files in an index
                self.pages.append(entry)
            return
        self.report.urls += 1
        # URLs past the protocol's limit are reported as such, not remembered.
        if (
            not self.in_scope(file, entry.loc, self.folder, where)
            or entry.number > MAX_ENTRIES_PER_FILE
        ):
            return
        first = self.seen.first(entry.loc, number)
        if first is not None:
            also = "earlier in this file" if first == number else f"also in {self.files[first]}"
            self.report.add(file, "duplicate", f"{entry.loc} is listed twice ({also})", where)

    def check_twin(self, url: str, file: str, result: xmlfile.Scan) -> None:
        """The ``.gz`` beside a file, when there is one, must decompress to its bytes."""
        if url.endswith(".gz"):
            return
        inflated = lambda twin: xmlfile.HashingReader(sources.gunzipped(twin)).drain()  # noqa: E731
        twin = self.read(file + ".gz", url + ".gz", inflated)
        if twin is None:
            return
        if twin.size > MAX_BYTES_PER_FILE:
            message = f"inflates to more than {MAX_BYTES_PER_FILE:,} bytes (read no further)"
            self.report.add(file + ".gz", "limit", message)
        elif twin.hash.hexdigest() != result.sha256:
            self.report.add(file + ".gz", "gzip", f"does not decompress to the bytes of {file}")

    def check_robots(self) -> None:
        index_url = self.source.index_url
        try:
            found = self.source.robots()
        except sources.FetchError as exc:
            self.report.add(self.source.name(index_url), "fetch", f"robots.txt: {exc}")
            return
        if found is None:
            return
        where, content = found
        if content is None:
            message = f"does not exist, so crawlers are not told about {index_url}"
            self.report.add(where, "robots", message)
        elif index_url not in sources.sitemap_lines(content):
            self.report.add(where, "robots", f"has no 'Sitemap: {index_url}' line")
