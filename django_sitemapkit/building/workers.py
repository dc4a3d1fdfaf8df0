"""A second process rendering pages while the build's own process renders others.

Rendering a page is Python work on one core: reading rows and writing XML
hold the GIL. A build with many rows to render forks one worker process at
its start (while it is still single-threaded), which renders and compresses
every other page of a section and sends them back whole; the build's process
renders the rest, and writes all of them in order. Both cores work, for the
same bytes.

The worker reads through its own database connections, so it is only used
where another connection sees what the build's sees (see rangestats.py): not
inside a transaction, not on a private in-memory SQLite database. ``fork``
is POSIX's; elsewhere, or with ``SITEMAPKIT["PARALLEL_BUILD"] = False``,
every page is rendered in the build's process.
"""

from __future__ import annotations

import collections
import multiprocessing
import os
import threading
from collections.abc import Iterator
from multiprocessing.pool import AsyncResult, Pool

from django.db import connections

from django_sitemapkit.building.resilient import rendered_one_by_one
from django_sitemapkit.conf import get_settings
from django_sitemapkit.engine.entries import RenderContext
from django_sitemapkit.engine.pages import PageNotFound
from django_sitemapkit.engine.rangestats import second_connection_sees_the_same
from django_sitemapkit.engine.rendering import Sections
from django_sitemapkit.engine.sections import RenderedPage
from django_sitemapkit.protocol.deflate import compress_pieces
from django_sitemapkit.sitemaps import Sitemap

# Rows to render below which a worker costs more (forking, connecting) than it saves.
MIN_ROWS = 100_000
# Pages queued for the worker: one being rendered, one ready to start.
WORKER_QUEUE = 2

# What the forked worker renders with: set just before the fork, inherited by it.
_inherited: tuple[Sections, RenderContext, bool] | None = None


class PageWorker:
    """The forked process rendering pages for this build; ``close()`` ends it."""

    def __init__(self, pool: Pool) -> None:
        self._pool = pool

    @classmethod
    def start(
        cls, sitemaps: Sections, context: RenderContext, *, gzip: bool, rows: int
    ) -> PageWorker | None:
        """A worker for a build rendering ``rows`` rows, or None where it would not help."""
        global _inherited
        if not worth_forking(rows):
            return None
        # Neither process may use a connection opened before the fork.
        connections.close_all()
        _inherited = (sitemaps, context, gzip)
        try:
            pool = multiprocessing.get_context("fork").Pool(processes=1)
        finally:
            _inherited = None
        return cls(pool)

    def render(self, section: str, number: int) -> AsyncResult[RenderedPage | PageNotFound]:
        """Page ``number`` of ``section``, rendered (and compressed) by the worker."""
        return self._pool.apply_async(_render_in_worker, (section, number))

    def close(self) -> None:
        self._pool.terminate()
        self._pool.join()


def worth_forking(rows: int) -> bool:
    """Whether a build rendering ``rows`` rows gains from a worker process."""
    if not get_settings().PARALLEL_BUILD or rows < MIN_ROWS or not hasattr(os, "fork"):
        return False
    # A fork copies only the forking thread: any other's locks would stay held.
    if threading.active_count() > 1:
        return False
    return all(
        second_connection_sees_the_same(connection)
        for connection in connections.all(initialized_only=True)
    )


def render_shared(
    worker: PageWorker, sitemap: Sitemap, context: RenderContext, numbers: list[int]
) -> Iterator[tuple[int, RenderedPage | PageNotFound]]:
    """Pages ``numbers``, shared: the worker takes them from the front, two queued so it never
    waits, and this process from the back whenever none of the worker's is ready."""
    todo = collections.deque(numbers)
    queued: collections.deque[tuple[int, AsyncResult[RenderedPage | PageNotFound]]]
    queued = collections.deque()
    while todo or queued:
        while todo and len(queued) < WORKER_QUEUE:
            number = todo.popleft()
            queued.append((number, worker.render(sitemap.name, number)))
        if queued and (queued[0][1].ready() or not todo):
            number, result = queued.popleft()
            yield number, result.get()
        else:
            yield from rendered_one_by_one(sitemap, context, [todo.pop()])


def _render_here(
    sitemap: Sitemap, number: int, context: RenderContext
) -> RenderedPage | PageNotFound:
    [(_, page)] = rendered_one_by_one(sitemap, context, [number])
    return page


def _render_in_worker(section: str, number: int) -> RenderedPage | PageNotFound:
    assert _inherited is not None
    sitemaps, context, gzip = _inherited
    sitemap = next(sitemap for sitemap in sitemaps if sitemap.name == section)
    page = _render_here(sitemap, number, context)
    if gzip and isinstance(page, RenderedPage):
        page.compressed = compress_pieces(page.pieces)
    return page
