"""Builds as separate processes on a real project: SIGKILL at random moments, and two at once.

Runs the example project's own manage.py on a file SQLite database, as a
deploy script would. The filesystem guarantees do not depend on the database,
so these tests run once, on SQLite.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from lxml import etree

from tests.utils import NS, parse_index, parse_urlset, path_of

REPO = Path(__file__).resolve().parents[2]
MANAGE = REPO / "example_project" / "manage.py"

pytestmark = pytest.mark.skipif(
    bool(os.environ.get("DATABASE_URL")), reason="filesystem behaviour: run once, on SQLite"
)


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    root = tmp_path_factory.mktemp("project")
    env = {
        **os.environ,
        "DATABASE_URL": f"sqlite:///{root / 'db.sqlite3'}",
        "CACHE_URL": "locmemcache://",
        "SITEMAPKIT_BASE_URL": "https://www.example.com",
        "SITEMAPKIT_BUILD_DIR": str(root / "sitemaps"),
        "DJANGO_SETTINGS_MODULE": "example_project.settings",
    }
    manage(env, "migrate", "--verbosity=0")
    manage(env, "seed_demo", "--count", "20000")
    return env


def manage(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(MANAGE), *args], env=env, capture_output=True, text=True, check=True
    )


def start_build(env: dict[str, str], *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, str(MANAGE), "sitemapkit_build", "--skip-checks", *args],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def check_generation(root: Path) -> int:
    """Read the published set as a reader pinned to one generation; return its files' count."""
    try:
        target = os.readlink(root / "current")
    except FileNotFoundError:
        return 0
    generation = root / target
    manifest = json.loads((generation / "sitemapkit-manifest.json").read_bytes())
    expected = {f"sitemap-{p['section']}-{p['number']}.xml": p["sha256"] for p in manifest["pages"]}
    index = (generation / "sitemap.xml").read_bytes()
    assert hashlib.sha256(index).hexdigest() == manifest["index_sha256"]
    names = [path_of(loc).lstrip("/") for loc, _ in parse_index(index)]
    assert sorted(names) == sorted(expected)
    for name in names:
        data = (generation / name).read_bytes()
        # Same generation: the bytes are the ones its manifest recorded.
        assert hashlib.sha256(data).hexdigest() == expected[name], name
        assert gzip.decompress((generation / (name + ".gz")).read_bytes()) == data
        etree.fromstring(data)  # complete, well-formed XML
    return len(names)


def stored(root: Path) -> set[str]:
    """Every file, folder and symlink under ``root``, as paths relative to it."""
    found = set()
    for directory, dirs, files in os.walk(root):
        for name in dirs + files:
            found.add((Path(directory) / name).relative_to(root).as_posix())
    return found


def kept(root: Path) -> set[str]:
    """What a local folder keeps (docs/building.md, "Atomic publish"): the lock file, ``current``,
    and the current and previous generations, each holding exactly its manifest's files."""
    paths = {".sitemapkit-build.lock", "current", "generations"}
    current = json.loads((root / "current" / "sitemapkit-manifest.json").read_bytes())
    for generation in filter(None, [current["generation"], current["previous_generation"]]):
        folder = f"generations/{generation}"
        manifest = json.loads((root / folder / "sitemapkit-manifest.json").read_bytes())
        names = [f"sitemap-{p['section']}-{p['number']}.xml" for p in manifest["pages"]]
        names.append("sitemap.xml")
        names += [name + ".gz" for name in names] if manifest["gzip"] else []
        # The stylesheet the files name, beside the index: sitemap.css or sitemap.xsl.
        names += [manifest["stylesheet"].rpartition("/")[2]] if manifest["stylesheet"] else []
        paths |= {folder} | {f"{folder}/{name}" for name in [*names, "sitemapkit-manifest.json"]}
    return paths


