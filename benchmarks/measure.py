#!/usr/bin/env python
"""One measurement in a fresh process; prints one JSON line on stdout.

    python benchmarks/measure.py CONTENDER [--rows N] [--keep-dir DIR]

The database comes from ``DATABASE_URL`` (see ``bench_project/benchsite/settings.py``);
``benchmarks/run.py`` sets it and runs this once per contender and repeat. Every
contender sets Django up, notes the RSS (``baseline_rss``), resets the kernel's
peak-RSS counter (``/proc/self/clear_refs``), runs the timed work, and reports:

``seconds``        wall time of the timed work only (no interpreter start, no setup)
``cpu_seconds``    user + system CPU time of this process during it (the database
                   server's own CPU is not included: on PostgreSQL it is elsewhere)
``baseline_rss``   bytes resident right after ``django.setup()``
``pre_rss``        bytes resident right before the timed work (after untimed warm-up)
``peak_rss``       peak resident bytes during the timed work (VmHWM after the reset)
``process_peak_rss`` the whole process's peak (``ru_maxrss``), setup and warm-up included
``children_peak_rss`` the peak of the largest child process waited for (``ru_maxrss`` of
                   ``RUSAGE_CHILDREN``) at the end of the timed work: a worker process's
                   memory is not in this process's VmHWM
``children_peak_rss_before`` the same, right before the timed work (nonzero when an untimed
                   child ran first: the figure after is then the timed work's only if larger)
``urls``, ``files``, ``xml_bytes``, ``gz_bytes``  what was produced, counted afterwards

Contenders (see README.md): sitemapkit-build-fast, sitemapkit-build-nogzip,
sitemapkit-images-build, sitemapkit-build-absurl, sitemapkit-build-perrow,
sitemapkit-build-generic, contrib-views, icv-generate, floor, floor-gzip, sitemapkit-view-first,
sitemapkit-view-last, sitemapkit-view-index, count, sitemapkit-incremental;
in three languages (``benchsite.settings_i18n``): sitemapkit-i18n-build,
sitemapkit-i18n-view-page, contrib-i18n-view-page, contrib-i18n-build;
and the helpers prepare, warm, seed, seed-demo.

``sitemapkit_src`` in the JSON line names the tree whose django_sitemapkit/ the
process imported: this checkout, or the export named by ``BENCH_SITEMAPKIT_SRC``
(run.py ``--rev`` / ``--compare``), which run.py checks.
"""

from __future__ import annotations

import argparse
import contextlib
import gzip
import json
import os
import random
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from io import StringIO
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
PROJECT = HERE / "bench_project"
# The tree that holds django_sitemapkit/ and example_project/: this checkout, or
# an export of another revision (run.py --rev) named by BENCH_SITEMAPKIT_SRC.
REPO = Path(os.environ.get("BENCH_SITEMAPKIT_SRC") or HERE.parent).resolve()
sys.path[:0] = [str(PROJECT), str(REPO)]
# In the scratch folders' names, so two trees measured in one run never share one.
TREE_TAG = REPO.name if os.environ.get("BENCH_SITEMAPKIT_SRC") else "worktree"

BASE_URL = "https://www.example.com"
LIMIT = 50_000  # URLs per file, every contender
# run.py's scratch folder for this run (removed at its end), or a shared default.
SCRATCH = Path(os.environ.get("BENCH_SCRATCH") or Path(tempfile.gettempdir()) / "sitemapkit-bench")
# updated_at values are spread over the year before this fixed instant by a
# hash of the id (seed_offset), so a reseeded database holds the same bytes
# every time, on SQLite and PostgreSQL alike.
SEED_EPOCH = datetime(2026, 1, 1, tzinfo=UTC)
YEAR_SECONDS = 365 * 24 * 3600
SEED_PRIME = 2_147_483_647  # 2**31 - 1: every product below stays within 64 bits
SEED_MULTIPLIER = 48_271
LOC_RE = re.compile(rb"<loc>([^<]*)</loc>")

