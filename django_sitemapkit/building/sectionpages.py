"""Which pages of a section a build keeps, splices or renders again.

A model page whose row count and newest lastmod (its fingerprint) are what
they were is kept without rendering it; a page where only some rows were
edited gets just their segments rendered again and spliced into its old
bytes (splicing.py); any other page is rendered whole (pagefiles.py then
writes it only if its bytes changed). The change log (loggedpages.py) and a
full build (unscanned.py) spare the scan that gives the fingerprints.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator

from django_sitemapkit.building.loggedpages import LoggedPages, logged_pages
from django_sitemapkit.building.pagefiles import PageFiles
from django_sitemapkit.building.resilient import (
    render_page_resiliently,
    render_section,
    resiliently,
)
from django_sitemapkit.building.result import BuildResult, PageProgress, Progress
from django_sitemapkit.building.splicing import can_splice, sitemap_can_splice, splice_pages
from django_sitemapkit.building.unscanned import rendered_fingerprint, unscanned_pages
from django_sitemapkit.building.workers import PageWorker, render_shared
from django_sitemapkit.changelog import Changes
from django_sitemapkit.engine import rows, sections
from django_sitemapkit.engine.entries import RenderContext
from django_sitemapkit.engine.filenames import page_filename
from django_sitemapkit.engine.pages import KeysetPages, PageSummary
from django_sitemapkit.engine.rendering import Sections
from django_sitemapkit.engine.sections import RenderedPage
from django_sitemapkit.publishing.base import Publisher
from django_sitemapkit.publishing.manifest import FileRecord, Manifest
from django_sitemapkit.publishing.manifest import page_fingerprint as manifest_page_fingerprint
from django_sitemapkit.sitemaps import ModelSitemap, Sitemap


class SectionPages:
    """The pages of the sections a build renders, each kept, spliced or rendered again.

    Made once per build, it lists the pages of every section to build
    (``selected``, or every one when empty) from the database at once,
    before any page is built: their number is the progress total.
    """

    def __init__(
        self,
        sitemaps: Sections,
        files: PageFiles,
        result: BuildResult,
        *,
        selected: set[str],
        previous: Manifest | None,
        publisher: Publisher,
        context: RenderContext,
        keep_pages: bool,
        gzip: bool,
        progress: Progress | None,
        rerender: frozenset[str] = frozenset(),
        every_page: bool = False,
        changes: Changes | None = None,
    ) -> None:
        self._sitemaps = sitemaps
        self._files = files
        self._result = result
        self._previous = previous
        self._old = {} if previous is None else {record.name: record for record in previous.pages}
        self._publisher = publisher
        self._context = context
        # Whether published pages may be kept at all (the section's own say aside).
        self._keep_pages = keep_pages
        # Sections whose every page is rendered again (their configuration changed).
        self._rerender = rerender
        self._gzip = gzip
        # The change log's rows (None: every page is scanned for changes).
        self._changes = changes
        # Per section read through the change log, the pages it sends the build to.
        self._logged: dict[str, LoggedPages] = {}
        # Sections rendered without a scan, their fingerprints taken from the renders.
        self._unscanned: set[str] = set()
        # Whether the build renders every page (a full build): a worker may help.
        self._every_page = every_page
        wanted = [sitemap for sitemap in sitemaps if not selected or sitemap.name in selected]
        self._splice_records = {sitemap.name: self._spliceable(sitemap) for sitemap in wanted}
        self._summaries = {
            sitemap.name: resiliently(functools.partial(self._page_summaries, sitemap))
            for sitemap in wanted
        }
        total = sum(len(pages) for pages in self._summaries.values()) + sum(
            len(logged.untouched) for logged in self._logged.values()
        )
        self._progress = PageProgress(progress, total)
        # Renders pages of model sections beside this process, while in a with block.
        self._worker: PageWorker | None = None

    def __enter__(self) -> SectionPages:
        """Fork a process rendering pages beside this one where every page is rendered and the
        rows are many; before the build starts any thread."""
        if not self._every_page:
            return self
        rows = sum(
            summary.count
            for sitemap in self._sitemaps
            if isinstance(sitemap, ModelSitemap) and sitemap.name in self._summaries
            for summary in self._summaries[sitemap.name]
        )
        self._worker = PageWorker.start(self._sitemaps, self._context, gzip=self._gzip, rows=rows)
        return self

    def __exit__(self, *exc_info: object) -> None:
        """End the worker process, if any."""
        if self._worker is not None:
            self._worker.close()
            self._worker = None

    def wanted(self, sitemap: Sitemap) -> bool:
        """Whether this build builds ``sitemap``'s pages (else it keeps the published ones)."""
        return sitemap.name in self._summaries

    def keep_published(self, sitemap: Sitemap) -> list[FileRecord]:
        """The published pages of a section not built this time, their files kept as they are."""
        records = [
            record
            for record in sorted(self._old.values(), key=lambda r: r.number)
            if record.section == sitemap.name
        ]
        for record in records:
            self._files.keep_files(record)
        self._files.settle()
        return records

    def build(self, sitemap: Sitemap) -> list[FileRecord]:
        """The records of the section's pages, in page order, each kept, spliced or rendered."""
        records: list[FileRecord] = []
        logged = self._logged.get(sitemap.name)
        for record in () if logged is None else logged.untouched:
            records.append(record)
            self._files.keep_page(record)
            self._progress.advance()
        fingerprints = self._keep_unchanged(sitemap, records)
        for number, page in self._render_pages(sitemap, list(fingerprints)):
            record = self._files.record(
                sitemap.name,
                number,
                page,
                before=self._old.get(page_filename(sitemap.name, number)),
                # A page split off while rendering was not scanned: without a
                # fingerprint, the next build renders it again.
                fingerprint=rendered_fingerprint(page, self._context)
                if sitemap.name in self._unscanned
                else fingerprints.get(number),
            )
            records.append(record)
            self._progress.advance()
            # Not held while the next page renders: a page is megabytes.
            del page
        self._files.settle()
        return sorted(records, key=lambda r: r.number)

    def _keep_unchanged(self, sitemap: Sitemap, records: list[FileRecord]) -> dict[int, str]:
        """Keep the pages whose rows did not change, into ``records``; the others' fingerprints.

        Pages whose row count and newest lastmod are what they were at the
        last render are kept without rendering them again. The others are
        to render: their fingerprints come back by page number.
        """
        to_render: dict[int, str] = {}
        trust_fingerprints = self._may_keep(sitemap) and sections.fingerprints_reliable(sitemap)
        # A page holding a row the change log names changed, whatever its figures say.
        logged = self._logged_keys(sitemap)
        for summary in self._summaries[sitemap.name]:
            fingerprint = page_fingerprint(summary, self._context)
            before = self._old.get(page_filename(sitemap.name, summary.number))
            if (
                trust_fingerprints
                and before is not None
                and before.fingerprint == fingerprint
                and summary.number not in logged
            ):
                records.append(before)
                self._files.keep_page(before)
                self._progress.advance()
            else:
                to_render[summary.number] = fingerprint
        return to_render

    def _render_pages(
        self, sitemap: Sitemap, numbers: list[int]
    ) -> Iterator[tuple[int, RenderedPage]]:
        """Pages ``numbers``: spliced where possible, else rendered whole."""
        to_splice = {
            number: record
            for number, record in self._splice_records[sitemap.name].items()
            if number in numbers
        }
        spliced: set[int] = set()
        if to_splice and self._previous is not None:
            for number, page in self._splice(sitemap, to_splice, self._previous):
                if page is not None:
                    spliced.add(number)
                    yield number, page
                del page
        rest = [number for number in numbers if number not in spliced]
        worker = self._worker if isinstance(sitemap, ModelSitemap) else None
        yield from render_section(
            sitemap,
            self._context,
            rest,
            self._result.count_skipped,
            self._sitemaps.pages_changed,
            None
            if worker is None
            else functools.partial(render_shared, worker, sitemap, self._context),
        )

    def _splice(
        self, sitemap: Sitemap, records: dict[int, FileRecord], previous: Manifest
    ) -> Iterator[tuple[int, RenderedPage | None]]:
        """The pages of ``records`` rebuilt from their old files and edited segments."""
        context = self._context
        return splice_pages(
            records,
            {summary.number: summary for summary in self._summaries[sitemap.name]},
            context,
            read=lambda name: self._publisher.read_view(previous, name),
            render=lambda number, span: render_page_resiliently(sitemap, number, context, span),
            gzip=self._gzip,
            logged=self._logged_keys(sitemap),
        )

    def _page_summaries(self, sitemap: Sitemap) -> list[PageSummary]:
        """The section's pages; for pages that may be spliced, with their segments' figures.

        A model section is scanned on two connections at once where it can be:
        the scan is most of an incremental build's time.
        """
        if not isinstance(sitemap, ModelSitemap):
            return sections.page_summaries(sitemap, self._context)
        cuts = {
            number: record.layout.cuts
            for number, record in self._splice_records[sitemap.name].items()
            if record.layout is not None
        }
        pages = rows.keyset_pages(sitemap)
        recorded = unscanned_pages(sitemap, pages) if self._every_page else None
        if recorded is not None:
            self._unscanned.add(sitemap.name)
            return recorded
        logged = self._read_logged(sitemap, pages)
        if logged is None:
            return pages.summaries(cuts, parallel=True)
        return logged.summaries(cuts)

    def _read_logged(self, sitemap: ModelSitemap, pages: KeysetPages) -> LoggedPages | None:
        """``sitemap``'s pages as the change log tells them, where it may (see logged_pages)."""
        self._logged.pop(sitemap.name, None)
        if not self._may_keep(sitemap):
            return None
        published = [r for r in self._old.values() if r.section == sitemap.name]
        logged = logged_pages(self._changes, sitemap, pages, published, self._context.tz)
        if logged is not None:
            self._logged[sitemap.name] = logged
        return logged

    def _logged_keys(self, sitemap: Sitemap) -> dict[int, list[str]]:
        """By page, the keys of ``sitemap``'s rows that the change log names."""
        logged = self._logged.get(sitemap.name)
        return {} if logged is None else logged.keys_by_page

    def _may_keep(self, sitemap: Sitemap) -> bool:
        """Whether ``sitemap``'s published pages may be kept or spliced as far as fingerprints go."""
        return self._keep_pages and sitemap.name not in self._rerender

    def _spliceable(self, sitemap: Sitemap) -> dict[int, FileRecord]:
        """The previous records of the pages of ``sitemap`` that may be spliced, by number."""
        if not (
            isinstance(sitemap, ModelSitemap)
            and sections.fingerprints_reliable(sitemap)
            and self._may_keep(sitemap)
            and sitemap_can_splice(sitemap)
        ):
            return {}
        return {
            record.number: record
            for record in self._old.values()
            if record.section == sitemap.name and can_splice(record, gzip=self._gzip)
        }


def page_fingerprint(summary: PageSummary, context: RenderContext) -> str:
    """The page's row count and newest lastmod, as its record keeps them."""
    return manifest_page_fingerprint(summary, context.tz)
