"""Which pages of a section a build keeps or renders again.

A model page whose row count and newest lastmod (its fingerprint) are what
they were is kept without rendering it; a page where only some rows were
edited gets just their segments rendered again and spliced into its old
bytes (splicing.py); any other page is rendered whole (pagefiles.py then
writes it only if its bytes changed).
"""

from __future__ import annotations

import functools
from collections.abc import Iterator

from django_sitemapkit.building.pagefiles import PageFiles, index_lastmod
from django_sitemapkit.building.resilient import (
    render_section,
    resiliently,
)
from django_sitemapkit.building.result import BuildResult, PageProgress, Progress
from django_sitemapkit.building.workers import PageWorker, render_shared
from django_sitemapkit.changelog import Changes
from django_sitemapkit.engine import sections
from django_sitemapkit.engine.entries import RenderContext
from django_sitemapkit.engine.keyranges import PageFigures
from django_sitemapkit.engine.rendering import SectionRegistry, page_filename
from django_sitemapkit.engine.sections import RenderedPage
from django_sitemapkit.publishing.base import Publisher
from django_sitemapkit.publishing.manifest import FileRecord, Manifest
from django_sitemapkit.sitemaps import ModelSitemap, Sitemap


class SectionPages:
    """The pages of the sections a build renders, each kept, spliced or rendered again.

    Made once per build, it lists the pages of every section to build
    (``selected``, or every one when empty) from the database at once,
    before any page is built: their number is the progress total.
    """

    def __init__(
        self,
        sitemaps: SectionRegistry,
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
        # Whether the build renders every page (a full build): a worker may help.
        self._every_page = every_page
        wanted = [sitemap for sitemap in sitemaps if not selected or sitemap.name in selected]
        self._summaries = {
            sitemap.name: resiliently(functools.partial(self._page_summaries, sitemap))
            for sitemap in wanted
        }
        total = sum(len(pages) for pages in self._summaries.values())
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
        figures = self._keep_unchanged(sitemap, records)
        for number, page in self._render_pages(sitemap, list(figures)):
            record = self._files.record(
                sitemap.name,
                number,
                page,
                before=self._old.get(page_filename(sitemap.name, number)),
                # A page split off while rendering was not scanned: without a
                # fingerprint, the next build renders it again.
                figures=figures.get(number),
            )
            records.append(record)
            self._progress.advance()
            # Not held while the next page renders: a page is megabytes.
            del page
        self._files.settle()
        return sorted(records, key=lambda r: r.number)

    def _keep_unchanged(
        self, sitemap: Sitemap, records: list[FileRecord]
    ) -> dict[int, PageFigures]:
        """Keep the pages whose rows did not change, into ``records``; the others' fingerprints.

        Pages whose row count and newest lastmod are what they were at the
        last render are kept without rendering them again. The others are
        to render: their fingerprints come back by page number.
        """
        to_render: dict[int, PageFigures] = {}
        trust_fingerprints = self._may_keep(sitemap) and sections.fingerprints_reliable(sitemap)
        for summary in self._summaries[sitemap.name]:
            fingerprint = summary.fingerprint
            before = self._old.get(page_filename(sitemap.name, summary.number))
            if trust_fingerprints and before is not None and before.fingerprint == fingerprint:
                # Its count and newest are the same: not whether a row lost its lastmod.
                before.index_lastmod = index_lastmod(summary)
                records.append(before)
                self._files.keep_page(before)
                self._progress.advance()
            else:
                to_render[summary.number] = summary
        return to_render

    def _render_pages(
        self, sitemap: Sitemap, numbers: list[int]
    ) -> Iterator[tuple[int, RenderedPage]]:
        """Pages ``numbers``: spliced where possible, else rendered whole."""
        rest = numbers
        worker = self._worker if isinstance(sitemap, ModelSitemap) else None
        yield from render_section(
            sitemap,
            self._context,
            rest,
            self._result.count_skipped,
            self._sitemaps.invalidate_listing,
            None
            if worker is None
            else functools.partial(render_shared, worker, sitemap, self._context),
        )

    def _page_summaries(self, sitemap: Sitemap) -> list[PageFigures]:
        """The section's pages that list a URL, with their figures (the index's lastmods)."""
        return sections.page_figures(sitemap, self._context)

    def _may_keep(self, sitemap: Sitemap) -> bool:
        """Whether ``sitemap``'s published pages may be kept or spliced as far as fingerprints go."""
        return self._keep_pages and sitemap.name not in self._rerender
