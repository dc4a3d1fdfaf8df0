"""The test settings, plus the database tasks backend and rebuilds after commits.

For processes started by the tests: the database is the one ``DATABASE_URL``
names, with ``SITEMAPKIT_TEST_DB_NAME`` as its name when set (the test
database of a PostgreSQL or MariaDB run); builds go to ``SITEMAPKIT_BUILD_DIR``.
"""

from __future__ import annotations

import os

from tests.settings import *  # noqa: F403
from tests.settings import DATABASES, INSTALLED_APPS

if os.environ.get("SITEMAPKIT_TEST_DB_NAME"):
    DATABASES["default"]["NAME"] = os.environ["SITEMAPKIT_TEST_DB_NAME"]
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # A writer and a worker on one file: WAL lets them read while the other writes, and
    # commits without an fsync each keep 1,000 of them within seconds.
    DATABASES["default"]["OPTIONS"] = {
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        "transaction_mode": "IMMEDIATE",
        "timeout": 30,
    }

INSTALLED_APPS = [
    *(app for app in INSTALLED_APPS if not app.startswith("django_sitemapkit")),
    # The default app config: it imports tests.rebuilding.sitemaps.
    "django_sitemapkit",
    "django_tasks_db",
    "tests.rebuilding",
]

TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend", "QUEUES": ["default"]}}

SITEMAPKIT = {
    "BASE_URL": "https://www.example.com",
    "BUILD_DIR": os.environ["SITEMAPKIT_BUILD_DIR"],
    "REBUILD_AFTER_COMMIT": True,
    "REBUILD_DEBOUNCE": int(os.environ.get("SITEMAPKIT_REBUILD_DEBOUNCE", "3")),
}
