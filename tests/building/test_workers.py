"""The forked page worker of full builds: same files as a serial build, and forked only where safe.

The worker reads through its own connections, so another process must open
the test's database: PostgreSQL and MariaDB (the test database, committed by
``django_db(transaction=True)``). pytest-django's SQLite test database is in
memory, which no other process can open: there the builds that fork skip,
and the checks of where a build must not fork still run.
"""

from __future__ import annotations

import contextlib
import datetime
import json
import multiprocessing
import os
import signal
import threading
import time
import traceback
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from django.db import connection, connections, transaction

import django_sitemapkit as sitemapkit
from django_sitemapkit.building import workers
from django_sitemapkit.engine import entries, sections
from django_sitemapkit.engine.pages import PageNotFound
from django_sitemapkit.engine.rendering import make_context
from django_sitemapkit.models import SitemapPage
from django_sitemapkit.publishing.manifest import MANIFEST_NAME
from tests.building.builds import T0, build
from tests.testapp.models import Article, Event

pytestmark = pytest.mark.django_db(transaction=True)

IN_MEMORY = (
    "the SQLite test database is in memory, which the forked worker cannot open: "
    "runs on PostgreSQL and MariaDB (DATABASE_URL; .ci/run steps 2 and 3)"
)
ROWS = 3000
# Manifest fields that differ between any two builds.
PER_BUILD = ("generation", "built_at", "seconds")


@pytest.fixture
def forkable(monkeypatch: pytest.MonkeyPatch) -> None:
    """Skip where no worker can be forked; else let a build of a few thousand rows fork one."""
    if connection.vendor == "sqlite" and connection.is_in_memory_db():
        pytest.skip(IN_MEMORY)
    if not hasattr(os, "fork"):
        pytest.skip("no os.fork on this platform")
    if len(os.sched_getaffinity(0)) < 2:
        pytest.skip("one CPU: a worker would not help, so none is forked")
    monkeypatch.setattr(workers, "MIN_ROWS", 1000)


@pytest.fixture
def articles(sitemaps: Any) -> Any:
    """3,000 articles in pages of 250."""

    @sitemapkit.register(Article)
    class ArticleSitemap(sitemapkit.ModelSitemap):
        limit = 250

    Article.objects.bulk_create(
        Article(slug=f"a{i}", updated_at=T0 + datetime.timedelta(minutes=i)) for i in range(ROWS)
    )
    return sitemaps


@dataclass
class Built:
    result: Any
    files: dict[str, bytes]
    # Child processes seen as each page was done.
    children: list[int]


def full_build(settings: Any, folder: Path, *, parallel: bool) -> Built:
    """A full build into ``folder``, on a page table cut afresh as a first build's is."""
    settings.SITEMAPKIT = {
        **settings.SITEMAPKIT,
        "BUILD_DIR": str(folder),
        "PARALLEL_BUILD": parallel,
    }
    SitemapPage.objects.all().delete()
    children: list[int] = []
    result = build(
        full=True,
        progress=lambda done, total: children.append(len(multiprocessing.active_children())),
    )
    current = folder / "current"
    files = {p.name: p.read_bytes() for p in current.iterdir()}
    manifest = json.loads(files.pop(MANIFEST_NAME))
    for name in PER_BUILD:
        manifest.pop(name)
    files[MANIFEST_NAME] = json.dumps(manifest, sort_keys=True).encode()
    return Built(result, files, children)


def counts(result: Any) -> tuple[int, ...]:
    return (result.urls, result.skipped, result.images_dropped, result.lastmods_dropped)


def renders_by_process(monkeypatch: pytest.MonkeyPatch, log: Path) -> None:
    """Log the process rendering each page: set before the fork, the worker inherits it."""
    real = sections.render_sitemap_page

    def logged(sitemap: Any, number: int, context: Any) -> Any:
        with log.open("a") as file:
            file.write(f"{os.getpid()} {sitemap.name} {number}\n")
        return real(sitemap, number, context)

    monkeypatch.setattr(sections, "render_sitemap_page", logged)


def rendered_elsewhere(log: Path) -> list[tuple[str, int]]:
    """The pages another process than this one rendered."""
    lines = [line.split() for line in log.read_text().splitlines()]
    return sorted((name, int(n)) for pid, name, n in lines if int(pid) != os.getpid())


