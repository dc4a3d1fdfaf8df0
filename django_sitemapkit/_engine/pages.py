"""Stable, dense pages of a model section: key ranges cut by count, then split (docs/pages.md)."""

from __future__ import annotations

import datetime
import enum
import hashlib
import logging
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, TypeVar

from django.apps import apps
from django.db import DatabaseError, IntegrityError, connections, models, router, transaction
from django.db.models import QuerySet

from django_sitemapkit._engine.internals import bound_alias
from django_sitemapkit._engine.keyranges import PageFigures, RangeAggregator, in_range
from django_sitemapkit._siteconfig import current_site
from django_sitemapkit._sitemaps import Sitemap

logger = logging.getLogger("django_sitemapkit")


class PageNotFound(LookupError):
    """The section has no such page, or no URL to list on it."""

    def __init__(self, number: int, *, skipped: int = 0, excluded: int = 0) -> None:
        super().__init__(number)
        self.skipped = skipped  # rows the page holds whose every URL was skipped
        self.excluded = excluded  # and those is_indexable() left out


class KeysetPages:
    def __init__(
        self, section: str, queryset: QuerySet[Any], *, limit: int, lastmod_field: str | None
    ) -> None:
        self.section = section
        self.queryset = queryset
        self.limit = limit
        self.lastmod_field = lastmod_field
        pk_field = queryset.model._meta.pk
        assert pk_field is not None
        self.pk_field: models.Field[Any, Any] = pk_field

    def _rows(self, page: Page) -> QuerySet[Any]:
        range_q = in_range(self.pk_field, page.start_key, page.end_key)
        return self.queryset.filter(range_q).order_by("pk")

    def page_queryset(self, number: int, page: Page | None = None) -> QuerySet[Any]:
        """The rows of page ``number`` in key order (``page``: its bounds, if read already)."""
        if number < 1:
            raise PageNotFound(number)
        page = page or page_table().page(self.section, number)
        if page is None and number == 1:
            page = FIRST_PAGE  # cut in memory or not, page 1 starts with the first row
        if page is None:  # a page cut in memory, where no process recorded it; or none
            page = next((p for p in self.pages() if p.number == number), None)
        if page is None:
            raise PageNotFound(number)
        return self._rows(page)

    def recorded(self) -> dict[int, Page]:
        """The recorded pages by number, in one query (page 1 where none is)."""
        return {page.number: page for page in page_table().pages(self.section) or [FIRST_PAGE]}

    def pages(self) -> list[Page]:
        return self._settle()[0]

    def figures(self, tz: datetime.tzinfo) -> list[PageFigures]:
        """The figures of every non-empty page, in one scan, pages past ``limit`` cut first."""
        pages, figures = self._settle(tz)
        return [figures[page.number] for page in pages if figures[page.number].count]

    def _settle(
        self, tz: datetime.tzinfo = datetime.UTC
    ) -> tuple[list[Page], dict[int, PageFigures]]:
        """The pages, overfull ones cut (recorded where possible, kept in memory: a replica may
        lag), and their figures. Another process's cuts stand: read where written, cut anew."""
        table = page_table()
        for _attempt in range(3):
            recorded = table.pages(self.section)
            pages = recorded or [FIRST_PAGE]
            figures = self._aggregate(pages, tz)
            overfull = [page for page in pages if figures[page.number].count > self.limit]
            if not overfull:
                return pages, figures
            cut = self._cut(pages, overfull)
            table = page_table(write=True)
            if table.record(self.section, recorded, cut) is not Recording.CONFLICT:
                break
        unchanged = set(pages)
        figures.update(self._aggregate([page for page in cut if page not in unchanged], tz))
        return cut, figures

    def _aggregate(self, pages: Sequence[Page], tz: datetime.tzinfo) -> dict[int, PageFigures]:
        field = self.lastmod_field
        nullable = field is not None and bool(self.queryset.model._meta.get_field(field).null)
        aggregator = RangeAggregator(self.queryset, self.lastmod_field, nullable=nullable)
        ranges = [(page.number, (page.start_key, page.end_key)) for page in pages]
        return {figures.number: figures for figures in aggregator.figures(ranges, tz)}

    def _cut(self, pages: Sequence[Page], overfull: Sequence[Page]) -> list[Page]:
        result = {page.number: page for page in pages}
        last = max(result)
        for page in overfull:
            current = page
            while (key := self._cut_key(current)) is not None:
                last += 1
                result[current.number] = replace(current, end_key=key)
                current = Page(last, key, current.end_key)
                result[last] = current
        return [result[number] for number in sorted(result)]

    def _cut_key(self, page: Page) -> str | None:
        keys = self._rows(page).values_list("pk", flat=True)[self.limit : self.limit + 1]
        key = next(iter(keys), None)
        return None if key is None else str(key)

    def split(self, number: int, at_key: Any) -> bool:
        """Record that page ``number`` (too big for its file) ends before ``at_key``, in a new
        last page. Whether the recorded pages changed since it was read: files naming them go."""
        table = page_table(write=True)
        recorded = table.pages(self.section)
        pages = recorded or [FIRST_PAGE]
        page = next((p for p in pages if p.number == number), None)
        key = str(at_key)
        if page is None or page.start_key == key:
            return False  # cut in memory only; or nothing below the cut
        if not self._rows(page).filter(pk=at_key).exists():
            return True  # split meanwhile, at or below the key
        new = Page(pages[-1].number + 1, key, page.end_key)
        after = [*(replace(p, end_key=key) if p is page else p for p in pages), new]
        # On a conflict the other process's change stands: a page too big splits next time.
        return table.record(self.section, recorded, after) is not Recording.REFUSED


