"""A second process rendering pages while the build's own process renders others.

Rendering a page is Python work on one core: reading rows and writing XML
hold the GIL. A build with many rows to render forks one worker process at
its start (while it is still single-threaded). For each section, the worker
takes pages from the front of the list and the build's process from the
back, until they meet; the worker sends each page back (compressed too,
with gzip) as its raw pieces, which the build writes with its own. Both
cores work, for the same bytes, and the build holds at most one of the
worker's pages at a time.

The worker reads through its own database connections, so it is only used
where another connection sees what the build's sees (see ``worth_forking``): not
inside a transaction, not on a private in-memory SQLite database. ``fork``
is POSIX's; elsewhere, or with ``SITEMAPKIT["PARALLEL_BUILD"] = False``,
every page is rendered in the build's process.
"""

from __future__ import annotations

import contextlib
import dataclasses
import multiprocessing
import os
import queue
import threading
import traceback
from collections.abc import Iterator
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from typing import Any

from django.db import connections
from django.db.backends.base.base import BaseDatabaseWrapper

from django_sitemapkit.building.resilient import rendered_one_by_one
from django_sitemapkit.conf import get_settings
from django_sitemapkit.engine.entries import RenderContext
from django_sitemapkit.engine.pages import PageNotFound
from django_sitemapkit.engine.rendering import SectionRegistry
from django_sitemapkit.engine.sections import RenderedPage
from django_sitemapkit.sitemaps import Sitemap

# Rows to render below which a worker costs more (forking, connecting) than it saves.
MIN_ROWS = 100_000


class WorkerFailed(RuntimeError):
    """The worker process raised, or died; the message holds its traceback."""


class PageWorker:
    """The forked process rendering pages for this build; ``close()`` ends it."""

    def __init__(self, process: BaseProcess, conn: Connection, lock: Any, ends: Any) -> None:
        self._process = process
        self._conn = conn
        self._lock = lock
        # The next page index from the front (the worker's) and from the back (ours).
        self._ends = ends

    @classmethod
    def start(
        cls, sitemaps: SectionRegistry, context: RenderContext, *, gzip: bool, rows: int
    ) -> PageWorker | None:
        """A worker for a build rendering ``rows`` rows, or None where it would not help."""
        if not worth_forking(rows):
            return None
        # Neither process may use a connection opened before the fork.
        connections.close_all()
        fork = multiprocessing.get_context("fork")
        ours, theirs = fork.Pipe()
        lock = fork.Lock()
        ends = fork.Array("l", 2, lock=False)
        process = fork.Process(
            target=_serve,
            args=(theirs, ours, lock, ends, sitemaps, context, gzip),
            name="sitemapkit-worker",
            daemon=True,
        )
        try:
            process.start()
        except OSError:  # no memory or processes left for a fork: render alone
            ours.close()
            return None
        finally:
            theirs.close()
        return cls(process, ours, lock, ends)

    def share(self, section: str, numbers: list[int]) -> None:
        """Start on pages ``numbers`` of ``section``: the worker from the front."""
        with self._locked():
            self._ends[0], self._ends[1] = 0, len(numbers) - 1
        self._conn.send((section, numbers))

    def take_last(self) -> int | None:
        """The index of the last page nobody has taken, now ours; None when none is left."""
        with self._locked():
            front, back = self._ends[0], self._ends[1]
            if front > back:
                return None
            self._ends[1] = back - 1
            return int(back)

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        # A worker killed while it held the lock would hold it for ever.
        while not self._lock.acquire(timeout=1):
            if not self._process.is_alive():
                raise WorkerFailed("The build's worker process ended while it held the lock.")
        try:
            yield
        finally:
            self._lock.release()

    def ready(self) -> bool:
        return self._conn.poll()

    def receive(self) -> tuple[int, RenderedPage | PageNotFound] | None:
        """The worker's next page (by index), or None when it has taken its last."""
        try:
            message = self._conn.recv()
            if message is None:
                return None
            kind, index, value = message
            if kind == "failed":
                raise WorkerFailed(f"The build's worker process failed:\n{value}")
            if kind == "missing":
                return index, PageNotFound(index, skipped=value)
            content = self._conn.recv_bytes()
        except (EOFError, OSError) as exc:
            raise WorkerFailed(f"The build's worker process ended: {exc!r}") from exc
        page = dataclasses.replace(value, content=content)
        return index, page

    def close(self) -> None:
        with contextlib.suppress(OSError):  # the worker is gone already
            self._conn.send(None)
        # A worker still sending pages nobody reads (the build failed) ends on the closed pipe.
        self._conn.close()
        self._process.join(timeout=5)
        if self._process.is_alive():
            self._process.terminate()
            self._process.join()