@pytest.mark.parametrize("gzip", [True, False], ids=["gzip", "no-gzip"])
def test_a_parallel_full_build_writes_the_files_a_serial_one_does(
    forkable: None,
    articles: Any,
    settings: Any,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    gzip: bool,
) -> None:
    settings.SITEMAPKIT = {**settings.SITEMAPKIT, "GZIP": gzip}
    serial = full_build(settings, tmp_path / "serial", parallel=False)
    log = tmp_path / "renders.log"
    renders_by_process(monkeypatch, log)
    parallel = full_build(settings, tmp_path / "parallel", parallel=True)
    # 12 pages and the index, each with its .gz if on.
    assert len([n for n in serial.files if n.endswith(".xml")]) == 13
    assert len([n for n in serial.files if n.endswith(".xml.gz")]) == (13 if gzip else 0)
    assert parallel.files == serial.files
    assert counts(parallel.result) == counts(serial.result) == (ROWS, 0, 0, 0)
    # One worker while the pages were done, none left after; none in a serial build.
    assert set(serial.children) == {0}
    assert set(parallel.children) == {1}
    assert multiprocessing.active_children() == []
    # The worker rendered pages from the front (how many depends on the machine's load).
    elsewhere = rendered_elsewhere(log)
    assert 1 <= len(elsewhere) < 12
    assert elsewhere == [("testapp-article", n) for n in range(1, len(elsewhere) + 1)]


@pytest.fixture
def awkward(sitemaps: Any, monkeypatch: pytest.MonkeyPatch) -> Any:
    """Articles whose first page overflows a small file, whose second page lists none
    (every slug unroutable), and slugs to escape; events without a lastmod."""

    @sitemapkit.register(Article)
    class ArticleSitemap(sitemapkit.ModelSitemap):
        limit = 200

    class EventSitemap(sitemapkit.ModelSitemap):
        lastmod_field = "modified"
        limit = 20

    sitemapkit.register(Event, EventSitemap)
    monkeypatch.setattr(entries, "MAX_BYTES_PER_FILE", 100_000)
    odd = ["a b&c<d>'\"", "ünï-cødé", "%zz%41", "..", "x" * 1500, "", "tab\there", "q?x=1#f"]

    def slug(i: int) -> str:
        if i < 200:
            return f"long-{i}-" + "l" * 1000  # page 1: about 220 kB in a file of 100 kB
        if i < 400:
            return f"no/route/{i}"  # page 2: every row skipped (no URL pattern takes a /)
        return odd[i % len(odd)] + str(i) if i % 7 == 0 else f"a{i}"

    Article.objects.bulk_create(
        Article(slug=slug(i), updated_at=T0 + datetime.timedelta(minutes=i)) for i in range(ROWS)
    )
    Event.objects.bulk_create(
        Event(url=f"/events/{i}/", modified=None if i % 3 else T0.date()) for i in range(50)
    )
    Event.objects.create(url="javascript:alert(1)", modified=None)
    return sitemaps


