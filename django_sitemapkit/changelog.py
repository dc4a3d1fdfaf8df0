"""The change log (``SITEMAPKIT["CHANGE_LOG"]``): which rows changed since each build read it.

With the log on, every save or delete of a row a section lists notes the row's
key in the ``SitemapChange`` table, once for every *build target* that lists
the section: the registry's namespace, or the namespace and the site under
``SITEMAPKIT["SITES"]`` (each site is built on its own). An incremental build
reads its target's rows, renders only the pages holding those keys, and deletes
exactly the rows it read once its set is published. A row committed while a
build runs, whatever its id, is left for the next build: nothing is lost to a
transaction that commits late, and several targets never consume each other's
rows.

Writes that send no signals (``QuerySet.update()``, ``bulk_create()``, raw SQL)
are noted by ``invalidate()``: with ``pks``, those keys; without, a mark that
has the next build scan the whole section, as a build without the log does.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.apps import apps
from django.db import models, router, transaction

from django_sitemapkit.conf import get_settings
from django_sitemapkit.siteconfig import SiteConfig, SitesError, configured_sites

# Rows deleted per statement when a build consumes what it read.
DELETE_BATCH = 500


def build_target(namespace: str, site: SiteConfig | str | None) -> str:
    """The name a build's rows are noted under: its registry's, with its site's under SITES."""
    if site is None:
        return namespace
    return f"{namespace}@{site if isinstance(site, str) else site.name}"


def log_on() -> bool:
    return bool(get_settings().CHANGE_LOG)


def log_model() -> type[models.Model]:
    """``SitemapChange``, looked up by name: this module is imported while apps load."""
    return apps.get_model("django_sitemapkit", "SitemapChange")


def log_database() -> str:
    """The database the log is written to and read from (the router's, for writes)."""
    return router.db_for_write(log_model())


def _rows() -> models.QuerySet[Any]:
    return log_model()._default_manager.using(log_database())


def note(
    namespace: str, sections: Sequence[str], keys: Iterable[object] | None, *, using: str
) -> None:
    """Note ``keys`` (None: a scan of the whole section) for every target listing ``sections``.

    ``using`` is the database of the write noted: on the log's own database
    the rows join the write's transaction; on another one they are written
    once the write is committed, so that no build reads them before the data.
    """
    if not sections or not log_on():
        return
    texts: list[str | None] = [None] if keys is None else [str(key) for key in keys]
    model = log_model()
    rows = [
        model(target=target, section=section, key=text)
        for target, listed in _targets(namespace, sections)
        for section in listed
        for text in texts
    ]
    if not rows:
        return
    if log_database() == using:
        _rows().bulk_create(rows)
    else:
        transaction.on_commit(lambda: _rows().bulk_create(rows), using=using)


def _targets(namespace: str, sections: Sequence[str]) -> list[tuple[str, list[str]]]:
    """Each build target listing some of ``sections``, with those it lists."""
    try:
        sites = configured_sites()
    except SitesError:  # reported by system check E020; no build can run either
        return []
    if not sites:
        return [(build_target(namespace, None), list(sections))]
    listed = [(site, [name for name in sections if site.lists(name)]) for site in sites]
    return [(build_target(namespace, site), names) for site, names in listed if names]


@dataclass
class Changes:
    """What a build target's log holds: the keys noted per section, and the rows read."""

    target: str
    # Section -> the keys noted (text), or None where a scan was asked for.
    keys: dict[str, set[str] | None] = field(default_factory=dict)
    # The ids of the rows read, per section: exactly what consume() deletes.
    ids: dict[str, list[int]] = field(default_factory=dict)

    def of(self, section: str) -> set[str] | None:
        """The keys noted for ``section`` (empty: none); None: the section is to be scanned."""
        return self.keys.get(section, set())

    def consume(self, sections: Collection[str]) -> int:
        """Delete the rows read for ``sections``, once what they noted is published."""
        ids = sorted(id_ for section in sections for id_ in self.ids.get(section, ()))
        rows = _rows()
        for start in range(0, len(ids), DELETE_BATCH):
            rows.filter(pk__in=ids[start : start + DELETE_BATCH]).delete()
        return len(ids)


def read(target: str) -> Changes:
    """The rows noted for ``target`` so far."""
    changes = Changes(target)
    query = _rows().filter(target=target).order_by("id").values_list("id", "section", "key")
    for id_, section, key in query.iterator(chunk_size=2000):
        changes.ids.setdefault(section, []).append(id_)
        keys = changes.keys.setdefault(section, set())
        if keys is None:
            continue
        if key is None:
            changes.keys[section] = None
        else:
            keys.add(key)
    return changes
