"""The checks of ``sitemapkit_validate``: from a source's index to every file it names.

Per file: well-formed and valid (``xmlfile.py``), within the protocol's
limits, every ``<loc>`` on the index's scheme and host and under the file's
own directory, no URL listed twice (in any file of the set), no lastmod
in the future, and a ``.gz`` twin, where there is one, holding the same
bytes. Per set: every file the index names exists, and robots.txt (when
one is known) names the index.
"""

from __future__ import annotations

import datetime
import gzip
import hashlib
import zlib
from collections.abc import Callable
from typing import IO
from urllib.parse import urlsplit

from django_sitemapkit.protocol.writer import MAX_BYTES_PER_FILE, MAX_ENTRIES_PER_FILE
from django_sitemapkit.validation.findings import Report
from django_sitemapkit.validation.schemas import Schemas
from django_sitemapkit.validation.sources import FetchError, Source, directory, sitemap_lines
from django_sitemapkit.validation.values import parse_lastmod
from django_sitemapkit.validation.xmlfile import Entry, HashingReader, Scan, scan

# A lastmod this far past the validator's clock is still "now" (clocks disagree).
CLOCK_SKEW = datetime.timedelta(minutes=15)


class SetCheck:
    """One set of files (an index and its pages) checked into ``report``."""

    def __init__(self, source: Source, report: Report, schemas: Schemas | None) -> None:
        self.source = source
        self.report = report
        self.schemas = schemas
        self.now = datetime.datetime.now(tz=datetime.UTC) + CLOCK_SKEW
        # 8-byte digests of every page URL seen -> the file that listed it first.
        self.seen: dict[bytes, str] = {}
        parts = urlsplit(source.index_url)
        self.origin = (parts.scheme, parts.netloc.lower())

    def run(self) -> None:
        index_url = self.source.index_url
        pages: list[Entry] = []
        # The index URL may name a single sitemap: its entries are then page URLs.
        as_page = self._page_entry(self.source.name(index_url), directory(index_url))

        def collect(entry: Entry) -> None:
            (pages.append if entry.kind == "sitemapindex" else as_page)(entry)

        result = self.check_file(index_url, collect, "index")
        if result is None:
            return
        if result.kind == "sitemapindex":
            names: set[str] = set()
            for entry in pages:
                self.check_index_entry(index_url, entry, names)
        self.check_robots()

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
        parts = urlsplit(loc)
        if (parts.scheme, parts.netloc.lower()) != self.origin:
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
            self.report.add(file, "fetch", f"cannot read {url}: {exc}")
            return None
        if stream is None:
            where_file, where = named_by or (file, "")
            what = "the index names" if named_by else f"no {role} at"
            self.report.add(where_file, "missing", f"{what} {url}, which does not exist", where)
            return None
        on_entry = collect or self._page_entry(file, directory(url))
        try:
            with stream:
                result = scan(
                    stream, lambda entry: self._entry(file, entry, on_entry), self.schemas
                )
        except (FetchError, OSError) as exc:
            self.report.add(file, "fetch", f"cannot read {url}: {exc}")
            return None
        self.report.files += 1
        self.check_result(file, result, role)
        self.check_twin(url, file, result)
        return result

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
            message = f"{result.size:,} bytes uncompressed, more than {MAX_BYTES_PER_FILE:,}"
            self.report.add(file, "limit", message)

    def _entry(self, file: str, entry: Entry, then: Callable[[Entry], None]) -> None:
        if entry.lastmod is not None:
            value = parse_lastmod(entry.lastmod)
            if value is not None and value > self.now:
                message = f"lastmod {entry.lastmod} is in the future"
                self.report.add(file, "lastmod", message, f"entry {entry.number}")
        then(entry)

    def _page_entry(self, file: str, folder: str) -> Callable[[Entry], None]:

        def page_entry(entry: Entry) -> None:
            self.report.urls += 1
            where = f"entry {entry.number}"
            if not self.in_scope(file, entry.loc, folder, where):
                return
            key = hashlib.blake2b(entry.loc.encode(), digest_size=8).digest()
            first = self.seen.get(key)
            if first is None:
                self.seen[key] = file
            else:
                also = "earlier in this file" if first == file else f"also in {first}"
                self.report.add(file, "duplicate", f"{entry.loc} is listed twice ({also})", where)

        return page_entry

    def check_twin(self, url: str, file: str, result: Scan) -> None:
        """The ``.gz`` beside a file, when there is one, must decompress to its bytes."""
        if url.endswith(".gz"):
            return
        try:
            twin = self.source.open(url + ".gz")
        except FetchError as exc:
            self.report.add(file + ".gz", "fetch", f"cannot read {url}.gz: {exc}")
            return
        if twin is None:
            return
        with twin:
            reader = HashingReader(_Gunzip(twin))  # type: ignore[arg-type]
            try:
                reader.drain()
            except (OSError, EOFError, zlib.error) as exc:
                self.report.add(file + ".gz", "gzip", f"not a gzip file: {exc}")
                return
        if reader.hash.hexdigest() != result.sha256:
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


class _Gunzip:
    def __init__(self, stream: IO[bytes]) -> None:
        self.file = gzip.GzipFile(fileobj=stream, mode="rb")

    def read(self, size: int = -1) -> bytes:
        return self.file.read(size)


def validate_set(source: Source, report: Report, schemas: Schemas | None) -> None:
    """Check the set ``source`` holds into ``report``."""
    SetCheck(source, report, schemas).run()