CONTENDERS = (
    "sitemapkit-build-fast",
    "sitemapkit-build-nogzip",
    "sitemapkit-images-build",
    "sitemapkit-build-absurl",
    "sitemapkit-build-perrow",
    "sitemapkit-build-generic",
    "contrib-views",
    "icv-generate",
    "floor",
    "floor-gzip",
    "sitemapkit-view-first",
    "sitemapkit-view-last",
    "sitemapkit-view-index",
    "count",
    "sitemapkit-incremental",
    "sitemapkit-i18n-build",
    "sitemapkit-i18n-view-page",
    "contrib-i18n-view-page",
    "contrib-i18n-build",
)
# Contenders of the three-language site (benchsite.settings_i18n): every row once
# per language. Not run unless asked for (run.py --contenders).
I18N_CONTENDERS = (
    "sitemapkit-i18n-build",
    "sitemapkit-i18n-view-page",
    "contrib-i18n-view-page",
    "contrib-i18n-build",
)
I18N_LANGUAGES = ("en", "fr", "de")  # settings_i18n.LANGUAGES
HELPERS = ("prepare", "warm", "seed", "seed-demo")
# The section (bench/sitemaps.py mode) each django-sitemapkit contender lists: the
# modes whose page boundaries prepare / warm persist.
SECTION_MODES = {
    "sitemapkit-build-fast": "fast",
    "sitemapkit-build-nogzip": "fast",
    "sitemapkit-images-build": "images",
    "sitemapkit-build-absurl": "absurl",
    "sitemapkit-build-perrow": "perrow",
    "sitemapkit-build-generic": "generic",
    "sitemapkit-view-first": "fast",
    "sitemapkit-view-last": "fast",
    "sitemapkit-view-index": "fast",
    "sitemapkit-incremental": "fast",
    "sitemapkit-i18n-build": "i18n",
    "sitemapkit-i18n-view-page": "i18n",
}


# --------------------------------------------------------------------------- memory


def proc_status_kb(field: str) -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise RuntimeError(f"{field} not in /proc/self/status")


def rss() -> int:
    return proc_status_kb("VmRSS") * 1024


def reset_peak() -> bool:
    """Reset VmHWM to the current RSS (Linux >= 4.0); False where not allowed."""
    try:
        with open("/proc/self/clear_refs", "w") as clear_refs:
            clear_refs.write("5")
        return True
    except OSError:
        return False


def cpu_time() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def children_peak() -> int:
    """Peak RSS in bytes of the largest child process waited for so far (0: none)."""
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024


class Measurement:
    """Times a block and reads the peak RSS it reached."""

    def __init__(self, baseline_rss: int) -> None:
        self.result: dict[str, Any] = {"baseline_rss": baseline_rss}

    def __enter__(self) -> Measurement:
        self.peak_reset = reset_peak()
        self.result["pre_rss"] = rss()
        self.result["children_peak_rss_before"] = children_peak()
        self._cpu = cpu_time()
        self._t0 = time.perf_counter()
        return self

    def __exit__(self, *exc: object) -> None:
        self.result["seconds"] = time.perf_counter() - self._t0
        self.result["cpu_seconds"] = cpu_time() - self._cpu
        maxrss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
        self.result["peak_rss"] = proc_status_kb("VmHWM") * 1024 if self.peak_reset else maxrss
        self.result["process_peak_rss"] = maxrss
        self.result["children_peak_rss"] = children_peak()
        self.result["peak_reset"] = self.peak_reset


def setup_django(mode: str = "fast", **env: str) -> int:
    """django.setup() with the bench settings; returns the RSS right after it.

    ``mode`` is the sitemapkit section registered (bench/sitemaps.py); ``i18n``
    also selects the three-language settings and URLconf (settings_i18n.py).
    ``env`` sets more of the settings' variables; ``BENCH_GZIP`` is 1 unless given.
    """
    settings_module = "benchsite.settings_i18n" if mode == "i18n" else "benchsite.settings"
    # Set, not defaulted: a child process inherits its parent's choice otherwise.
    os.environ["DJANGO_SETTINGS_MODULE"] = settings_module
    os.environ["BENCH_SITEMAPKIT_MODE"] = mode
    os.environ.update({"BENCH_GZIP": "1", **env})
    import django

    django.setup()
    return rss()


def scratch_dir(prefix: str) -> Path:
    SCRATCH.mkdir(parents=True, exist_ok=True)
    return Path(tempfile.mkdtemp(prefix=f"{prefix}{TREE_TAG}-", dir=SCRATCH))


