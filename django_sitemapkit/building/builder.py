"""Pre-rendering every sitemap file into a storage: the engine of ``sitemapkit_build``.

Pages are rendered by the same code the views use (``Sitemap.render_page`` and
``rendering.write_index``), so a built file and a served file are the same
bytes. A manifest makes builds incremental: a model page whose row count and
newest lastmod (its fingerprint) are what they were is kept without rendering
it; a page where only some rows were edited gets just their segments rendered
again and spliced into its old bytes (splicing.py); any other page is rendered
whole (sectionpages.py decides which). A page is written only if its bytes
(content hash) changed, and the index announces a new lastmod for every page
whose bytes changed -- also when the change was a deletion, which no
``updated_at`` shows (pagefiles.py).
"""

from __future__ import annotations

import datetime
import time
import uuid

from django_sitemapkit import changelog
from django_sitemapkit.building.configprint import config_fingerprint
from django_sitemapkit.building.indexfile import publish_index
from django_sitemapkit.building.pagefiles import BackgroundWork, PageFiles, sha256
from django_sitemapkit.building.resilient import (
    render_page_resiliently,
    render_section,
    resiliently,
)
from django_sitemapkit.building.result import BuildError, BuildResult, Progress
from django_sitemapkit.building.sectionpages import SectionPages
from django_sitemapkit.changelog import Changes
from django_sitemapkit.conf import BaseUrlError, base_url, get_settings
from django_sitemapkit.engine.rendering import (
    SectionRegistry,
    SiteSections,
    make_context,
    stylesheet_href,
)
from django_sitemapkit.engine.skiplog import one_render
from django_sitemapkit.languages import rendering_language
from django_sitemapkit.notifying.changes import announce, watch
from django_sitemapkit.protocol.stylesheet import stylesheet_bytes
from django_sitemapkit.publishing.base import Publisher, Transaction
from django_sitemapkit.publishing.manifest import Manifest
from django_sitemapkit.publishing.selection import get_publisher
from django_sitemapkit.siteconfig import SiteConfig, SitesError, one_site, rendering_site

# What other modules import from here, wherever it is defined.
__all__ = [
    "BuildError",
    "BuildResult",
    "Builder",
    "Progress",
    "render_page_resiliently",
    "render_section",
    "resiliently",
]


