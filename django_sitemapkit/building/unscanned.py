"""A full build's pages without a scan: the recorded pages, fingerprinted by their own renders.

A build that renders every page keeps none, so it needs no page's row count or
newest lastmod beforehand; only the next build needs them, as fingerprints.
Where a section's pages are recorded and its render counts the same figures a
scan would, the build renders the recorded pages straight away and takes each
fingerprint from the page rendered: the rows are read once, not twice.
"""

from __future__ import annotations

from django_sitemapkit.building.splicing import sitemap_can_splice
from django_sitemapkit.engine import sections
from django_sitemapkit.engine.entries import RenderContext
from django_sitemapkit.engine.pages import KeysetPages, PageSummary
from django_sitemapkit.engine.pagetable import page_table
from django_sitemapkit.engine.sections import RenderedPage
from django_sitemapkit.publishing.manifest import page_fingerprint
from django_sitemapkit.sitemaps import ModelSitemap


def unscanned_pages(sitemap: ModelSitemap, pages: KeysetPages) -> list[PageSummary] | None:
    """The recorded pages of ``sitemap`` to render, unscanned; None where a scan must list them.

    Their counts are ``limit`` each, for the worker's estimate only. A section
    never cut has no record and is scanned (which cuts it); so is one whose
    renders cannot tell its fingerprints (see ``rendered_fingerprint``).
    """
    if not (
        sections.fingerprints_reliable(sitemap)
        and not sitemap.defines_lastmod()
        and sitemap_can_splice(sitemap)
    ):
        return None
    recorded = page_table().pages(pages.section)
    if not recorded:
        return None
    return [PageSummary(page.number, pages.limit, None) for page in recorded]


def rendered_fingerprint(page: RenderedPage, context: RenderContext) -> str | None:
    """The fingerprint a scan would give the rows ``page`` was rendered from; None where the
    render cannot tell it: a row skipped, a lastmod dropped (rows the entries do not show),
    or the page cut short."""
    if page.skipped or page.lastmods_dropped or page.overflowed:
        return None
    return page_fingerprint(PageSummary(0, page.url_count, page.lastmod), context.tz)
