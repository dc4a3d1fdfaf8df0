"""A section's pages read through the change log (``CHANGE_LOG``; see changelog.py).

Instead of scanning every page for its row count and newest lastmod, the build
scans the pages holding the keys the log names (and any page split off since
the last build); the others keep their published files without a query.
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping, Sequence

from django_sitemapkit.building.splicing import segments_holding
from django_sitemapkit.changelog import Changes
from django_sitemapkit.engine import rows, sections
from django_sitemapkit.engine.extensions import is_news
from django_sitemapkit.engine.pagefigures import KnownSegments
from django_sitemapkit.engine.pages import KeysetPages, PageSummary
from django_sitemapkit.engine.touched import PagesHolding
from django_sitemapkit.publishing.manifest import FileRecord
from django_sitemapkit.sitemaps import ModelSitemap


class LoggedPages:
    """The pages of one section that the change log's keys send a build to."""

    def __init__(
        self,
        pages: KeysetPages,
        keys: set[str],
        published: Sequence[FileRecord],
        tz: datetime.tzinfo,
    ):
        self._pages = pages
        self._published = published
        self._records = {record.number: record for record in published}
        self._tz = tz
        self._holding = PagesHolding(
            keys, [record.number for record in published], pages.pk_field.to_python
        )
        #: The published pages the log shows untouched, as summaries() left them.
        self.untouched: list[FileRecord] = []

    def summaries(self, segment_cuts: Mapping[int, Sequence[str]]) -> list[PageSummary]:
        """The non-empty pages among those scanned, with their figures (see KeysetPages.summaries).

        Of a page whose segments were cut (``segment_cuts``, from its record),
        only the segments holding logged keys are scanned.
        """
        summaries = self._pages.summaries(
            segment_cuts, parallel=True, choose=self._holding, known=self._known
        )
        scanned = {summary.number for summary in summaries}
        self.untouched = [record for record in self._published if record.number not in scanned]
        return [summary for summary in summaries if summary.count > 0]

    def _known(self, number: int) -> KnownSegments | None:
        """What the last build counted of page ``number``'s segments, and which of them hold
        logged keys; None where the page is to be scanned whole: no keys, or a page new or cut
        short since (its record's segments are not its rows)."""
        keys = self._holding.by_page.get(number)
        record = self._records.get(number)
        if not keys or record is None or number in self._holding.reshaped:
            return None
        rows, newest = record.segment_rows(), record.fingerprint_lastmod()
        if rows is None or newest is None:
            return None
        return KnownSegments(
            counts=tuple(rows),
            recount=frozenset(segments_holding(record, keys)),
            newest=newest,
            tz=self._tz,
        )

    @property
    def keys_by_page(self) -> dict[int, list[str]]:
        """The keys the log names, by the page holding them: those pages changed, whatever their
        figures say."""
        return self._holding.by_page


def logged_pages(
    changes: Changes | None,
    sitemap: ModelSitemap,
    pages: KeysetPages,
    published: Sequence[FileRecord],
    tz: datetime.tzinfo,
) -> LoggedPages | None:
    """``sitemap``'s pages as the change log tells them; None where every page is to be scanned.

    That is: no log; a scan asked for (``invalidate()`` without keys);
    nothing of the section published; keys whose order only the database
    knows; pages whose fingerprints do not tell edits; a news section, whose
    two days move with the clock, which no save tells.
    """
    keys = None if changes is None else changes.of(sitemap.name)
    if (
        keys is None
        or not published
        or not sections.fingerprints_reliable(sitemap)
        or not rows.keys_sort_alike(sitemap)
        or is_news(sitemap)
    ):
        return None
    return LoggedPages(pages, keys, published, tz)