class Builder:
    def __init__(
        self,
        *,
        publisher: Publisher | None = None,
        sitemaps: SectionRegistry,
        full: bool = False,
        dry_run: bool = False,
        progress: Progress | None = None,
        rerender: bool = False,
        site: str | SiteConfig | None = None,
        scan: bool = False,
    ) -> None:
        conf = get_settings()
        try:
            #: The site of ``SITEMAPKIT["SITES"]`` built: its base URL, sections and folder.
            self.site = site = one_site(site)
        except (LookupError, SitesError) as exc:
            raise BuildError(str(exc)) from None
        if site is not None:
            self.base_url = site.base_url
            sitemaps = SiteSections(sitemaps, site)
        else:
            try:
                self.base_url = base_url()
            except BaseUrlError as exc:
                raise BuildError(str(exc)) from None
        # Each SitemapSite publishes into its own folder (publishing/selection.py).
        self.publisher = publisher or get_publisher(site, sitemaps.name)
        self.sitemaps = sitemaps
        self.full = full
        # Render every page and compare bytes, even where fingerprints match.
        self.rerender = rerender
        # Scan every page for changes even where the change log says which changed.
        self.scan = scan
        self.dry_run = dry_run
        self.gzip = conf.GZIP
        self.progress = progress
        # The lastmod announced for a page whose bytes changed while its rows'
        # newest lastmod did not (a deletion): the moment of this build.
        self.started = datetime.datetime.now(tz=datetime.UTC).replace(microsecond=0)
        self._start = time.perf_counter()
        # A build died writing into the published set (a flat storage's): see run().
        self._interrupted = False

    def run(self, sections: list[str] | None = None, *, wait: float = 0) -> BuildResult:
        unknown = sorted(set(sections or []) - set(self.sitemaps.sections()))
        if unknown:
            where = "registered" if self.site is None else f"listed on site {self.site.name!r}"
            raise BuildError(
                f"Unknown section {', '.join(map(repr, unknown))}; {where}: "
                f"{', '.join(self.sitemaps.sections()) or 'none'}."
            )
        self._start = start = time.perf_counter()
        with (
            self.publisher.lock(wait=wait),
            rendering_language(),
            rendering_site(self.site),
            one_render(),
        ):
            result = BuildResult(dry_run=self.dry_run)
            if not self.dry_run:
                result.cleaned = self.publisher.cleanup()
            previous = self.publisher.manifest()
            if self.publisher.interrupted():
                # The files may not be what the manifest says: every one is written again.
                self.full = self._interrupted = True
            manifest = self._new_manifest(previous)
            selected, unpublished = self._select(set(sections or []), previous, result)
            changes = self._read_changes(manifest)
            # Trusted to name every change where the last build read the log too.
            trusted = changes if previous and previous.change_log and not self.scan else None
            transaction = None if self.dry_run else self.publisher.begin(manifest, previous)
            # Notes the URLs this build changes, for IndexNow (when it is on).
            transaction = watch(transaction, self.publisher, previous, self.base_url)
            try:
                with BackgroundWork() as background:
                    self._build(
                        manifest, previous, transaction, selected, result, background, trusted
                    )
                    publish_index(
                        manifest,
                        previous,
                        transaction,
                        result,
                        base_url=self.base_url,
                        namespace=self.sitemaps.name,
                        full=self.full,
                        started=self.started,
                    )
            except BaseException:
                if transaction is not None:
                    transaction.abort()
                raise
            if changes is not None and not self.dry_run:
                # What the rows noted is published (or was already): they are done with.
                result.changes_read = changes.consume(selected or changes.keys)
            with_pages = {record.section for record in manifest.pages}
            result.first_published = sorted(unpublished & with_pages)
        result.seconds = time.perf_counter() - start
        announce(transaction, self.base_url, self.sitemaps.name)
        return result

    def _read_changes(self, manifest: Manifest) -> Changes | None:
        """The change log's rows for this build, where the log is on (noted in ``manifest``)."""
        manifest.change_log = changelog.log_on()
        if not manifest.change_log:
            return None
        return changelog.read(changelog.build_target(self.sitemaps.name, self.site))

    def _new_manifest(self, previous: Manifest | None) -> Manifest:
        return Manifest(
            generation=f"{self.started:%Y%m%dT%H%M%S}-{uuid.uuid4().hex[:8]}",
            built_at=self.started.isoformat(),
            base_url=self.base_url,
            gzip=self.gzip,
            previous_generation=None if previous is None else previous.generation,
            stylesheet=(href := stylesheet_href(self.sitemaps.name)),
            stylesheet_sha256="" if href is None else sha256(stylesheet_bytes()),
        )

    def _select(
        self, asked: set[str], previous: Manifest | None, result: BuildResult
    ) -> tuple[set[str], set[str]]:
        """The sections to build (none: every one), and those built unasked as never published.

        Sections are built as asked only where the others' published pages
        can stay; ``result`` tells why not otherwise.
        """
        if not asked:
            return set(), set()
        result.every_section_because = self._stale_pages_reason(previous)
        if result.every_section_because is not None:
            return set(), set()
        # A section without published pages (registered since the last
        # build, or empty then) has no files to keep: left out, it would be
        # missing from the index.
        assert previous is not None
        have_pages = {record.section for record in previous.pages}
        unpublished = set(self.sitemaps.sections()) - asked - have_pages
        return asked | unpublished, unpublished

    def _build(
        self,
        manifest: Manifest,
        previous: Manifest | None,
        transaction: Transaction | None,
        selected: set[str],
        result: BuildResult,
        background: BackgroundWork,
        changes: Changes | None,
    ) -> None:
        files = PageFiles(
            transaction,
            result,
            background,
            full=self.full,
            gzip=self.gzip,
            old_gzip=previous is not None and previous.gzip,
            started=self.started,
        )
        configs = {sitemap.name: config_fingerprint(sitemap) for sitemap in self.sitemaps}
        old_configs = {} if previous is None else previous.configs
        if self._may_keep_pages(previous):
            result.reconfigured = [
                name
                for name, config in configs.items()
                if old_configs.get(name, config) != config and (not selected or name in selected)
            ]
        with SectionPages(
            self.sitemaps,
            files,
            result,
            selected=selected,
            previous=previous,
            publisher=self.publisher,
            context=make_context(self.base_url, self.sitemaps.name),
            keep_pages=self._may_keep_pages(previous),
            gzip=self.gzip,
            progress=self.progress,
            rerender=frozenset(result.reconfigured),
            every_page=self.full or previous is None,
            changes=changes,
        ) as pages:
            for sitemap in self.sitemaps:
                if pages.wanted(sitemap):
                    result.sections += 1
                    manifest.configs[sitemap.name] = configs[sitemap.name]
                    manifest.pages.extend(pages.build(sitemap))
                else:
                    # Not rebuilt this time: its published files stay as they are.
                    result.sections_kept += 1
                    if sitemap.name in old_configs:
                        manifest.configs[sitemap.name] = old_configs[sitemap.name]
                    manifest.pages.extend(pages.keep_published(sitemap))
        manifest.seconds = round(time.perf_counter() - self._start, 3)

    def _stale_pages_reason(self, previous: Manifest | None) -> str | None:
        """Why no published page can be kept as it is, or None if they can.

        A page lists absolute URLs of the ``BASE_URL`` it was built for, and
        has a ``.gz`` only if ``GZIP`` was on: keeping it under other
        settings would publish URLs of another host, or an index linking
        ``.gz`` files that do not exist.
        """
        if previous is None:
            return "nothing was published before"
        if self._interrupted:
            return "a build died while writing to the storage"
        if previous.base_url != self.base_url:
            return f"BASE_URL was {previous.base_url} at the last build"
        if self.gzip and not previous.gzip:
            return "GZIP was off at the last build"
        if previous.stylesheet != stylesheet_href(self.sitemaps.name):
            # Every file's head names the stylesheet (or does not).
            return f"the files' stylesheet was {previous.stylesheet or 'off'} at the last build"
        return None

    def _may_keep_pages(self, previous: Manifest | None) -> bool:
        """Whether published pages with unchanged fingerprints may be kept, as far as the build goes."""
        return not self.full and not self.rerender and self._stale_pages_reason(previous) is None
