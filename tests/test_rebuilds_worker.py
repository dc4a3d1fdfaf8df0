"""Background rebuilds end to end: a busy writer, the database tasks backend and its worker.

The writer and the worker are separate processes of a small project
(``tests/rebuilding/``) on one database: a file SQLite database by default,
the test database on PostgreSQL or MariaDB. The rows are counted in the
backend's own table and the published files are parsed, as an operator would.
"""

from __future__ import annotations

import itertools
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from django.db import connection

from tests.utils import parse_index, parse_urlset, path_of

REPO = Path(__file__).resolve().parents[1]
DEBOUNCE = 3
SAVES = 1000
SECONDS = 10.0


def run(env: dict[str, str], *args: str) -> str:
    completed = subprocess.run(
        [sys.executable, *args], env=env, cwd=REPO, capture_output=True, text=True, timeout=120
    )
    assert completed.returncode == 0, completed.stderr
    return completed.stdout


@pytest.fixture
def project(tmp_path: Path) -> dict[str, str]:
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "tests.rebuilding.settings",
        "PYTHONPATH": str(REPO),
        "SITEMAPKIT_BUILD_DIR": str(tmp_path / "sitemaps"),
        "SITEMAPKIT_REBUILD_DEBOUNCE": str(DEBOUNCE),
    }
    if connection.vendor == "sqlite":
        env["DATABASE_URL"] = f"sqlite:///{tmp_path / 'db.sqlite3'}"
    else:
        # The test database: the test commits (django_db(transaction=True)) so others see it.
        env["SITEMAPKIT_TEST_DB_NAME"] = str(connection.settings_dict["NAME"])
    run(env, "-m", "django", "migrate", "--verbosity=0")
    return env


@pytest.fixture
def worker(project: dict[str, str]) -> Iterator[subprocess.Popen[str]]:
    process = subprocess.Popen(
        [sys.executable, "-m", "django", "db_worker", "--interval=0.2", "--no-startup-delay"],
        env=project,
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        yield process
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def wait_for(check: Callable[[], Any], timeout: float) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value or time.monotonic() > deadline:
            return value
        time.sleep(0.5)


def published_urls(build_dir: Path, validate: Callable[..., Any]) -> list[str]:
    generation = build_dir / os.readlink(build_dir / "current")
    urls = []
    for loc, _ in parse_index((generation / "sitemap.xml").read_bytes()):
        page = (generation / path_of(loc).lstrip("/")).read_bytes()
        validate(page)
        urls.extend(url.loc for url in parse_urlset(page))
    return urls


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_a_thousand_commits_enqueue_a_handful_of_rebuilds_that_publish_every_row(
    project: dict[str, str],
    worker: subprocess.Popen[str],
    xsd_validate_urlset: Callable[..., Any],
) -> None:
    saved = json.loads(run(project, "-m", "tests.rebuilding.run", "save", str(SAVES), str(SECONDS)))
    assert saved["saved"] == SAVES
    assert saved["seconds"] <= SECONDS + 5  # the saves were not slowed down by the hook

    def done() -> list[dict[str, Any]]:
        rows: list[dict[str, Any]] = json.loads(
            run(project, "-m", "tests.rebuilding.run", "report")
        )
        return (
            rows if rows and all(row["status"] in {"SUCCESSFUL", "FAILED"} for row in rows) else []
        )

    rows = wait_for(done, timeout=DEBOUNCE + 60)
    assert rows, f"the worker did not finish: {worker.poll()}"
    # One rebuild per window of DEBOUNCE seconds (and one more for the window cut by the end).
    assert 1 <= len(rows) <= SECONDS / DEBOUNCE + 2, rows
    assert [row["status"] for row in rows] == ["SUCCESSFUL"] * len(rows), rows
    for row in rows:
        assert row["task_path"] == "django_sitemapkit.tasks.rebuild_sitemaps"
        assert row["args_kwargs"] == {
            "args": [],
            "kwargs": {"sections": ["testapp-tag"], "site": None},
        }
        # Trailing edge: each rebuild ran after its window, reading every write of it.
        delay = datetime.fromisoformat(row["run_after"]) - datetime.fromisoformat(
            row["enqueued_at"]
        )
        assert delay.total_seconds() >= DEBOUNCE - 0.1
    enqueued = [datetime.fromisoformat(row["enqueued_at"]) for row in rows]
    assert all((b - a).total_seconds() >= DEBOUNCE - 0.1 for a, b in itertools.pairwise(enqueued))
    assert rows[-1]["return_value"]["published"] is True

    urls = published_urls(Path(project["SITEMAPKIT_BUILD_DIR"]), xsd_validate_urlset)
    assert sorted(urls) == sorted(f"https://www.example.com/tags/tag-{n}/" for n in range(SAVES))