# --------------------------------------------------------------------------- counting output


def count_files(folder: Path, index_names: tuple[str, ...]) -> dict[str, int]:
    """URLs in the page files of ``folder`` (read from .xml, or .xml.gz when alone)."""
    urls = files = xml_bytes = gz_bytes = 0
    for path in sorted(folder.rglob("*")):
        if not path.is_file():
            continue
        name = path.name
        if name.endswith(".xml.gz"):
            gz_bytes += path.stat().st_size
            files += 1
            plain = path.with_name(name[:-3])
            if not plain.exists() and name[:-3] not in index_names:
                with gzip.open(path, "rb") as stream:
                    data = stream.read()
                xml_bytes += len(data)
                urls += data.count(b"<loc>")
        elif name.endswith(".xml"):
            xml_bytes += path.stat().st_size
            files += 1
            if name not in index_names:
                urls += path.read_bytes().count(b"<loc>")
    return {"urls": urls, "files": files, "xml_bytes": xml_bytes, "gz_bytes": gz_bytes}


# --------------------------------------------------------------------------- seeding


def seed_offset(i: int) -> int:
    """Seconds before SEED_EPOCH of article ``i``'s updated_at: a hash of ``i``,
    spread over the year. SEED_SQL computes the same in SQL."""
    x = i * SEED_MULTIPLIER % SEED_PRIME
    return (x * x + i) % SEED_PRIME % YEAR_SECONDS


def seed_updated_at(i: int) -> datetime:
    return SEED_EPOCH - timedelta(seconds=seed_offset(i))


# Article i's (id, slug, title, updated_at, published, image) from the integer
# column i of the row source; {epoch} is SEED_EPOCH as a Unix time.
SEED_COLUMNS = (
    "id, slug, title, updated_at, published, image",
    "i, 'article-' || i, 'Article number ' || i, {updated_at}, TRUE, "
    "'/media/articles/article-' || i || '.jpg'",
)
# %% is the modulo: these statements take parameters (%s).
SEED_OFFSET_SQL = (
    f"((i * {SEED_MULTIPLIER} %% {SEED_PRIME}) * (i * {SEED_MULTIPLIER} %% {SEED_PRIME}) + i)"
    f" %% {SEED_PRIME} %% {YEAR_SECONDS}"
)


def seed(count: int) -> None:
    """Empty the article table and insert articles 1..``count`` with one
    ``INSERT ... SELECT`` computed by the database (a recursive CTE on SQLite,
    ``generate_series`` on PostgreSQL), in one transaction: no row goes through
    Python, which is what makes 10,000,000 rows quick to seed."""
    from django.db import connection, transaction

    from bench.models import BenchArticle

    table = connection.ops.quote_name(BenchArticle._meta.db_table)
    epoch = int(SEED_EPOCH.timestamp())
    columns, values = SEED_COLUMNS
    with transaction.atomic(), connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute(f"TRUNCATE {table} RESTART IDENTITY")
            updated_at = f"to_timestamp({epoch} - {SEED_OFFSET_SQL})"
            cursor.execute(
                f"INSERT INTO {table} ({columns}) SELECT {values.format(updated_at=updated_at)}"
                " FROM generate_series(1::bigint, %s) AS i",
                [count],
            )
            # Explicit ids: move the identity past them for later inserts.
            cursor.execute(
                f"SELECT setval(pg_get_serial_sequence('{BenchArticle._meta.db_table}', 'id'),"
                " GREATEST(%s, 1), %s)",
                [count, count > 0],
            )
        else:
            cursor.execute(f"DELETE FROM {table}")
            cursor.execute(
                "DELETE FROM sqlite_sequence WHERE name = %s", [BenchArticle._meta.db_table]
            )
            # Django's text form of a UTC datetime without microseconds.
            updated_at = f"datetime({epoch} - {SEED_OFFSET_SQL}, 'unixepoch')"
            cursor.execute(
                "WITH RECURSIVE n(i) AS (SELECT 1 WHERE %s > 0 UNION ALL"
                " SELECT i + 1 FROM n WHERE i < %s)"
                f" INSERT INTO {table} ({columns}) SELECT {values.format(updated_at=updated_at)}"
                " FROM n",
                [count, count],
            )


