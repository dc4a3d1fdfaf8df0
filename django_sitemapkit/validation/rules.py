"""The checks of ``sitemapkit_validate``, from a source's index to every file it names, and its report.

Per file: well-formed and valid (``xmlfile.py``), within the protocol's
limits, every ``<loc>`` on the index's scheme and host and under the file's
own directory, no URL listed twice (in any file of the set), no lastmod in
the future, and a ``.gz`` twin, where there is one, holding the same bytes.
Per set: every file the index names exists, and robots.txt (when one is
known) names the index. An index is followed for its first 50,000 files
only; a live site stops at the run's deadline. Each rule reports at most
:data:`MAX_PER_RULE` findings per file, then one line counting the rest.
"""

from __future__ import annotations

import datetime
import gzip
import hashlib
import json
import zlib
from array import array
from collections import Counter
from collections.abc import Callable, Sequence
from contextlib import closing
from dataclasses import asdict, dataclass, field

from django_sitemapkit.protocol.writer import MAX_BYTES_PER_FILE, MAX_ENTRIES_PER_FILE
from django_sitemapkit.validation.sources import (
    FetchError,
    OffSite,
    Source,
    TimeUp,
    content,
    directory,
    gunzipped,
    origin,
    sitemap_lines,
)
from django_sitemapkit.validation.xmlfile import (
    Entry,
    HashingReader,
    Scan,
    Schemas,
    parse_lastmod,
    scan,
)