def worth_forking(rows: int) -> bool:
    """Whether a build rendering ``rows`` rows gains from a worker process."""
    if not get_settings().PARALLEL_BUILD or rows < MIN_ROWS or not hasattr(os, "fork"):
        return False
    # A fork copies only the forking thread: any other's locks would stay held.
    # A daemonic process (a multiprocessing pool's worker) may not have children.
    if threading.active_count() > 1 or multiprocessing.current_process().daemon:
        return False
    return all(
        not connection.in_atomic_block
        and connection.get_autocommit()
        and not _in_memory(connection)
        for connection in connections.all(initialized_only=True)
    )


def _in_memory(connection: BaseDatabaseWrapper) -> bool:
    """Whether ``connection`` is to an in-memory SQLite database, which another process cannot
    open (threads can share one with ``cache=shared``)."""
    if connection.vendor != "sqlite":
        return False
    is_in_memory_db = getattr(connection.creation, "is_in_memory_db", None)
    return bool(is_in_memory_db and is_in_memory_db(connection.settings_dict["NAME"]))


def render_shared(
    worker: PageWorker, sitemap: Sitemap, context: RenderContext, numbers: list[int]
) -> Iterator[tuple[int, RenderedPage | PageNotFound]]:
    """Pages ``numbers``, shared: the worker's from the front, this process's from the back
    whenever none of the worker's is waiting."""
    if not numbers:
        return
    worker.share(sitemap.name, numbers)
    while True:
        index = None if worker.ready() else worker.take_last()
        if index is not None:
            yield from rendered_one_by_one(sitemap, context, [numbers[index]])
            continue
        received = worker.receive()
        if received is None:
            return
        index, page = received
        del received
        if isinstance(page, PageNotFound):
            page = PageNotFound(numbers[index], skipped=page.skipped)
        yield numbers[index], page
        # Not held while the next page renders: a page is megabytes.
        del page


def _serve(
    conn: Connection,
    builds_end: Connection,
    lock: Any,
    ends: Any,
    sitemaps: SectionRegistry,
    context: RenderContext,
    gzip: bool,
) -> None:
    """The worker: pages from the front of each section it is given, sent by a second thread
    so that the next is rendered while one is read."""
    # The build's end of the pipe, inherited: closed, so that the build's
    # death (even by SIGKILL) ends the worker's reads.
    builds_end.close()
    outbox: queue.Queue[Any] = queue.Queue(maxsize=1)
    sender = threading.Thread(target=_send_all, args=(conn, outbox), daemon=True)
    sender.start()
    try:
        while (task := conn.recv()) is not None:
            section, numbers = task
            sitemap = next(sitemap for sitemap in sitemaps if sitemap.name == section)
            while (index := _take_first(lock, ends)) is not None:
                outbox.put((index, _rendered(sitemap, numbers[index], context, gzip)))
            outbox.put(None)
    except BaseException:
        outbox.put(("failed", traceback.format_exc()))
    finally:
        outbox.put(StopIteration)
        sender.join()
        connections.close_all()


def _take_first(lock: Any, ends: Any) -> int | None:
    with lock:
        front, back = ends[0], ends[1]
        if front > back:
            return None
        ends[0] = front + 1
        return int(front)


def _rendered(sitemap: Sitemap, number: int, context: RenderContext, gzip: bool) -> Any:
    [(_, page)] = rendered_one_by_one(sitemap, context, [number])
    return page


def _send_all(conn: Connection, outbox: queue.Queue[Any]) -> None:
    try:
        _send_each(conn, outbox)
    except OSError:
        # The build is gone (killed, or failed): nobody wants the pages.
        os._exit(1)


def _send_each(conn: Connection, outbox: queue.Queue[Any]) -> None:
    while (item := outbox.get()) is not StopIteration:
        if item is None:
            conn.send(None)
        elif item[0] == "failed":
            conn.send(("failed", -1, item[1]))
        else:
            index, page = item
            if isinstance(page, PageNotFound):
                conn.send(("missing", index, page.skipped))
                continue
            # The bytes follow the page down the pipe, without a pickled copy.
            conn.send(("page", index, dataclasses.replace(page, content=b"")))
            conn.send_bytes(page.content)