def seeded_as_now(rows: int) -> bool:
    """Do the first and last articles hold what seed() writes today?

    A database seeded by an older formula (or before the image column) is seeded again.
    """
    from bench.models import BenchArticle

    for i in {1, rows}:
        row = BenchArticle.objects.filter(pk=i).values("slug", "updated_at", "image").first()
        expected = {
            "slug": f"article-{i}",
            "updated_at": seed_updated_at(i),
            "image": f"/media/articles/article-{i}.jpg",
        }
        if row != expected:
            return False
    return True


def analyze() -> None:
    from django.db import connection

    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            # Fresh statistics and visibility map (index-only scans) after COPY.
            cursor.execute("VACUUM ANALYZE")
        else:
            cursor.execute("ANALYZE")


def run_child(args: list[str], env: dict[str, str] | None = None) -> dict[str, Any]:
    """Run measure.py ARGS as a child and return its JSON line."""
    proc = subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), *args],
        env={**os.environ, **(env or {})},
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"measure.py {' '.join(args)} failed:\n{proc.stderr[-4000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def do_prepare(rows: int, force: bool, modes: list[str]) -> dict[str, Any]:
    """Migrate, seed if the table does not hold exactly what seed() writes for
    ``rows`` rows, create django-icv-sitemaps' section row, and warm the
    sections of ``modes`` (see do_warm)."""
    from django.conf import settings
    from django.core.management import call_command
    from django.db import connection

    from bench.models import BenchArticle

    info: dict[str, Any] = {"vendor": connection.vendor}
    call_command("migrate", verbosity=0, interactive=False)
    have = BenchArticle.objects.count()
    max_id = BenchArticle.objects.order_by("-pk").values_list("pk", flat=True).first() or 0
    reseed = force or have != rows or max_id != rows or not seeded_as_now(rows)
    if reseed:
        t0 = time.perf_counter()
        seed(rows)
        info["seed_seconds"] = time.perf_counter() - t0
        from django_sitemapkit.models import SitemapPage

        SitemapPage.objects.all().delete()  # boundaries of the previous data
        if settings.HAVE_ICV:
            from icv_sitemaps.models import SitemapFile, SitemapSection

            SitemapFile.objects.all().delete()
            SitemapSection.objects.all().delete()
        analyze()
    info["reseeded"] = reseed
    if settings.HAVE_ICV:
        from icv_sitemaps.models import SitemapSection

        if not SitemapSection.objects.exists():
            call_command("icv_sitemaps_setup", stdout=StringIO())
        info["icv_sections"] = list(SitemapSection.objects.values_list("name", flat=True))
    info.update(do_warm(rows, modes))
    info["server_version"] = server_version()
    return info


def do_warm(rows: int, modes: list[str]) -> dict[str, Any]:
    """Persist django-sitemapkit's page boundaries of the sections of ``modes``
    (bench/sitemaps.py), untimed: one index request each, in a child process
    importing the same tree as this one (run.py runs it for each tree measured)."""
    info = {}
    for mode in modes:
        # The view reads the section's mode from BENCH_MODE_OVERRIDE.
        warm = run_child(
            ["sitemapkit-view-index", "--rows", str(rows)], {"BENCH_MODE_OVERRIDE": mode}
        )
        info[f"warm_{mode}_seconds"] = warm["seconds"]
    return info


def server_version() -> str:
    from django.db import connection

    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute("SHOW server_version")
        else:
            cursor.execute("SELECT sqlite_version()")
        return str(cursor.fetchone()[0])


# --------------------------------------------------------------------------- contenders


def sitemapkit_build(
    mode: str, keep_dir: str | None, use_gzip: bool = True, **_: Any
) -> dict[str, Any]:
    """``sitemapkit_build --full`` of the ``mode`` section; ``use_gzip=False``: .xml only."""
    build_dir = Path(keep_dir) if keep_dir else scratch_dir("sitemapkit-")
    gzip_env = {} if use_gzip else {"BENCH_GZIP": "0"}
    baseline = setup_django(mode, BENCH_BUILD_DIR=str(build_dir), **gzip_env)
    from django.core.management import call_command

    out = StringIO()
    with Measurement(baseline) as m:
        call_command("sitemapkit_build", "--full", "--no-progress", verbosity=1, stdout=out)
    m.result["detail"] = out.getvalue().strip()
    m.result.update(count_files(build_dir / "current", ("sitemap.xml",)))
    if not keep_dir:
        shutil.rmtree(build_dir, ignore_errors=True)
    return m.result