def test_skips_and_splits_in_the_worker_come_out_as_in_a_serial_build(
    forkable: None,
    awkward: Any,
    settings: Any,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    serial = full_build(settings, tmp_path / "serial", parallel=False)
    serial_pages = sorted(SitemapPage.objects.values_list("section", "number", "start_key"))
    log = tmp_path / "renders.log"
    renders_by_process(monkeypatch, log)
    parallel = full_build(settings, tmp_path / "parallel", parallel=True)
    assert parallel.files == serial.files
    assert counts(parallel.result) == counts(serial.result)
    # Page 2's 200 rows and the javascript: event.
    assert serial.result.skipped == 201
    # The overflowing first page was split, the same way, by the worker.
    assert sorted(SitemapPage.objects.values_list("section", "number", "start_key")) == (
        serial_pages
    )
    elsewhere = rendered_elsewhere(log)
    # The worker rendered (so split) the overflowing page 1, and the page with no URL.
    assert ("testapp-article", 1) in elsewhere
    assert ("testapp-article", 2) in elsewhere
    split_off = [n for section, n, _ in serial_pages if section == "testapp-article" and n > 15]
    assert split_off  # pages 16 on hold what did not fit on page 1
    assert multiprocessing.active_children() == []


def test_a_failure_in_the_worker_fails_the_build_and_publishes_nothing(
    forkable: None,
    articles: Any,
    settings: Any,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    full_build(settings, tmp_path / "sitemaps", parallel=False)
    current = os.readlink(tmp_path / "sitemaps" / "current")
    listing = sorted(os.listdir(tmp_path / "sitemaps"))
    real = sections.render_sitemap_page
    parent = os.getpid()

    def fails_in_the_worker(sitemap: Any, number: int, context: Any) -> Any:
        if os.getpid() != parent:
            raise RuntimeError(f"page {number} failed in the worker")
        return real(sitemap, number, context)

    monkeypatch.setattr(sections, "render_sitemap_page", fails_in_the_worker)
    with pytest.raises(workers.WorkerFailed, match="page 1 failed in the worker"):
        full_build(settings, tmp_path / "sitemaps", parallel=True)
    assert os.readlink(tmp_path / "sitemaps" / "current") == current
    assert sorted(os.listdir(tmp_path / "sitemaps")) == listing
    # The folder still holds the previous build's files.
    monkeypatch.setattr(sections, "render_sitemap_page", real)
    settings.SITEMAPKIT = {**settings.SITEMAPKIT, "PARALLEL_BUILD": False}
    assert build().written == []
    assert multiprocessing.active_children() == []


def test_a_full_build_forks_where_it_can(forkable: None, articles: Any) -> None:
    # The control of the next test: outside a transaction, one thread, rows enough.
    assert workers.worth_forking(ROWS)


@pytest.fixture
def other_thread() -> Iterator[None]:
    stop = threading.Event()
    thread = threading.Thread(target=stop.wait)
    thread.start()
    yield
    stop.set()
    thread.join()


@pytest.mark.parametrize(
    "where", ["in a transaction", "PARALLEL_BUILD off", "below MIN_ROWS", "another thread"]
)
def test_no_worker_where_it_would_not_be_safe_or_worth_it(
    where: str,
    articles: Any,
    settings: Any,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    request: pytest.FixtureRequest,
) -> None:
    monkeypatch.setattr(workers, "MIN_ROWS", ROWS + 1 if where == "below MIN_ROWS" else 1000)
    if where == "another thread":
        request.getfixturevalue("other_thread")
    parallel = where != "PARALLEL_BUILD off"
    with transaction.atomic() if where == "in a transaction" else contextlib.nullcontext():
        settings.SITEMAPKIT = {**settings.SITEMAPKIT, "PARALLEL_BUILD": parallel}
        assert not workers.worth_forking(ROWS)
        built = full_build(settings, tmp_path / "sitemaps", parallel=parallel)
    assert built.result.urls == ROWS
    assert set(built.children) == {0}


def test_no_worker_on_an_in_memory_sqlite_database(
    awkward: Any, settings: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if not (connection.vendor == "sqlite" and connection.is_in_memory_db()):
        pytest.skip("the test database is not an in-memory SQLite one")
    monkeypatch.setattr(workers, "MIN_ROWS", 1)
    serial = full_build(settings, tmp_path / "serial", parallel=False)
    parallel = full_build(settings, tmp_path / "parallel", parallel=True)
    assert sorted(parallel.files) == sorted(serial.files)
    assert parallel.files == serial.files
    assert set(parallel.children) == {0}
    assert not workers.worth_forking(ROWS)


class FakeWorker:
    """PageWorker's side of the pipe, in this process: it takes pages from the front and
    renders them when received; ``ready()`` answers as ``readiness`` says, in turn."""

    def __init__(self, sitemap: Any, context: Any, readiness: list[bool]) -> None:
        self.sitemap, self.context, self.readiness = sitemap, context, readiness
        self.polls = 0
        self.rendered: list[int] = []

    def share(self, section: str, numbers: list[int]) -> None:
        assert section == self.sitemap.name
        self.numbers, self.front, self.back = numbers, 0, len(numbers) - 1

    def take_last(self) -> int | None:
        if self.front > self.back:
            return None
        self.back -= 1
        return self.back + 1

    def ready(self) -> bool:
        self.polls += 1
        return self.readiness[(self.polls - 1) % len(self.readiness)]

    def receive(self) -> tuple[int, Any] | None:
        if self.front > self.back:
            return None
        index, self.front = self.front, self.front + 1
        self.rendered.append(self.numbers[index])
        page = workers._rendered(self.sitemap, self.numbers[index], self.context, False)
        if isinstance(page, PageNotFound):  # as the pipe brings it: by index
            page = PageNotFound(index, skipped=page.skipped)
        return index, page


@pytest.mark.parametrize("pages", [0, 1, 2, 5])
@pytest.mark.parametrize(
    "readiness",
    [[True], [False], [True, False], [False, False, True]],
    ids=["worker-ahead", "worker-behind", "every-other", "one-in-three"],
)
def test_render_shared_yields_every_page_once(
    sitemaps: Any, pages: int, readiness: list[bool]
) -> None:
    @sitemapkit.register(Article)
    class ArticleSitemap(sitemapkit.ModelSitemap):
        limit = 2

    # Two rows a page; the third page's unroutable: it has no URL to list.
    Article.objects.bulk_create(
        Article(slug=f"no/{i}" if i // 2 == 2 else f"a{i}", updated_at=T0)
        for i in range(2 * (pages + 1))
    )
    sitemap = sitemaps._registry["testapp-article"]
    context = make_context("https://www.example.com", sitemaps.name)
    # Page numbers are not list indexes: the list starts at page 2.
    numbers = list(range(2, pages + 2))
    worker = FakeWorker(sitemap, context, readiness)
    shared = list(workers.render_shared(worker, sitemap, context, numbers))  # type: ignore[arg-type]
    assert sorted(number for number, _ in shared) == numbers
    for number, page in shared:
        if number == 3:
            assert isinstance(page, PageNotFound)
            assert (page.args[0], page.skipped) == (3, 2)
        else:
            assert page.url_count == 2
    # The worker's pages from the front, in order; this process's from the back.
    here = [number for number, _ in shared if number not in worker.rendered]
    assert worker.rendered == numbers[: len(worker.rendered)]
    assert here == numbers[len(worker.rendered) :][::-1]
    if readiness == [True]:
        assert worker.rendered == numbers
    if readiness == [False]:
        assert here == numbers[::-1]


def test_a_killed_worker_fails_the_build_instead_of_hanging_it(
    forkable: None,
    articles: Any,
    settings: Any,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real = sections.render_sitemap_page
    parent = os.getpid()

    def killed_in_the_worker(sitemap: Any, number: int, context: Any) -> Any:
        if os.getpid() != parent:
            os.kill(os.getpid(), signal.SIGKILL)
        return real(sitemap, number, context)

    monkeypatch.setattr(sections, "render_sitemap_page", killed_in_the_worker)
    with pytest.raises(workers.WorkerFailed, match="ended"):
        full_build(settings, tmp_path / "sitemaps", parallel=True)
    assert not (tmp_path / "sitemaps" / "current").exists()
    assert multiprocessing.active_children() == []


def test_a_full_build_in_a_daemonic_process_still_works(
    forkable: None,
    articles: Any,
    settings: Any,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    settings.SITEMAPKIT = {**settings.SITEMAPKIT, "BUILD_DIR": str(tmp_path / "sitemaps")}
    failure = tmp_path / "failure.txt"

    def run() -> None:
        try:
            build(full=True)
        except BaseException:
            failure.write_text(traceback.format_exc())
            os._exit(1)
        os._exit(0)

    # A daemonic process, as django-q's workers are (its connections its own).
    connections.close_all()
    daemon = multiprocessing.get_context("fork").Process(target=run, daemon=True)
    daemon.start()
    daemon.join(60)
    assert daemon.exitcode == 0, failure.read_text() if failure.exists() else daemon.exitcode
    assert (tmp_path / "sitemaps" / "current").exists()


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie nobody reaps does not)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"


def test_a_killed_build_leaves_no_worker_behind(
    forkable: None,
    articles: Any,
    settings: Any,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    settings.SITEMAPKIT = {**settings.SITEMAPKIT, "BUILD_DIR": str(tmp_path / "sitemaps")}
    log = tmp_path / "renders.log"
    real = sections.render_sitemap_page

    def slow(sitemap: Any, number: int, context: Any) -> Any:
        with log.open("a") as file:
            file.write(f"{os.getpid()} {sitemap.name} {number}\n")
        time.sleep(0.5)
        return real(sitemap, number, context)

    monkeypatch.setattr(sections, "render_sitemap_page", slow)
    log.touch()
    connections.close_all()
    builder = multiprocessing.get_context("fork").Process(target=lambda: build(full=True))
    builder.start()
    worker = None
    try:
        for _ in range(200):
            pids = {int(line.split()[0]) for line in log.read_text().splitlines()}
            if pids - {builder.pid}:
                [worker] = pids - {builder.pid}
                break
            time.sleep(0.05)
        assert worker is not None
        os.kill(builder.pid, signal.SIGKILL)  # type: ignore[arg-type]
        builder.join()
        for _ in range(100):
            if not alive(worker):
                break
            time.sleep(0.1)
        assert not alive(worker)
    finally:
        if worker is not None and alive(worker):
            os.kill(worker, signal.SIGKILL)