# A lastmod this far past the validator's clock is still "now" (clocks disagree).
CLOCK_SKEW = datetime.timedelta(minutes=15)
_NOT_GZIP = (gzip.BadGzipFile, EOFError, zlib.error)
MAX_PER_RULE = 10
# The URLs of a set remembered for the duplicate rule across files: twenty full files.
MAX_TRACKED = 1_000_000
_FIRST_SLOTS = 1 << 16


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
    """Every finding of one set, and what was checked."""

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
    """Which file first listed each URL of a set, in bounded memory whatever the set's size.

    A URL is remembered by an 8-byte fingerprint with the number of its file,
    in an open-addressing table of two arrays (20 to 40 bytes a URL, where a
    dict of URLs takes 135), up to ``limit`` URLs; past that, every URL is
    still checked against those, and against the URLs of its own file, which
    the protocol caps at 50,000.
    """

    def __init__(self, limit: int = MAX_TRACKED) -> None:
        self.limit = limit
        self.count = 0
        self._keys, self._files = array("Q"), array("H")  # file numbers: at most 50,001
        self._resize(_FIRST_SLOTS)
        # The URLs of the current file once the table is full.
        self._file = -1
        self._overflow: set[int] = set()

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
    """One set of files (an index and its pages) checked into ``report``."""

    def __init__(self, source: Source, report: Report, schemas: Schemas | None) -> None:
        self.source = source
        self.report = report
        self.schemas = schemas
        self.now = datetime.datetime.now(tz=datetime.UTC) + CLOCK_SKEW
        # The page URLs seen, each with the number of the file that listed it first.
        self.seen = SeenUrls()
        self.files: list[str] = []  # the names of the files read, by number
        self.origin = origin(source.index_url)

    def run(self) -> None:
        try:
            if self.check_set():
                self.check_robots()
        except TimeUp:
            pass  # reported where it struck; nothing more is read

    def check_set(self) -> bool:
        """Check the index and the files it names; False when there is no index to read."""
        index_url = self.source.index_url
        pages: list[Entry] = []
        # The index URL may name a single sitemap: its entries are then page URLs (of file 0).
        as_page = self._page_entry(self.source.name(index_url), 0, directory(index_url))

        def collect(entry: Entry) -> None:
            if entry.kind == "urlset":
                as_page(entry)
            elif len(pages) < MAX_ENTRIES_PER_FILE:  # the protocol's most files in an index
                pages.append(entry)

        result = self.check_file(index_url, collect, "index")
        if result is not None and result.kind == "sitemapindex":
            names: set[str] = set()
            for entry in pages:
                self.check_index_entry(index_url, entry, names)
        return result is not None

    def check_index_entry(self, index_url: str, entry: Entry, names: set[str]) -> None:
        file = self.source.name(index_url)
        where = f"entry {entry.number}"
        if entry.loc in names:
            self.report.add(file, "duplicate", f"the index lists {entry.loc} twice", where)
            return
        names.add(entry.loc)
        if not self.in_scope(file, entry.loc, directory(index_url), where):
            return
        self.check_file(entry.loc, None, "page", named_by=(file, where))

    def in_scope(self, file: str, loc: str, folder: str, where: str) -> bool:
        if origin(loc) != self.origin:
            self.report.add(file, "scope", f"{loc} is not on {'://'.join(self.origin)}", where)
            return False
        if not loc.startswith(folder):
            self.report.add(file, "scope", f"{loc} is outside {folder}", where)
            return False
        return True

    def check_file(
        self,
        url: str,
        collect: Callable[[Entry], None] | None,
        role: str,
        named_by: tuple[str, str] | None = None,
    ) -> Scan | None:
        """Scan the file at ``url``; None when it is missing or unreadable (reported)."""
        file = self.source.name(url)
        try:
            stream = self.source.open(url)
        except FetchError as exc:
            self.unreadable(file, url, exc)
            return None
        if stream is None:
            where_file, where = named_by or (file, "")
            what = "the index names" if named_by else f"no {role} at"
            self.report.add(where_file, "missing", f"{what} {url}, which does not exist", where)
            return None
        self.files.append(file)
        on_entry = collect or self._page_entry(file, len(self.files) - 1, directory(url))
        try:
            with closing(stream):
                result = scan(
                    content(stream), lambda entry: self._entry(file, entry, on_entry), self.schemas
                )
        except _NOT_GZIP as exc:
            self.report.add(file, "gzip", f"not a gzip file: {exc}")
            return None
        except (FetchError, OSError) as exc:
            self.unreadable(file, url, exc)
            return None
        self.report.files += 1
        self.check_result(file, result, role)
        self.check_twin(url, file, result)
        return result

    def unreadable(self, file: str, url: str, exc: Exception) -> None:
        """Report why ``url`` cannot be read; past the deadline, stop the set (TimeUp)."""
        if isinstance(exc, OffSite):
            self.report.add(file, "scope", str(exc))
            return
        self.report.add(file, "fetch", f"cannot read {url}: {exc}")
        if isinstance(exc, TimeUp):
            raise exc

    def check_result(self, file: str, result: Scan, role: str) -> None:
        if result.problem is not None:
            rule, message, where = result.problem
            self.report.add(file, rule, message, where)
        if role == "page" and result.kind == "sitemapindex":
            self.report.add(file, "schema", "an index names another index (indexes do not nest)")
        entries = "files" if result.kind == "sitemapindex" else "URLs"
        if result.entries > MAX_ENTRIES_PER_FILE:
            message = f"{result.entries:,} {entries}, more than {MAX_ENTRIES_PER_FILE:,}"
            self.report.add(file, "limit", message)
        if result.size > MAX_BYTES_PER_FILE:
            message = f"more than {MAX_BYTES_PER_FILE:,} bytes uncompressed (read no further)"
            self.report.add(file, "limit", message)

    def _entry(self, file: str, entry: Entry, then: Callable[[Entry], None]) -> None:
        if entry.lastmod is not None:
            value = parse_lastmod(entry.lastmod)
            if value is not None and value > self.now:
                message = f"lastmod {entry.lastmod} is in the future"
                self.report.add(file, "lastmod", message, f"entry {entry.number}")
        then(entry)

    def _page_entry(self, file: str, number: int, folder: str) -> Callable[[Entry], None]:

        def page_entry(entry: Entry) -> None:
            self.report.urls += 1
            where = f"entry {entry.number}"
            if not self.in_scope(file, entry.loc, folder, where):
                return
            if entry.number > MAX_ENTRIES_PER_FILE:
                return  # reported as over the limit: its URLs past it are not remembered
            first = self.seen.first(entry.loc, number)
            if first is not None:
                also = "earlier in this file" if first == number else f"also in {self.files[first]}"
                self.report.add(file, "duplicate", f"{entry.loc} is listed twice ({also})", where)

        return page_entry

    def check_twin(self, url: str, file: str, result: Scan) -> None:
        """The ``.gz`` beside a file, when there is one, must decompress to its bytes."""
        if url.endswith(".gz"):
            return
        try:
            twin = self.source.open(url + ".gz")
            if twin is None:
                return
            with closing(twin):
                reader = HashingReader(gunzipped(twin))
                reader.drain()
        except _NOT_GZIP as exc:
            self.report.add(file + ".gz", "gzip", f"not a gzip file: {exc}")
            return
        except (FetchError, OSError) as exc:
            self.unreadable(file + ".gz", url + ".gz", exc)
            return
        if reader.size > MAX_BYTES_PER_FILE:
            message = f"inflates to more than {MAX_BYTES_PER_FILE:,} bytes (read no further)"
            self.report.add(file + ".gz", "limit", message)
        elif reader.hash.hexdigest() != result.sha256:
            self.report.add(file + ".gz", "gzip", f"does not decompress to the bytes of {file}")

    def check_robots(self) -> None:
        try:
            found = self.source.robots()
        except FetchError as exc:
            self.report.add(self.source.name(self.source.index_url), "fetch", f"robots.txt: {exc}")
            return
        if found is None:
            return
        where, content = found
        if content is None:
            message = f"does not exist, so crawlers are not told about {self.source.index_url}"
            self.report.add(where, "robots", message)
        elif self.source.index_url not in sitemap_lines(content):
            message = f"has no 'Sitemap: {self.source.index_url}' line"
            self.report.add(where, "robots", message)