def sitemapkit_incremental(rows: int, **_: Any) -> dict[str, Any]:
    """Full build (in a child process, untimed), then 10 random rows' updated_at
    changed with QuerySet.update() + invalidate(), then the timed incremental build."""
    build_dir = scratch_dir("sitemapkit-incr-")
    full = run_child(["sitemapkit-build-fast", "--keep-dir", str(build_dir)])
    baseline = setup_django("fast", BENCH_BUILD_DIR=str(build_dir))
    from django.core.management import call_command
    from django.utils import timezone

    import django_sitemapkit as sitemapkit
    from bench.models import BenchArticle

    ids = random.Random().sample(range(1, rows + 1), 10)
    before = dict(BenchArticle.objects.filter(pk__in=ids).values_list("pk", "updated_at"))
    t0 = time.perf_counter()
    BenchArticle.objects.filter(pk__in=ids).update(updated_at=timezone.now())
    sitemapkit.invalidate()
    update_seconds = time.perf_counter() - t0
    out = StringIO()
    try:
        with Measurement(baseline) as m:
            call_command("sitemapkit_build", "--no-progress", verbosity=1, stdout=out)
    finally:
        for pk, updated_at in before.items():  # keep the data set as seeded
            BenchArticle.objects.filter(pk=pk).update(updated_at=updated_at)
    m.result["detail"] = out.getvalue().strip()
    m.result["update_seconds"] = update_seconds
    m.result["full_build_seconds"] = full["seconds"]
    m.result.update(count_files(build_dir / "current", ("sitemap.xml",)))
    shutil.rmtree(build_dir, ignore_errors=True)
    return m.result


def contrib_views(mode: str = "fast", **_: Any) -> dict[str, Any]:
    """django.contrib.sitemaps: the index, then every page it names, in-process.

    ``mode="i18n"``: the three-language site (settings_i18n), whose pages list
    (article, language) pairs with alternates.
    """
    baseline = setup_django(mode)
    from django.test import Client

    client = Client(HTTP_HOST="www.example.com")
    urls = files = xml_bytes = 0
    with Measurement(baseline) as m:
        index = client.get("/contrib/sitemap.xml")
        assert index.status_code == 200, index.status_code
        body = index.content
        xml_bytes += len(body)
        files += 1
        for loc in LOC_RE.findall(body):
            page = client.get(loc.decode().removeprefix(BASE_URL).replace("&amp;", "&"))
            assert page.status_code == 200, page.status_code
            content = page.content
            urls += content.count(b"<loc>")
            xml_bytes += len(content)
            files += 1
    m.result.update(urls=urls, files=files, xml_bytes=xml_bytes, gz_bytes=0)
    return m.result


def icv_generate(**_: Any) -> dict[str, Any]:
    """django-icv-sitemaps: `icv_sitemaps_generate --all` (synchronous, no Celery)."""
    icv_dir = scratch_dir("icv-")
    baseline = setup_django("fast", BENCH_ICV_DIR=str(icv_dir))
    from django.conf import settings
    from django.core.management import call_command

    if not settings.HAVE_ICV:
        raise SystemExit("django-icv-sitemaps is not installed (pip install -e '.[bench]')")
    out = StringIO()
    with Measurement(baseline) as m:
        call_command("icv_sitemaps_generate", "--all", stdout=out)
    m.result["detail"] = " ".join(out.getvalue().split())[-300:]
    m.result.update(count_files(icv_dir, ("sitemap.xml",)))
    shutil.rmtree(icv_dir, ignore_errors=True)
    return m.result


