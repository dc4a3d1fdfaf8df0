"""Stale builds when the data changes in ANOTHER process: a worker, ``manage.py shell``.

Build once; another process (``another_process.py``) adds 3,000 rows and saves
one through the ORM, on the same database and the same cache. The save
reaches this process through the shared cache, and its views then render the
articles live, new rows included.

Another process must open the test's database: PostgreSQL and MariaDB (the
test database, committed by ``django_db(transaction=True)``) or an SQLite
file. pytest-django's SQLite test database is in memory, which no other
process can open: there the module skips, and ``.ci/run`` runs it on
PostgreSQL and MariaDB (steps 2 and 3). A cache each process keeps to
itself (the suite's default, local memory) would hide the other process's
save, which is what check W003 warns about: the test then shares a file
cache with the other process.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import pytest
from django.conf import settings as django_settings
from django.db import connection
from django.test import Client

from django_sitemapkit._serving.cache import PROCESS_LOCAL_CACHES
from tests.publishing.stale import build_articles_and_tags, status
from tests.utils import all_urls, path_of

REPO = Path(__file__).resolve().parents[2]
NEW_ROWS = 3000

IN_MEMORY = (
    "the SQLite test database is in memory, which another process cannot open: "
    "runs on PostgreSQL and MariaDB (DATABASE_URL; .ci/run steps 2 and 3)"
)

pytestmark = pytest.mark.django_db(transaction=True)


def database_url() -> str:
    """``DATABASE_URL`` naming the test database this process uses (set up by now)."""
    if connection.vendor == "sqlite" and connection.is_in_memory_db():
        pytest.skip(IN_MEMORY)
    name = str(connection.settings_dict["NAME"])
    if connection.vendor == "sqlite":
        return f"sqlite:///{name}"
    url = urlsplit(os.environ["DATABASE_URL"])
    return urlunsplit(url._replace(path="/" + name))


@pytest.fixture
def shared_cache(settings: Any, tmp_path: Path) -> str:
    """``CACHE_URL`` of a cache both processes reach: the suite's own, unless process-local."""
    backend = django_settings.CACHES["default"]["BACKEND"]
    if backend not in PROCESS_LOCAL_CACHES:
        return os.environ["CACHE_URL"]
    location = tmp_path / "cache"
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
            "LOCATION": str(location),
        }
    }
    return f"filecache://{location}"


@pytest.fixture
def built(sitemaps: Any, settings: Any, tmp_path: Path, shared_cache: str) -> dict[str, str]:
    """Articles and tags built once; the environment of the other process."""
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "tests.settings",
        "PYTHONPATH": str(REPO),
        "DATABASE_URL": database_url(),
        "CACHE_URL": shared_cache,
    }
    settings.SITEMAPKIT = {**settings.SITEMAPKIT, "BUILD_DIR": str(tmp_path / "sitemaps")}
    build_articles_and_tags()
    return env


def write_in_another_process(env: dict[str, str]) -> None:
    completed = subprocess.run(
        [sys.executable, "-m", "tests.publishing.another_process", str(NEW_ROWS)],
        env=env,
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert completed.returncode == 0, completed.stderr
    # The other process saw the build's five rows and wrote its own.
    assert completed.stdout.split() == [str(NEW_ROWS + 5)]


def published_index(settings: Any) -> bytes:
    return (Path(settings.SITEMAPKIT["BUILD_DIR"]) / "current" / "sitemap.xml").read_bytes()


def test_the_other_process_rows_are_served_live(
    built: dict[str, str], client: Client, settings: Any
) -> None:
    assert client.get("/sitemap.xml").content == published_index(settings)
    assert status()[0] == 0
    write_in_another_process(built)
    urls = {path_of(url.loc) for url in all_urls(client)}
    articles = {u for u in urls if u.startswith("/articles/")}
    assert articles == {f"/articles/new{i}/" for i in range(NEW_ROWS)} | {
        f"/articles/a{i}/" for i in range(5)
    }
    assert client.get("/sitemap.xml").content != published_index(settings)
    assert status()[0] == 1