@dataclass(frozen=True)
class Page:
    """Page ``number``: the rows whose key (as text) is in ``[start_key, end_key)``."""

    number: int
    start_key: str | None = None
    end_key: str | None = None


FIRST_PAGE = Page(1)  # a first cut records page 1 too: none recorded, no cut


class Recording(enum.Enum):
    RECORDED = enum.auto()
    CONFLICT = enum.auto()  # another process changed the pages since they were read
    REFUSED = enum.auto()  # the connection may not write the table


class _ChangedMeanwhile(Exception):
    """A page no longer has the bounds it was read with: roll the recording back."""


_WRITABLE = {  # per vendor: may the table (its quoted name for each %s) be written
    "postgresql": "SELECT current_setting('transaction_read_only') = 'off'"
    " AND has_table_privilege(%s, 'INSERT') AND has_table_privilege(%s, 'UPDATE')",
    "sqlite": "SELECT NOT query_only FROM pragma_query_only()",
    "mysql": "SELECT NOT @@read_only",
}


class PageManager(models.Manager[models.Model]):
    """Reads and records sections' pages; without ``db_manager()``, on the router's database."""

    def pages(self, section: str) -> list[Page]:
        rows = self.filter(section=section).order_by("number")
        return [Page(*row) for row in rows.values_list("number", "start_key", "end_key")]

    def page(self, section: str, number: int) -> Page | None:
        rows = self.filter(section=section, number=number)
        found = rows.values_list("start_key", "end_key").first()
        return None if found is None else Page(number, *found)

    def writable(self) -> bool:
        """Whether the table may be written, asked without writing: PostgreSQL logs refusals."""
        connection = connections[bound_alias(self) or router.db_for_write(self.model)]
        table = connection.ops.quote_name(self.model._meta.db_table)
        query = _WRITABLE.get(connection.vendor)
        if query is None:
            return True
        with connection.cursor() as cursor:
            cursor.execute(query, [table] * query.count("%s"))
            row = cursor.fetchone()
        return bool(row and row[0])

    def record(self, section: str, before: Sequence[Page], after: Sequence[Page]) -> Recording:
        """Make ``section``'s recorded pages ``before`` into ``after``. No lock: a page updates only
        if its bounds are as read; numbers are unique: a race fails (CONFLICT), no overlap."""
        if not self.writable():
            return Recording.REFUSED
        db = bound_alias(self) or router.db_for_write(self.model)
        read = {page.number: page for page in before}
        new: list[models.Model] = [
            self.model(section=section, number=p.number, start_key=p.start_key, end_key=p.end_key)
            for p in after
            if p.number not in read
        ]
        try:
            with transaction.atomic(using=db):
                for page in after:
                    was = read.get(page.number)
                    if was is not None and was != page:
                        bounds = {"start_key": was.start_key, "end_key": was.end_key}
                        rows = self.using(db).filter(section=section, number=page.number, **bounds)
                        if not rows.update(end_key=page.end_key):
                            raise _ChangedMeanwhile
                self.using(db).bulk_create(new)
        except (IntegrityError, _ChangedMeanwhile):
            return Recording.CONFLICT
        except DatabaseError as exc:
            logger.debug("Pages of section %r not recorded (%s): cut in memory.", section, exc)
            return Recording.REFUSED
        return Recording.RECORDED


def page_table(*, write: bool = False) -> PageManager:
    """The table on the router's database for reads or writes (by name: models.py imports us)."""
    model = apps.get_model("django_sitemapkit", "SitemapPage")
    db = router.db_for_write(model) if write else router.db_for_read(model)
    return model._default_manager.db_manager(db)


Items = TypeVar("Items")

PAGE_TABLE_NAME_LENGTH = 64  # SitemapPage.section's max_length


def narrows_per_site(sitemap: Sitemap) -> bool:
    return type(sitemap).for_site is not Sitemap.for_site


def on_current_site(sitemap: Sitemap, items: Items) -> Items:
    """``items`` as the current site lists them: ``for_site()``'s, when a site is rendering."""
    site = current_site()
    if site is None or not narrows_per_site(sitemap):
        return items
    return sitemap.for_site(items, site)  # type: ignore[no-any-return]


def page_table_name(sitemap: Sitemap) -> str:
    """The name the section's page boundaries are recorded under: per site where its rows are."""
    site = current_site()
    if site is None or not narrows_per_site(sitemap):
        return sitemap.name
    name = f"{sitemap.name}@{site.name}"
    if len(name) <= PAGE_TABLE_NAME_LENGTH:
        return name
    digest = hashlib.sha256(name.encode()).hexdigest()[:16]
    return f"{name[: PAGE_TABLE_NAME_LENGTH - 17]}~{digest}"