def floor(use_gzip: bool, keep_dir: str | None, **_: Any) -> dict[str, Any]:
    """The least a Python program can do: one raw DB-API cursor over
    (slug, updated_at) in key order, f-string <url> lines, files of 50,000 URLs
    and an index; with gzip level 6 of the same bytes beside each file."""
    out_dir = Path(keep_dir) if keep_dir else scratch_dir("floor-")
    out_dir.mkdir(parents=True, exist_ok=True)
    baseline = setup_django("fast")
    from django.db import connection

    # A plain DB-API connection rather than Django's: Django's SQLite connection
    # parses every datetime in Python (detect_types), and its psycopg
    # connection loads timestamptz through a Python subclass of psycopg's
    # loader (for time zones) instead of psycopg's C loader.
    pg = connection.vendor == "postgresql"
    db = connection.settings_dict
    if pg:
        import psycopg

        raw = psycopg.connect(
            dbname=db["NAME"],
            user=db["USER"] or None,
            password=db["PASSWORD"] or None,
            host=db["HOST"] or None,
            port=db["PORT"] or None,
            options="-c TimeZone=UTC",
        )
    else:
        import sqlite3

        raw = sqlite3.connect(db["NAME"])
    sql = "SELECT slug, updated_at FROM bench_bencharticle WHERE published ORDER BY id"
    head = b'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
    tail = b"</urlset>\n"
    prefix = BASE_URL + "/articles/"

    def write(name: str, data: bytes) -> None:
        (out_dir / name).write_bytes(data)
        if use_gzip:
            with gzip.GzipFile(out_dir / (name + ".gz"), "wb", compresslevel=6, mtime=0) as gz:
                gz.write(data)

    with Measurement(baseline) as m, raw.transaction() if pg else contextlib.nullcontext():
        # Server-side on PostgreSQL (it needs the transaction), so memory stays flat.
        cursor = raw.cursor(name="floor") if pg else raw.cursor()
        cursor.execute(sql)
        pages: list[tuple[str, str]] = []
        lines: list[str] = []
        newest = ""
        while batch := cursor.fetchmany(5000):
            for slug, updated_at in batch:
                if pg:  # aware datetime in UTC, no microseconds
                    lastmod = updated_at.isoformat()
                else:  # SQLite text "YYYY-MM-DD HH:MM:SS" in UTC
                    lastmod = f"{updated_at[:10]}T{updated_at[11:19]}+00:00"
                if lastmod > newest:
                    newest = lastmod
                lines.append(f"<url><loc>{prefix}{slug}/</loc><lastmod>{lastmod}</lastmod></url>\n")
                if len(lines) == LIMIT:
                    name = f"sitemap-floor-{len(pages) + 1}.xml"
                    write(name, head + "".join(lines).encode() + tail)
                    pages.append((name, newest))
                    lines, newest = [], ""
        if lines:
            name = f"sitemap-floor-{len(pages) + 1}.xml"
            write(name, head + "".join(lines).encode() + tail)
            pages.append((name, newest))
        cursor.close()
        index = "".join(
            f"<sitemap><loc>{BASE_URL}/{name}</loc><lastmod>{newest}</lastmod></sitemap>\n"
            for name, newest in pages
        )
        write(
            "sitemap.xml",
            b'<?xml version="1.0" encoding="UTF-8"?>\n'
            b'<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
            + index.encode()
            + b"</sitemapindex>\n",
        )
    raw.close()
    m.result.update(count_files(out_dir, ("sitemap.xml",)))
    if not keep_dir:
        shutil.rmtree(out_dir, ignore_errors=True)
    return m.result


