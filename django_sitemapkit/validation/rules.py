"""The checks of ``sitemapkit_validate``: from a source's index to every file it names.

Per file: well-formed and valid (``xmlfile.py``), within the protocol's
limits, every ``<loc>`` on the index's scheme and host and under the file's
own directory, no URL listed twice (in any file of the set: ``seen.py``),
no lastmod in the future, and a ``.gz`` twin, where there is one, holding
the same bytes. Per set: every file the index names exists, and robots.txt
(when one is known) names the index. Every file is read up to the
protocol's limits (``bounded.py``), gunzipped when it is gzip; an index is
followed for its first 50,000 files only; a live site stops at the run's
deadline (``live.py``).
"""

from __future__ import annotations

import datetime
import gzip
import zlib
from collections.abc import Callable
from contextlib import closing

from django_sitemapkit.protocol.writer import MAX_BYTES_PER_FILE, MAX_ENTRIES_PER_FILE
from django_sitemapkit.validation.bounded import content, gunzipped
from django_sitemapkit.validation.findings import Report
from django_sitemapkit.validation.schemas import Schemas
from django_sitemapkit.validation.seen import SeenUrls
from django_sitemapkit.validation.sources import (
    FetchError,
    OffSite,
    Source,
    TimeUp,
    directory,
    origin,
    sitemap_lines,
)
from django_sitemapkit.validation.values import parse_lastmod
from django_sitemapkit.validation.xmlfile import Entry, HashingReader, Scan, scan

# A lastmod this far past the validator's clock is still "now" (clocks disagree).
CLOCK_SKEW = datetime.timedelta(minutes=15)
# What reading a gzip file that is not one raises.
_NOT_GZIP = (gzip.BadGzipFile, EOFError, zlib.error)


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


def validate_set(source: Source, report: Report, schemas: Schemas | None) -> None:
    """Check the set ``source`` holds into ``report``."""
    SetCheck(source, report, schemas).run()
