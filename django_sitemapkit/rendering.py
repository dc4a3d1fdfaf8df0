"""The single rendering path: the views and the static build both call these.

Each function returns the finished bytes of one file plus what HTTP needs
(a strong ETag and the newest lastmod), so a file served by a view and a file
written by the build are the same bytes.
"""

from __future__ import annotations

import datetime
import gzip
import hashlib
import posixpath
from dataclasses import dataclass
from functools import cached_property

from django.urls import reverse
from django.utils import timezone

from django_sitemapkit.conf import get_settings
from django_sitemapkit.locations import LocationBuilder
from django_sitemapkit.pages import PageNotFound
from django_sitemapkit.registry import SitemapRegistry, registry
from django_sitemapkit.sitemaps import RenderContext, newest_of
from django_sitemapkit.w3c import format_lastmod, to_aware
from django_sitemapkit.writer import IndexWriter

INDEX_URL_NAME = "sitemapkit:index"
SECTION_URL_NAME = "sitemapkit:section"
# gzip level 6: zlib's default, the usual balance for files fetched often.
GZIP_LEVEL = 6


class SectionNotFound(LookupError):
    """No section of that name is registered."""


@dataclass(frozen=True)
class RenderedFile:
    content: bytes
    last_modified: datetime.datetime | None
    url_count: int = 0
    skipped: int = 0

    @cached_property
    def etag(self) -> str:
        return f'"{hashlib.sha256(self.content).hexdigest()[:32]}"'

    def gzipped(self) -> RenderedFile:
        """The same file as raw gzip (fixed mtime, so the bytes are reproducible)."""
        data = gzip.compress(self.content, compresslevel=GZIP_LEVEL, mtime=0)
        return RenderedFile(data, self.last_modified, self.url_count, self.skipped)


def site_time_zone() -> datetime.tzinfo:
    """settings.TIME_ZONE, never a per-request activated zone: output must not vary by user."""
    return timezone.get_default_timezone()


def page_path(section: str, number: int) -> str:
    return reverse(SECTION_URL_NAME, kwargs={"section": section, "page": number})


def index_path() -> str:
    return reverse(INDEX_URL_NAME)


def make_context(base_url: str) -> RenderContext:
    """Locations are built from ``base_url`` and must lie in the index's directory."""
    directory = posixpath.dirname(index_path())
    directory_url = base_url + directory.rstrip("/") + "/"
    return RenderContext(
        locations=LocationBuilder(
            base_url,
            directory_url=directory_url,
            strip_params=get_settings().STRIP_QUERY_PARAMS,
        ),
        tz=site_time_zone(),
    )


def render_page(
    section: str, number: int, *, base_url: str, sitemaps: SitemapRegistry = registry
) -> RenderedFile:
    """One ``<urlset>`` file; raises SectionNotFound or PageNotFound."""
    sitemap = sitemaps.get(section)
    if sitemap is None:
        raise SectionNotFound(section)
    page = sitemap.render_page(number, make_context(base_url))
    return RenderedFile(page.content, page.lastmod, page.url_count, page.skipped)


def render_index(*, base_url: str, sitemaps: SitemapRegistry = registry) -> RenderedFile:
    """The ``<sitemapindex>``: one entry per non-empty page of every section.

    Raises PageNotFound when no section has a page (an empty index is not
    valid), IndexFull past 50,000 files.
    """
    context = make_context(base_url)
    writer = IndexWriter()
    newest: datetime.datetime | None = None
    for sitemap in sitemaps:
        for summary in sitemap.page_summaries(context):
            lastmod = None
            if summary.lastmod is not None:
                # Always a full datetime in the index: one format per file, and
                # a date becomes midnight of its own day, never the day before.
                lastmod = format_lastmod(summary.lastmod, context.tz, date_only=False)
                newest = newest_of(newest, to_aware(summary.lastmod, context.tz))
            writer.add(base_url + page_path(sitemap.name, summary.number), lastmod)
    if writer.count == 0:
        raise PageNotFound(0)
    return RenderedFile(writer.getvalue(), newest, url_count=writer.count)