def sitemapkit_view(
    which: str, rows: int, mode: str | None = None, keep_dir: str | None = None, **_: Any
) -> dict[str, Any]:
    """django-sitemapkit's views, uncached, no build published: one request,
    after an untimed request of the index in the same process. With
    ``keep_dir``, the response is kept there as ``page.xml``."""
    mode = mode or os.environ.get("BENCH_MODE_OVERRIDE", "fast")
    empty_build_dir = scratch_dir("sitemapkit-nobuild-")
    baseline = setup_django(mode, BENCH_BUILD_DIR=str(empty_build_dir), BENCH_CACHE_TIMEOUT="0")
    from django.test import Client

    import django_sitemapkit as sitemapkit

    client = Client()
    # The default site; called registry before 0.1's redesign (for --rev runs of older code).
    site = getattr(sitemapkit, "site", None) or sitemapkit.registry
    (section,) = site.sections()
    if which == "index":
        path = "/sitemap.xml"
    else:
        full_pages = max(1, rows // LIMIT)  # pages are cut full, in key order
        path = f"/sitemap-{section}-{1 if which == 'first' else full_pages}.xml"
    warm = client.get("/sitemap.xml")  # persists page boundaries on first use
    assert warm.status_code == 200, warm.status_code
    with Measurement(baseline) as m:
        response = client.get(path)
        content = response.content
    assert response.status_code == 200, (path, response.status_code)
    m.result.update(
        path=path,
        urls=content.count(b"<loc>") if which != "index" else 0,
        pages_in_index=content.count(b"<sitemap>") if which == "index" else None,
        files=1,
        xml_bytes=len(content),
        gz_bytes=0,
    )
    keep(keep_dir, content)
    shutil.rmtree(empty_build_dir, ignore_errors=True)
    return m.result


def keep(keep_dir: str | None, content: bytes) -> None:
    """Write one response into ``keep_dir`` as ``page.xml`` (run.py compares them)."""
    if keep_dir:
        Path(keep_dir).mkdir(parents=True, exist_ok=True)
        (Path(keep_dir) / "page.xml").write_bytes(content)


def contrib_i18n_page(keep_dir: str | None = None, **_: Any) -> dict[str, Any]:
    """django.contrib.sitemaps' sitemap view, page 1 of the i18n section, in-process.

    Untimed first, the first-request costs sitemapkit's view contenders also pay
    before timing (there with an index request, which here would load every row):
    one request the URLconf answers with a 404, the sitemap template, and one
    article URL reversed in each language.
    """
    baseline = setup_django("i18n")
    from django.template.loader import get_template
    from django.test import Client
    from django.urls import reverse
    from django.utils import translation

    client = Client(HTTP_HOST="www.example.com")
    warm = client.get("/contrib/sitemap-nosuchsection.xml")
    assert warm.status_code == 404, warm.status_code
    get_template("sitemap.xml")
    for language in I18N_LANGUAGES:
        with translation.override(language):
            reverse("bench-article", kwargs={"slug": "warm-up"})
    path = "/contrib/sitemap-articles.xml"  # page 1: no ?p=
    with Measurement(baseline) as m:
        response = client.get(path)
        content = response.content
    assert response.status_code == 200, (path, response.status_code)
    m.result.update(
        path=path, urls=content.count(b"<loc>"), files=1, xml_bytes=len(content), gz_bytes=0
    )
    keep(keep_dir, content)
    return m.result


def count(**_: Any) -> dict[str, Any]:
    """One COUNT(*) of the section's queryset, for scale."""
    baseline = setup_django("fast")
    from django.db import connection

    from bench.models import BenchArticle

    connection.ensure_connection()
    with Measurement(baseline) as m:
        n = BenchArticle.objects.filter(published=True).count()
    m.result.update(urls=0, rows_counted=n, files=0, xml_bytes=0, gz_bytes=0)
    return m.result


def seed_bench(rows: int, **_: Any) -> dict[str, Any]:
    """This project's seeding (executemany / COPY) of ``rows`` rows into a fresh,
    migrated database given by DATABASE_URL."""
    baseline = setup_django("fast")
    from django.core.management import call_command

    call_command("migrate", verbosity=0, interactive=False)
    with Measurement(baseline) as m:
        seed(rows)
    m.result.update(urls=0, files=0, xml_bytes=0, gz_bytes=0)
    return m.result


def seed_demo(rows: int, **_: Any) -> dict[str, Any]:
    """The example project's `seed_demo --count N` into a fresh SQLite file
    (N articles plus N/10 tags and N/100 authors), as a child process."""
    work = scratch_dir("seed-demo-")
    manage = REPO / "example_project" / "manage.py"
    env = {
        **os.environ,
        "DATABASE_URL": f"sqlite:///{work / 'demo.sqlite3'}",
        "DEBUG": "false",
    }
    env.pop("DJANGO_SETTINGS_MODULE", None)
    subprocess.run(
        [sys.executable, str(manage), "migrate", "-v0"], env=env, check=True, capture_output=True
    )
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, str(manage), "seed_demo", "--count", str(rows), "--skip-checks"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    stdout, stderr = proc.stdout.read(), proc.stderr.read()  # type: ignore[union-attr]
    if proc.returncode != 0:
        raise RuntimeError(f"seed_demo failed: {stderr[-2000:]}")
    reported = re.search(r" in ([0-9.]+)s", stdout)
    shutil.rmtree(work, ignore_errors=True)
    return {
        # The command's own figure (setup excluded) when it prints one.
        "seconds": float(reported.group(1)) if reported else wall,
        "wall_seconds_with_startup": wall,
        "cpu_seconds": usage.ru_utime + usage.ru_stime,
        "baseline_rss": None,
        "pre_rss": None,
        "peak_rss": usage.ru_maxrss * 1024,
        "process_peak_rss": usage.ru_maxrss * 1024,
        "detail": stdout.strip(),
        "urls": 0,
        "files": 0,
        "xml_bytes": 0,
        "gz_bytes": 0,
    }


# --------------------------------------------------------------------------- main


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("contender", choices=CONTENDERS + HELPERS)
    parser.add_argument(
        "--rows", type=int, default=0, help="rows in the table (views, incremental, seeding)"
    )
    parser.add_argument(
        "--keep-dir",
        help="sitemapkit-build-*, floor, floor-gzip: write into DIR and keep it; "
        "sitemapkit-view-*, contrib-i18n-view-page: keep the response as DIR/page.xml",
    )
    parser.add_argument(
        "--force", action="store_true", help="prepare: reseed even if the row count matches"
    )
    parser.add_argument(
        "--modes",
        nargs="*",
        default=[],
        choices=sorted(set(SECTION_MODES.values())),
        help="prepare, warm: the sections (bench/sitemaps.py modes) whose page boundaries "
        "to persist",
    )
    args = parser.parse_args()
    name: str = args.contender
    kwargs: dict[str, Any] = {"rows": args.rows, "keep_dir": args.keep_dir}
    runners: dict[str, Callable[..., dict[str, Any]]] = {
        "sitemapkit-build-fast": lambda **kw: sitemapkit_build("fast", **kw),
        "sitemapkit-build-nogzip": lambda **kw: sitemapkit_build("fast", use_gzip=False, **kw),
        "sitemapkit-build-absurl": lambda **kw: sitemapkit_build("absurl", **kw),
        "sitemapkit-build-perrow": lambda **kw: sitemapkit_build("perrow", **kw),
        "sitemapkit-build-generic": lambda **kw: sitemapkit_build("generic", **kw),
        "sitemapkit-images-build": lambda **kw: sitemapkit_build("images", **kw),
        "sitemapkit-incremental": sitemapkit_incremental,
        "contrib-views": contrib_views,
        "icv-generate": icv_generate,
        "floor": lambda **kw: floor(False, **kw),
        "floor-gzip": lambda **kw: floor(True, **kw),
        "sitemapkit-view-first": lambda **kw: sitemapkit_view("first", **kw),
        "sitemapkit-view-last": lambda **kw: sitemapkit_view("last", **kw),
        "sitemapkit-view-index": lambda **kw: sitemapkit_view("index", **kw),
        "count": count,
        "sitemapkit-i18n-build": lambda **kw: sitemapkit_build("i18n", **kw),
        "sitemapkit-i18n-view-page": lambda **kw: sitemapkit_view("first", mode="i18n", **kw),
        "contrib-i18n-view-page": contrib_i18n_page,
        "contrib-i18n-build": lambda **kw: contrib_views("i18n", **kw),
        "seed": seed_bench,
        "seed-demo": seed_demo,
    }
    if name in ("prepare", "warm"):
        setup_django("fast")
        if name == "prepare":
            result: dict[str, Any] = do_prepare(args.rows, args.force, args.modes)
        else:
            result = do_warm(args.rows, args.modes)
    else:
        result = runners[name](**kwargs)
    result["contender"] = name
    if "django_sitemapkit" in sys.modules:  # not for seed-demo, run as a child
        package = sys.modules["django_sitemapkit"].__file__
        result["sitemapkit_src"] = str(Path(str(package)).resolve().parent.parent)
    sys.stdout.write(json.dumps(result, default=str) + "\n")


if __name__ == "__main__":
    main()