def check_through_symlink(root: Path) -> None:
    """Read as a web server does, resolving ``current`` on every file."""
    current = root / "current"
    if not current.exists():
        return
    index = etree.fromstring((current / "sitemap.xml").read_bytes())
    for loc in index.findall("sm:sitemap/sm:loc", NS):
        name = path_of(loc.text or "").lstrip("/")
        etree.fromstring((current / name).read_bytes())


def test_killed_builds_never_show_a_broken_set(project: dict[str, str]) -> None:
    root = Path(project["SITEMAPKIT_BUILD_DIR"])
    manage(project, "sitemapkit_build", "--skip-checks")
    # Validated here first, in the test's own thread: without the XSDs this is where the
    # test skips (or fails under CI). A skip raised in the reader thread below would only be
    # collected as one more exception there.
    assert check_generation(root) > 0
    started = time.perf_counter()
    manage(project, "sitemapkit_build", "--skip-checks", "--full")
    duration = time.perf_counter() - started

    failures: list[BaseException] = []
    reads = 0
    stop = threading.Event()

    def reader() -> None:
        nonlocal reads
        while not stop.is_set():
            try:
                assert check_generation(root) > 0
                check_through_symlink(root)
                reads += 1
            except BaseException as exc:  # reported by the main thread
                failures.append(exc)
                return

    thread = threading.Thread(target=reader)
    thread.start()
    rng = random.Random(2026)
    try:
        for _ in range(20):
            process = start_build(project, "--full")
            time.sleep(rng.uniform(0.05, duration * 1.1))
            process.send_signal(signal.SIGKILL)
            process.wait()
    finally:
        stop.set()
        thread.join()
    if failures:  # the reader stops at its first failure: raised here, with its traceback
        raise failures[0]
    assert reads > 20

    result = manage(project, "sitemapkit_build", "--skip-checks", "--full")
    assert "files written" in result.stdout
    # Nothing the killed builds left: only what docs/building.md says a folder keeps.
    assert stored(root) == kept(root)
    count = check_generation(root)
    for name in [p.name for p in (root / "current").glob("sitemap-*.xml")][:3]:
        parse_urlset((root / "current" / name).read_bytes())
    assert count == len(list((root / "current").glob("sitemap-*.xml")))


def test_two_builds_at_once(project: dict[str, str]) -> None:
    """Started together: one valid set, and no error but the clear message of one that stopped."""
    root = Path(project["SITEMAPKIT_BUILD_DIR"])
    processes = [start_build(project, "--full"), start_build(project, "--full")]
    results = [(*p.communicate(), p.returncode) for p in processes]
    for stdout, stderr, code in results:
        if code == 0:
            assert "files written" in stdout
        else:
            assert code == 1, results
            assert "Another sitemapkit_build is publishing" in stderr
            assert "Traceback" not in stderr
    assert 0 in [code for *_, code in results]
    assert check_generation(root) > 0


def test_a_second_build_stops_while_one_is_publishing(project: dict[str, str]) -> None:
    """The overlap made certain: the first build is frozen while it holds the lock."""
    root = Path(project["SITEMAPKIT_BUILD_DIR"])
    lock = root / ".sitemapkit-build.lock"
    first = start_build(project, "--full")
    deadline = time.monotonic() + 60
    while f"pid {first.pid} " not in (lock.read_text() if lock.exists() else ""):
        assert time.monotonic() < deadline, "the first build never took the lock"
        time.sleep(0.01)
    first.send_signal(signal.SIGSTOP)
    try:
        second = start_build(project, "--full")
        _stdout, stderr = second.communicate(timeout=120)
    finally:
        first.send_signal(signal.SIGCONT)
    assert second.returncode == 1
    assert "Another sitemapkit_build is publishing" in stderr
    assert f"pid {first.pid}" in stderr
    assert "Traceback" not in stderr
    stdout, _stderr = first.communicate(timeout=120)
    assert first.returncode == 0
    assert "files written" in stdout
    assert check_generation(root) > 0
