"""Settings of the benchmark project.

Everything that varies between measurements comes from the environment, so the
driver (``benchmarks/run.py``) can start each measurement as a fresh process:

``DATABASE_URL``
    django-environ URL; default: SQLite in ``benchmarks/.data/bench.sqlite3``.
``BENCH_SITEMAPKIT_MODE``
    the one sitemapkit section registered: ``fast`` (default; the section
    names its URL pattern, ``url_name`` / ``url_kwargs``), ``images``,
    ``absurl`` (``get_absolute_url()`` read as the pattern), ``perrow``
    (``get_absolute_url()`` called per instance) or ``generic`` (contrib's
    ``GenericSitemap``). See ``bench/sitemaps.py``. (``i18n``, the fast path
    in three languages, comes with ``benchsite.settings_i18n``.)
``BENCH_BUILD_DIR``
    ``SITEMAPKIT["BUILD_DIR"]`` for ``sitemapkit_build`` (every measurement
    names a fresh one; the default is apart per tree measured).
``BENCH_GZIP``
    ``SITEMAPKIT["GZIP"]``: ``1`` (default) writes each file's ``.xml.gz``
    beside its ``.xml``; ``0`` writes the ``.xml`` only.
``BENCH_SCRATCH``
    the folder of the run's temporary files (``run.py`` makes one per run);
    default: ``sitemapkit-bench`` in the system's temporary folder.
``BENCH_SITEMAPKIT_SRC``
    the tree whose ``django_sitemapkit/`` is imported (``run.py --rev`` /
    ``--compare`` export an older revision there); default: this checkout.
``BENCH_ICV_DIR``
    root of the FileSystemStorage django-icv-sitemaps writes into.
``BENCH_CACHE_TIMEOUT``
    ``SITEMAPKIT["CACHE_TIMEOUT"]``; default 0 (no caching of rendered files).

``SITEMAPKIT`` names only settings that every revision measured knows, so that
an older revision (``run.py --compare``) runs with the same settings file.
"""

from __future__ import annotations

import importlib.util
import os
import tempfile
from pathlib import Path

import environ

BASE_DIR = Path(__file__).resolve().parent.parent
DATA_DIR = BASE_DIR.parent / ".data"
env = environ.Env()

SECRET_KEY = "benchmarks-only-not-secret"
DEBUG = False  # DEBUG=True would keep every query in connection.queries
ALLOWED_HOSTS = ["*"]
USE_TZ = True
TIME_ZONE = "UTC"
USE_I18N = False

HAVE_ICV = importlib.util.find_spec("icv_sitemaps") is not None

INSTALLED_APPS = [
    "django.contrib.contenttypes",
    "django.contrib.auth",  # django-icv-sitemaps' tenant FK points at auth.Group
    "django.contrib.sitemaps",  # templates of the contrib views
    "django_sitemapkit",  # autodiscovers bench/sitemaps.py
    *(["icv_sitemaps"] if HAVE_ICV else []),
    "bench",
]
MIDDLEWARE: list[str] = []  # no GZipMiddleware: every contender serves plain XML
ROOT_URLCONF = "benchsite.urls"
TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {},
    }
]
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

DATABASES = {
    "default": env.db("DATABASE_URL", default=f"sqlite:///{DATA_DIR / 'bench.sqlite3'}"),
}
CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

SCRATCH = Path(os.environ.get("BENCH_SCRATCH") or Path(tempfile.gettempdir()) / "sitemapkit-bench")
BENCH_SITEMAPKIT_MODE = os.environ.get("BENCH_SITEMAPKIT_MODE", "fast")
BASE_URL = "https://www.example.com"

SITEMAPKIT = {
    "BASE_URL": BASE_URL,
    "BUILD_DIR": os.environ.get(
        "BENCH_BUILD_DIR",
        str(
            SCRATCH
            / f"sitemapkit-{Path(os.environ.get('BENCH_SITEMAPKIT_SRC') or 'worktree').name}"
        ),
    ),
    "CACHE_TIMEOUT": int(os.environ.get("BENCH_CACHE_TIMEOUT", "0")),
    "GZIP": os.environ.get("BENCH_GZIP", "1") != "0",
    # Files without the <?xml-stylesheet?> line (57 bytes a file): byte for byte
    # what the floor and earlier revisions (run.py --rev) write, which they are checked against.
    "STYLESHEET": False,
}

# django-icv-sitemaps: one section over a proxy of the same table (bench.IcvArticle),
# written synchronously by `icv_sitemaps_generate` into its own storage alias.
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    "icv": {
        "BACKEND": "django.core.files.storage.FileSystemStorage",
        "OPTIONS": {"location": os.environ.get("BENCH_ICV_DIR", str(SCRATCH / "icv"))},
    },
}
ICV_STORAGES_ALIAS = "icv"
ICV_TENANT_MODEL = "auth.Group"  # its default, named to silence check icv_sitemaps.W003
ICV_SITEMAPS_BASE_URL = BASE_URL
ICV_SITEMAPS_ASYNC_GENERATION = False
ICV_SITEMAPS_AUTO_SECTIONS = {
    "articles": {"model": "bench.IcvArticle", "sitemap_type": "standard"},
}
