"""Where the cuts between pages are recorded: the ``SitemapPage`` table.

Whichever process cuts a section's pages records the cuts if it can write the
table: a build, and a web process serving the index or a page. A process that
cannot (a read-only role, a replica) makes the same cuts in memory, the same
way, so the files it serves do not depend on who recorded what; they only
stop being stable across edits until a process that can write records them.
Nothing is recorded for a section that was never cut: its one page is open on
both sides. No row is ever locked; see ``PageManager.record``.
"""

from __future__ import annotations

import enum
import logging
from collections.abc import Sequence
from dataclasses import dataclass

from django.apps import apps
from django.db import DatabaseError, IntegrityError, connections, models, router, transaction

from django_sitemapkit.engine.internals import bound_alias

logger = logging.getLogger("django_sitemapkit")


@dataclass(frozen=True)
class Page:
    """Page ``number``: the rows whose key lies in ``[start_key, end_key)``.

    Keys are in their text form, as recorded; None leaves that side open.
    """

    number: int
    start_key: str | None = None
    end_key: str | None = None


# The one page of a section nothing was recorded for. A first cut records it
# along with the page it splits off, so a missing page 1 means nothing is.
FIRST_PAGE = Page(1)


class Recording(enum.Enum):
    """How recording pages went."""

    RECORDED = enum.auto()
    # Another process changed the pages since they were read.
    CONFLICT = enum.auto()
    # The connection may not write the table.
    REFUSED = enum.auto()


class _ChangedMeanwhile(Exception):
    """A page no longer has the bounds it was read with: roll the recording back."""


# Per vendor, a query answering whether the table (its quoted name for each
# %s) may be written: the role's privileges and a read-only session on
# PostgreSQL, a query-only connection on SQLite, a read-only server (a
# replica) on MySQL and MariaDB.
_WRITABLE = {
    "postgresql": "SELECT current_setting('transaction_read_only') = 'off'"
    " AND has_table_privilege(%s, 'INSERT') AND has_table_privilege(%s, 'UPDATE')",
    "sqlite": "SELECT NOT query_only FROM pragma_query_only()",
    "mysql": "SELECT NOT @@read_only",
}


class PageManager(models.Manager[models.Model]):
    """Reads and records sections' pages; without ``db_manager()``, on the router's database."""

    def pages(self, section: str) -> list[Page]:
        """The recorded pages of ``section``, in number order."""
        rows = self.filter(section=section).order_by("number")
        return [Page(*row) for row in rows.values_list("number", "start_key", "end_key")]

    def page(self, section: str, number: int) -> Page | None:
        rows = self.filter(section=section, number=number).values_list("start_key", "end_key")
        found = rows.first()
        return None if found is None else Page(number, *found)

    def writable(self) -> bool:
        """Whether the table may be written, where the database tells without a write.

        PostgreSQL logs every refused statement as an ERROR in the server's
        log, so it is asked first, as the other databases are where they can
        tell; a refused write is caught all the same (see ``record``).
        """
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
        """Make the recorded pages of ``section``, read as ``before``, into ``after``.

        Pages only split: a page of ``before`` keeps its number and start and
        may end lower; a page not in ``before`` is new. No row is locked: a
        page is updated only if it still has the bounds it was read with, and
        numbers are unique, so a process that changed the pages meanwhile
        makes the whole recording fail (CONFLICT) rather than leave pages
        that overlap. Where the connection may not write (a read-only role,
        a replica), REFUSED; a refusal ``writable()`` did not foresee is
        caught in a savepoint, which leaves the caller's transaction usable.
        """
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
    """The table on the database the router gives for reads, or for writes.

    Pages read to be changed are read where they are written. Looked up by
    name: pages.py imports this module while apps load, before models may be.
    """
    model = apps.get_model("django_sitemapkit", "SitemapPage")
    db = router.db_for_write(model) if write else router.db_for_read(model)
    return model._default_manager.db_manager(db)
