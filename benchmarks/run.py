#!/usr/bin/env python
"""Benchmark driver: seeds the databases, runs every contender round-robin in fresh
processes, prints tables and writes JSON.

    python benchmarks/run.py                                # 100,000 and 1,000,000 rows, SQLite and PostgreSQL, 3 rounds
    python benchmarks/run.py --rows 100000 --db sqlite --repeat 5
    python benchmarks/run.py --quick                        # 20,000 rows, 1 round: a smoke run
    python benchmarks/run.py --compare b219953              # the working tree against a revision

See benchmarks/README.md for what each figure means.
"""

from __future__ import annotations

import argparse
import gzip
import importlib.util
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import measure  # benchmarks/measure.py, beside this script

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
MEASURE = HERE / "measure.py"
# This run's scratch folder (exports, builds, verification), removed at its end; the
# measurements get it as BENCH_SCRATCH. One per run, so that runs at the same time
# (from other checkouts too) never remove one another's files.
SCRATCH = Path(tempfile.gettempdir()) / f"sitemapkit-bench-{os.getpid()}"
DEFAULT_PG_URL = "postgres://postgres@127.0.0.1:5432/sitemapkit_bench"

# The contenders' names are measure.py's, which runs them. Those of the
# three-language site run only when named (--contenders).
CONTENDERS = list(measure.CONTENDERS)
I18N_CONTENDERS = list(measure.I18N_CONTENDERS)
DEFAULT_CONTENDERS = [c for c in CONTENDERS if c not in I18N_CONTENDERS]
LIMIT = measure.LIMIT  # URLs a file (the name `measure` is the function below)
# Contenders that must list every row: their URL count is checked.
LISTS_EVERY_ROW = {
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
    "sitemapkit-incremental",
}
LANGUAGES = len(measure.I18N_LANGUAGES)
# The i18n builds list every row once per language.
LISTS_EVERY_ROW_PER_LANGUAGE = {"sitemapkit-i18n-build", "contrib-i18n-build"}


def expected_urls(contender: str, rows: int) -> int | None:
    """The URLs ``contender`` must list over ``rows`` rows; None: not checked."""
    if contender in LISTS_EVERY_ROW:
        return rows
    if contender in LISTS_EVERY_ROW_PER_LANGUAGE:
        return rows * LANGUAGES
    if contender == "sitemapkit-i18n-view-page":
        # An item's languages are never split across files: limit // 3 items a page.
        return min(rows, LIMIT // LANGUAGES) * LANGUAGES
    if contender == "contrib-i18n-view-page":
        # contrib pages (item, language) pairs: the limit exactly.
        return min(rows * LANGUAGES, LIMIT)
    return None


# The ratio columns' references: the floors, with and without gzip, and (for
# django-sitemapkit's builds) the fast path's build.
GZIP_FLOOR = "floor-gzip"
FLOOR = "floor"
FAST = "sitemapkit-build-fast"
SITEMAPKIT_BUILDS = {
    FAST,
    "sitemapkit-build-nogzip",
    "sitemapkit-images-build",
    "sitemapkit-build-absurl",
    "sitemapkit-build-perrow",
    "sitemapkit-build-generic",
    "sitemapkit-i18n-build",
}
# Builds whose page files must hold the floor's bytes (<loc> and <lastmod> only):
# the fast path always, the others when the group runs them.
SAME_BYTES_AS_FLOOR = (
    FAST,
    "sitemapkit-build-nogzip",
    "sitemapkit-build-absurl",
    "sitemapkit-build-perrow",
    "sitemapkit-build-generic",
)
# django-sitemapkit's contenders: with --compare, each runs for both trees.
SECTION_MODES = measure.SECTION_MODES
SITEMAPKIT_CONTENDERS = set(SECTION_MODES)
# Views whose responses --compare checks against the older tree's.
SITEMAPKIT_VIEWS = (
    "sitemapkit-view-first",
    "sitemapkit-view-last",
    "sitemapkit-view-index",
    "sitemapkit-i18n-view-page",
)
# 1-minute load average (before a measurement) above which a group's table warns.
# The runs themselves keep the load near 1; another busy process pushes it to 2 or more.
BUSY_LOAD = max(1.8, (os.cpu_count() or 1) * 0.9)
MB = 1024 * 1024


@dataclass(frozen=True)
class Tree:
    """A django_sitemapkit/ measured: this checkout, or a revision exported by git archive."""

    label: str  # "after" / "before" with --compare; "" when one tree is measured
    src: str  # BENCH_SITEMAPKIT_SRC: the export's folder; "" for this checkout
    revision: str | None

    def env(self) -> dict[str, str]:
        return {"BENCH_SITEMAPKIT_SRC": self.src}

    def path(self) -> str:
        """Where measure.py must find django_sitemapkit/ (it reports sitemapkit_src)."""
        return str(Path(self.src or REPO).resolve())


def log(message: str) -> None:
    sys.stderr.write(f"[{datetime.now():%H:%M:%S}] {message}\n")
    sys.stderr.flush()


# --------------------------------------------------------------------------- machine


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def package_version(name: str) -> str | None:
    from importlib import metadata

    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def git_revision() -> str | None:
    try:
        rev = subprocess.run(
            ["git", "-C", str(REPO), "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(REPO), "status", "--porcelain", "--", "django_sitemapkit"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None
    return rev + ("+uncommitted-changes" if dirty else "")


def machine_info(db_versions: dict[str, str]) -> dict[str, Any]:
    import sqlite3

    mem_kb = 0
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                mem_kb = int(line.split()[1])
    except OSError:
        pass
    import django

    return {
        "cpu": cpu_model(),
        "cores": os.cpu_count(),
        "memory_gib": round(mem_kb / 1024 / 1024, 1),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "django": django.get_version(),
        "sqlite": sqlite3.sqlite_version,
        "postgresql": db_versions.get("postgres"),
        "psycopg": package_version("psycopg"),
        "django_icv_sitemaps": package_version("django-icv-sitemaps"),
    }


# --------------------------------------------------------------------------- running


def measure(args: list[str], env: dict[str, str], timeout: float, tree: Tree) -> dict[str, Any]:
    """Run ``measure.py ARGS`` importing ``tree``'s django_sitemapkit; its JSON line."""
    load = os.getloadavg()[0]
    proc = subprocess.run(
        [sys.executable, str(MEASURE), *args],
        env={**os.environ, **env, **tree.env()},
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    if proc.returncode != 0:
        return {"error": (proc.stderr or proc.stdout)[-3000:], "returncode": proc.returncode}
    try:
        result: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    except (IndexError, json.JSONDecodeError):
        return {"error": f"no JSON line in output: {proc.stdout[-1000:]}{proc.stderr[-2000:]}"}
    result["loadavg_before"] = load
    imported = result.get("sitemapkit_src")
    if imported is not None and imported != tree.path():
        result["error"] = f"imported django_sitemapkit from {imported}, not {tree.path()}"
    return result


def database_url(db: str, rows: int, data_dir: Path, pg_url: str) -> str:
    if db == "sqlite":
        return f"sqlite:///{data_dir / f'bench-{rows}.sqlite3'}"
    return sized_pg_url(pg_url, rows)


def sized_pg_url(pg_url: str, rows: int) -> str:
    """A PostgreSQL database per table size (``<name>`` up to 1,000,000 rows, ``<name>_<N>`` above),
    so that sizes do not reseed one another."""
    if rows <= 1_000_000:
        return pg_url
    base, _, query = pg_url.partition("?")
    return f"{base}_{rows}" + (f"?{query}" if query else "")


def summarize(runs: list[dict[str, Any]], rows: int, contender: str) -> dict[str, Any]:
    ok = [r for r in runs if "error" not in r]
    summary: dict[str, Any] = {"runs": runs, "errors": len(runs) - len(ok)}
    if not ok:
        return summary
    seconds = [r["seconds"] for r in ok]
    summary.update(
        median=statistics.median(seconds),
        min=min(seconds),
        max=max(seconds),
        cpu_median=statistics.median(r["cpu_seconds"] for r in ok),
        peak_rss_mb=statistics.median(r["peak_rss"] for r in ok) / MB,
        children_peak_rss_mb=statistics.median(children_peak(r) for r in ok) / MB,
    )
    baselines = [r for r in ok if r.get("baseline_rss")]
    if baselines:
        summary["baseline_rss_mb"] = statistics.median(r["baseline_rss"] for r in baselines) / MB
        summary["above_baseline_mb"] = (
            statistics.median(r["peak_rss"] - r["baseline_rss"] for r in baselines) / MB
        )
    urls = {r.get("urls") for r in ok}
    summary["urls"] = sorted(u for u in urls if u is not None)
    summary["max_loadavg_before"] = max(r.get("loadavg_before", 0.0) for r in ok)
    expected = expected_urls(contender, rows)
    if expected is not None and urls != {expected}:
        summary["url_mismatch"] = True
    return summary


def children_peak(run: dict[str, Any]) -> int:
    """The peak RSS of the timed work's child processes; 0 when none, or none
    larger than a child that ran before the timed work (ru_maxrss keeps the largest)."""
    after = run.get("children_peak_rss") or 0
    return after if after > (run.get("children_peak_rss_before") or 0) else 0


def schedule(contenders: list[str], trees: list[Tree], round_: int) -> Iterator[tuple[str, Tree]]:
    """One round: every contender, django-sitemapkit's once per tree, the others once.

    Round-robin; each round starts one contender later, so that none is always
    first, and runs the trees of a contender in the other order than the round before.
    """
    shift = round_ % len(contenders)
    order = trees if round_ % 2 == 0 else trees[::-1]
    for contender in contenders[shift:] + contenders[:shift]:
        for tree in order if contender in SITEMAPKIT_CONTENDERS else trees[:1]:
            yield contender, tree


def run_group(
    db: str, rows: int, args: argparse.Namespace, contenders: list[str], trees: list[Tree]
) -> dict[str, Any]:
    env = {"DATABASE_URL": database_url(db, rows, args.data_dir, args.pg_url)}
    label = f"{db} {rows:,}"
    group: dict[str, Any] = {"db": db, "rows": rows, "database_url": env["DATABASE_URL"]}
    log(f"{label}: preparing (migrate, seed if needed, warm page boundaries)")
    modes = sorted({SECTION_MODES[c] for c in contenders if c in SITEMAPKIT_CONTENDERS})
    prep_args = ["prepare", "--rows", str(rows), "--modes", *modes]
    group["prepare"] = prep = measure(
        prep_args + (["--force"] if args.reseed else []), env, args.timeout, trees[0]
    )
    if "error" not in prep and prep.get("reseeded"):
        log(f"{label}: seeded in {prep['seed_seconds']:.1f} s")
    for tree in trees[1:]:  # the same page table: the older tree persists what it lacks
        warm = measure(["warm", "--rows", str(rows), "--modes", *modes], env, args.timeout, tree)
        if "error" in warm:
            prep.setdefault("error", f"warming the {tree.label} tree: {warm['error']}")
    if "error" in prep:
        log(f"{label}: prepare failed:\n{prep['error']}")
        return {**group, "contenders": {}}
    runs: dict[tuple[str, str], list[dict[str, Any]]] = {}
    started = time.perf_counter()
    for round_ in range(args.repeat):
        for contender, tree in schedule(contenders, trees, round_):
            result = measure([contender, "--rows", str(rows)], env, args.timeout, tree)
            runs.setdefault((contender, tree.label), []).append(result)
            name = f"{label} round {round_ + 1}/{args.repeat} {contender}"
            if tree.label and contender in SITEMAPKIT_CONTENDERS:
                name += f" ({tree.label})"
            if "error" in result:
                log(f"{name}: FAILED\n{result['error']}")
            else:
                log(
                    f"{name}: {result['seconds']:.3f} s, "
                    f"peak {result['peak_rss'] / MB:.0f} MB, {result.get('urls', 0):,} URLs"
                )
    group["elapsed_seconds"] = time.perf_counter() - started
    group["contenders"] = {c: summarize(runs[(c, trees[0].label)], rows, c) for c in contenders}
    if len(trees) > 1:
        group["before"] = {
            c: summarize(runs[(c, tree.label)], rows, c)
            for tree in trees[1:]
            for c in contenders
            if c in SITEMAPKIT_CONTENDERS
        }
    if args.verify:
        verify_group(group, env, args.timeout, contenders, trees)
    return group


def verify_group(
    group: dict[str, Any],
    env: dict[str, str],
    timeout: float,
    contenders: list[str],
    trees: list[Tree],
) -> None:
    """The group's checks of what the contenders write (unless --no-verify)."""
    checked = [c for c in SAME_BYTES_AS_FLOOR if c == FAST or c in contenders]
    group["verified_builds"] = []
    SCRATCH.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="verify-", dir=SCRATCH))
    try:
        if set(contenders) - set(I18N_CONTENDERS):
            group["identical_to_floor"] = verify(env, timeout, checked, trees, work)
            group["verified_builds"] = checked
        if set(I18N_CONTENDERS).intersection(contenders):
            group["i18n_page_comparison"] = verify_i18n(env, timeout, trees[0])
        if len(trees) > 1:
            group["same_as_before"] = compare_trees(env, timeout, contenders, trees, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def verify(
    env: dict[str, str], timeout: float, builds: list[str], trees: list[Tree], work: Path
) -> bool | str:
    """Do the page files of django-sitemapkit's ``builds`` (of every tree) hold
    exactly the floor's bytes? The builds stay in ``work`` (``<tree>-<build>``).

    True, or what differs (the first build that does).
    """
    floor = measure(["floor", "--keep-dir", str(work / "floor")], env, timeout, trees[0])
    if "error" in floor:
        return "verification failed to run: floor"
    floor_pages = sorted((work / "floor").glob("sitemap-floor-*.xml"), key=page_number)
    for tree in trees:
        for build in builds:
            name = f"{build} ({tree.label})" if tree.label else build
            kept = work / f"{tree.label}-{build}"
            if "error" in measure([build, "--keep-dir", str(kept)], env, timeout, tree):
                return f"verification failed to run: {name}"
            kit_pages = sorted((kept / "current").glob("sitemap-*-*.xml"), key=page_number)
            if len(floor_pages) != len(kit_pages):
                return f"{name}: {len(kit_pages)} page files, the floor wrote {len(floor_pages)}"
            for a, b in zip(floor_pages, kit_pages, strict=True):
                if a.read_bytes() != b.read_bytes():
                    return f"{name}: {b.name} differs from the floor's {a.name}"
    return True


INDEX_LASTMOD_RE = re.compile(rb"<lastmod>[^<]*</lastmod>")


def compare_trees(
    env: dict[str, str], timeout: float, contenders: list[str], trees: list[Tree], work: Path
) -> dict[str, Any]:
    """Do the trees write the same files, and serve the same responses?

    Every build the group ran (the fast path always) and every view response
    it measured, once more per tree: each page file and each response must be
    the same bytes, a ``.xml.gz`` the same once decompressed; an index the
    same but for its ``<lastmod>`` values, which #27 lets change (counted).
    Builds verify() kept in ``work`` are not run again.
    """
    after, before = trees[0], trees[1]
    builds = sorted(c for c in SITEMAPKIT_BUILDS if c == FAST or c in contenders)
    views = [c for c in SITEMAPKIT_VIEWS if c in contenders]
    differences: list[str] = []
    lastmods = files = 0
    for name in builds + views:
        dirs, failed = [], []
        for tree in (after, before):
            kept = work / f"{tree.label}-{name}"
            ran = kept.exists() or "error" not in measure(
                [name, "--keep-dir", str(kept)], env, timeout, tree
            )
            if not ran:
                failed.append(f"{name} ({tree.label}) failed to run")
            dirs.append(kept / "current" if name in builds else kept)
        if failed:
            differences += failed
            continue
        found, moved, compared = same_files(dirs[0], dirs[1])
        differences += [f"{name}: {d}" for d in found]
        lastmods += moved
        files += compared
    note = f"{files} files and responses of {len(builds)} builds and {len(views)} views"
    note += " alike" if not differences else f"; {len(differences)} differ: {differences[0]}"
    if lastmods:
        note += f"; {lastmods} index lastmod(s) differ"
    return {
        "ok": not differences,
        "note": note,
        "builds": builds,
        "views": views,
        "files": files,
        "differences": differences[:20],
        "index_lastmods_differing": lastmods,
    }


def same_files(after: Path, before: Path) -> tuple[list[str], int, int]:
    """The differences between two folders of sitemap files, the index lastmods
    that differ, and the files compared."""

    def files(folder: Path) -> dict[str, Path]:
        return {
            str(path.relative_to(folder)): path
            for path in folder.rglob("*")
            if path.is_file() and path.name.endswith((".xml", ".xml.gz"))
        }

    mine, theirs = files(after), files(before)
    differences = [f"{name} only after" for name in sorted(mine.keys() - theirs.keys())]
    differences += [f"{name} only before" for name in sorted(theirs.keys() - mine.keys())]
    moved = 0
    for name in sorted(mine.keys() & theirs.keys()):
        a, b = (
            gzip.decompress(p.read_bytes()) if name.endswith(".gz") else p.read_bytes()
            for p in (mine[name], theirs[name])
        )
        if a == b:
            continue
        index = b"<sitemapindex" in a[:300]
        if index and INDEX_LASTMOD_RE.sub(b"", a) == INDEX_LASTMOD_RE.sub(b"", b):
            if not name.endswith(".gz"):  # its .xml.gz holds the same lastmods
                pairs = zip(INDEX_LASTMOD_RE.findall(a), INDEX_LASTMOD_RE.findall(b), strict=True)
                moved += sum(x != y for x, y in pairs)
        else:
            differences.append(f"{name} differs")
    return differences, moved, len(mine.keys() & theirs.keys())


def page_number(path: Path) -> int:
    """N of a page file ``sitemap-<section>-N.xml``."""
    return int(path.stem.rsplit("-", 1)[1])


URL_RE = re.compile(r"<url>(.*?)</url>", re.S)
LOC_RE = re.compile(r"<loc>([^<]*)</loc>")
LASTMOD_RE = re.compile(r"<lastmod>([^<]*)</lastmod>")
ALTERNATE_RE = re.compile(r'<xhtml:link rel="alternate" hreflang="([^"]*)" href="([^"]*)"/>')


def page_entries(xml: str) -> dict[str, tuple[str, tuple[tuple[str, str], ...]]]:
    """loc -> (lastmod's date, alternates) of each ``<url>`` of a page.

    The date only: contrib writes ``<lastmod>`` as a date, sitemapkit as a datetime.
    """
    entries = {}
    for body in URL_RE.findall(xml):
        loc = LOC_RE.search(body)
        lastmod = LASTMOD_RE.search(body)
        assert loc is not None, body[:200]
        entries[loc.group(1)] = (
            lastmod.group(1)[:10] if lastmod else "",
            tuple(ALTERNATE_RE.findall(body)),
        )
    return entries


def verify_i18n(env: dict[str, str], timeout: float, tree: Tree) -> dict[str, Any]:
    """Compare page 1 of the i18n section, sitemapkit's view against contrib's.

    Entry by entry: the same ``<loc>``, the same lastmod date and the same
    alternates (hreflang and href, in order). sitemapkit writes all of an
    item's languages in one file (``limit // 3`` items a page), contrib cuts
    its list of (item, language) pairs every ``limit``: where ``limit`` is not
    a multiple of 3, contrib's page also lists the first languages of the next
    item, which sitemapkit lists on page 2. Those are reported, not failed.
    """
    SCRATCH.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="verify-i18n-", dir=SCRATCH))
    try:
        pages = {}
        for side, contender in (
            ("kit", "sitemapkit-i18n-view-page"),
            ("contrib", "contrib-i18n-view-page"),
        ):
            result = measure([contender, "--keep-dir", str(work / side)], env, timeout, tree)
            if "error" in result:
                return {"ok": False, "note": f"{contender} failed to run"}
            pages[side] = page_entries((work / side / "page.xml").read_text())
        kit, contrib = pages["kit"], pages["contrib"]
        common = kit.keys() & contrib.keys()
        differing = sorted(loc for loc in common if kit[loc] != contrib[loc])
        only_kit = sorted(kit.keys() - contrib.keys())
        only_contrib = sorted(contrib.keys() - kit.keys())
        # contrib's extra URLs: all of one item (the same alternates), none of it in sitemapkit's page.
        split_items = {contrib[loc][1] for loc in only_contrib}
        kit_items = {alternates for _date, alternates in kit.values()}
        split_ok = len(split_items) <= 1 and not split_items & kit_items
        ok = not differing and not only_kit and split_ok
        note = f"{len(common) - len(differing):,} of {len(kit):,} sitemapkit entries alike in contrib's page"
        if only_contrib:
            note += (
                f"; contrib's page also lists {len(only_contrib)} URL(s) of "
                f"{len(split_items)} item split across its pages: {', '.join(only_contrib)}"
            )
        if only_kit:
            note += f"; {len(only_kit)} only in sitemapkit's, e.g. {only_kit[0]}"
        if differing:
            note += f"; {len(differing)} differ, e.g. {differing[0]}"
        return {
            "ok": ok,
            "note": note,
            "kit_entries": len(kit),
            "contrib_entries": len(contrib),
            "alike": len(common) - len(differing),
            "only_contrib": only_contrib,
            "only_kit": only_kit[:20],
            "differing": differing[:20],
        }
    finally:
        shutil.rmtree(work, ignore_errors=True)


def run_seeding(rows: int, args: argparse.Namespace, tree: Tree) -> dict[str, Any]:
    """SQLite seeding of ``rows`` rows into a fresh file: this project's seeding
    (executemany) and the example project's seed_demo, round-robin."""
    SCRATCH.mkdir(parents=True, exist_ok=True)
    target = SCRATCH / "seed-bench.sqlite3"
    runs: dict[str, list[dict[str, Any]]] = {"seed": [], "seed-demo": []}
    for round_ in range(args.repeat):
        for contender in ("seed", "seed-demo") if round_ % 2 == 0 else ("seed-demo", "seed"):
            for suffix in ("", "-journal", "-wal", "-shm"):
                Path(f"{target}{suffix}").unlink(missing_ok=True)
            result = measure(
                [contender, "--rows", str(rows)],
                {"DATABASE_URL": f"sqlite:///{target}"},
                args.timeout,
                tree,
            )
            runs[contender].append(result)
            if "error" in result:
                log(f"seeding {rows:,} round {round_ + 1} {contender}: FAILED\n{result['error']}")
            else:
                log(f"seeding {rows:,} round {round_ + 1} {contender}: {result['seconds']:.2f} s")
    for suffix in ("", "-journal", "-wal", "-shm"):
        Path(f"{target}{suffix}").unlink(missing_ok=True)
    return {c: summarize(r, rows, c) for c, r in runs.items()}


# --------------------------------------------------------------------------- output


def fmt_seconds(value: float) -> str:
    if value >= 100:
        return f"{value:.0f}"
    if value >= 10:
        return f"{value:.1f}"
    if value >= 1:
        return f"{value:.2f}"
    return f"{value:.3f}"


def table(
    title: str, contenders: dict[str, dict[str, Any]], before: dict[str, dict[str, Any]]
) -> str:
    """One group's table; with ``before`` (--compare), the older tree's row
    under each of django-sitemapkit's contenders and an ``after/before`` column."""

    def median_of(summaries: dict[str, dict[str, Any]], name: str) -> float | None:
        return summaries.get(name, {}).get("median")

    def ratio(s: dict[str, Any], base: float | None) -> str:
        return f"{s['median'] / base:.2f}" if base else "-"

    gzip_floor, floor = median_of(contenders, GZIP_FLOOR), median_of(contenders, FLOOR)
    header = (
        "contender",
        "median s",
        "min-max s",
        "x gzip floor",
        "x floor",
        "x fast path",
        *(("after/before",) if before else ()),
        "CPU s",
        "peak RSS MB",
        "child RSS MB",
        "above base MB",
        "URLs",
    )
    rows: list[tuple[str, dict[str, Any], dict[str, dict[str, Any]], str]] = []
    for name, s in contenders.items():
        if name not in before:
            rows.append((name, s, contenders, "-" if before else ""))
            continue
        rows.append((name, s, contenders, compared(s, before[name])))
        rows.append((f"{name} (before)", before[name], before, "-"))
    lines = []
    for label, s, peers, after_before in rows:
        if "median" not in s:
            lines.append((label, "FAILED", *[""] * (len(header) - 2)))
            continue
        urls = ",".join(f"{u:,}" for u in s.get("urls", []) if u) or "-"
        if s.get("url_mismatch"):
            urls += " (!)"
        if s.get("errors"):
            urls += f" ({s['errors']} failed)"
        children = s.get("children_peak_rss_mb", 0)
        name = label.removesuffix(" (before)")
        lines.append(
            (
                label,
                fmt_seconds(s["median"]),
                f"{fmt_seconds(s['min'])}-{fmt_seconds(s['max'])}",
                ratio(s, gzip_floor),
                ratio(s, floor),
                ratio(s, median_of(peers, FAST)) if name in SITEMAPKIT_BUILDS else "-",
                *((after_before,) if before else ()),
                fmt_seconds(s["cpu_median"]),
                f"{s['peak_rss_mb']:.0f}",
                f"{children:.0f}" if children else "-",
                f"{s['above_baseline_mb']:.0f}" if "above_baseline_mb" in s else "-",
                urls,
            )
        )
    return "\n".join([title, *columns([header, *lines])])


def compared(after: dict[str, Any], before: dict[str, Any]) -> str:
    """The ``after/before`` ratio of two medians, or ``-``."""
    if "median" in after and before.get("median"):
        return f"{after['median'] / before['median']:.2f}"
    return "-"


def columns(rows: list[tuple[str, ...]]) -> list[str]:
    """Rows as aligned text columns, the first left-aligned, a rule under the header."""
    widths = [max(len(str(row[i])) for row in rows) for i in range(len(rows[0]))]
    out = []
    for j, row in enumerate(rows):
        out.append(
            "  ".join(
                str(c).ljust(w) if i == 0 else str(c).rjust(w)
                for i, (c, w) in enumerate(zip(row, widths, strict=True))
            ).rstrip()
        )
        if j == 0:
            out.append("  ".join("-" * w for w in widths))
    return out


def group_table(key: str, group: dict[str, Any]) -> str:
    same = group.get("identical_to_floor")
    # Older reports checked the fast path only, and did not say so.
    builds = group.get("verified_builds") or [FAST]
    checked = ", ".join(name.removeprefix("sitemapkit-build-") for name in builds)
    trees = " of both trees" if group.get("before") else ""
    note = {
        True: f"; page files identical to the floor's (builds{trees}: {checked})",
        None: "",
    }.get(same, f"; NOT identical to the floor: {same}")
    i18n = group.get("i18n_page_comparison")
    if i18n:
        note += f"; i18n page 1: {'' if i18n['ok'] else 'MISMATCH: '}{i18n['note']}"
    versus = group.get("same_as_before")
    if versus:
        note += f"; against before: {'' if versus['ok'] else 'DIFFERENT: '}{versus['note']}"
    title = f"== {key} ({group['elapsed_seconds'] / 60:.1f} min{note})"
    summaries = [*group["contenders"].values(), *group.get("before", {}).values()]
    load = max((s.get("max_loadavg_before", 0.0) for s in summaries), default=0.0)
    if load > BUSY_LOAD:
        title += (
            f"\n   WARNING: the machine was busy (load average up to {load:.1f} before a"
            " measurement); these timings are not reliable"
        )
    return table(title, group["contenders"], group.get("before", {}))


def all_tables(report: dict[str, Any]) -> str:
    parts = []
    for key, group in report["groups"].items():
        if group.get("contenders"):
            parts.append(group_table(key, group))
    if report.get("seeding"):
        parts.append(seeding_table(report["seeding_rows"], report["seeding"]))
    holds = must_hold(report)
    if holds:
        parts.append(holds)
    return "\n\n".join(parts)


# --------------------------------------------------------------------------- must hold (#27)

# The figures issue #27 requires of the redesigned engine, with their limits.
FLOOR_LIMIT = 1.25  # full build, fast path, one process: x the raw-cursor floor
ABSURL_LIMIT = 1.3  # get_absolute_url() read as the pattern: x the fast path
LINEAR_SLACK = 1.05  # 10x the rows: at most 10.5x the time
RSS_LIMIT_MB = 25  # peak RSS above setup of the largest build
INCREMENTAL_LIMIT = 0.25  # 10 scattered edits: x a full build
INDEX_LIMIT = 3.0  # live index: x one COUNT(*)
VIEW_PAGE_LIMIT = 1.5  # one uncached 50,000-URL page: x before's


def must_hold(report: dict[str, Any]) -> str:
    """The figures of #27's "Must hold" that the run's contenders give, per
    group, after and (with --compare) before, each against its limit."""
    rows: list[tuple[str, ...]] = []
    groups = [g for g in report["groups"].values() if g.get("contenders")]
    for group in groups:
        where = f"{group['db']} {group['rows']:,}"
        after, before = group["contenders"], group.get("before")
        for figure, limit, of in GROUP_FIGURES:
            value = of(after)
            if value is None:
                continue
            old = of(merged(after, before)) if before else None
            rows.append(verdict(figure, where, value, old, limit))
        if before:
            ratio = ratio_of(after, before, "sitemapkit-view-first", "sitemapkit-view-first")
            if ratio is not None:
                figure = "view-first after / before"
                rows.append(verdict(figure, where, ratio, None, VIEW_PAGE_LIMIT))
            versus = group.get("same_as_before")
            if versus:
                value_text = "alike" if versus["ok"] else "DIFFERENT"
                lastmods = versus["index_lastmods_differing"]
                rows.append(
                    (
                        "files and responses as before's",
                        where,
                        f"{value_text}; {lastmods} index lastmods moved",
                        "",
                        "same bytes",
                        "ok" if versus["ok"] else "FAILS",
                    )
                )
    rows += scaling_rows(groups)
    if not rows:
        return ""
    header: tuple[str, ...] = ("figure", "group", "after", "before", "limit", "")
    if not any(g.get("before") for g in groups):  # one tree: no before column
        header = ("figure", "group", "value", "limit", "")
        rows = [row[:3] + row[4:] for row in rows]
    return "\n".join(
        [
            "== Must hold (#27; its limits are set at 1,000,000 and 10,000,000 rows)",
            *columns([header, *rows]),
        ]
    )


def merged(after: dict[str, Any], before: dict[str, Any] | None) -> dict[str, Any]:
    """``before``'s summaries, with the contenders run once (floors, count) from ``after``."""
    return {**after, **(before or {})}


def ratio_of(a: dict[str, Any], b: dict[str, Any], name_a: str, name_b: str) -> float | None:
    x, y = a.get(name_a, {}).get("median"), b.get(name_b, {}).get("median")
    return x / y if x is not None and y else None


GROUP_FIGURES: list[tuple[str, float, Any]] = [
    (
        "build-fast / floor-gzip (.xml + .gz)",
        FLOOR_LIMIT,
        lambda s: ratio_of(s, s, FAST, GZIP_FLOOR),
    ),
    (
        "build-nogzip / floor (.xml)",
        FLOOR_LIMIT,
        lambda s: ratio_of(s, s, "sitemapkit-build-nogzip", FLOOR),
    ),
    (
        "build-fast / floor (no floor-gzip run)",
        FLOOR_LIMIT,
        lambda s: None if GZIP_FLOOR in s else ratio_of(s, s, FAST, FLOOR),
    ),
    (
        "build-absurl / build-fast",
        ABSURL_LIMIT,
        lambda s: ratio_of(s, s, "sitemapkit-build-absurl", FAST),
    ),
    (
        "incremental / build-fast",
        INCREMENTAL_LIMIT,
        lambda s: ratio_of(s, s, "sitemapkit-incremental", FAST),
    ),
    (
        "view-index / count",
        INDEX_LIMIT,
        lambda s: ratio_of(s, s, "sitemapkit-view-index", "count"),
    ),
]


def verdict(
    figure: str, where: str, value: float, old: float | None, limit: float
) -> tuple[str, ...]:
    return (
        figure,
        where,
        f"{value:.2f}",
        "-" if old is None else f"{old:.2f}",
        f"<= {limit:g}",
        "ok" if value <= limit else "FAILS",
    )


def scaling_rows(groups: list[dict[str, Any]]) -> list[tuple[str, ...]]:
    """Per database run at two sizes or more: each contender's time at the largest
    over the smallest (linear: <= 1.05 x the ratio of the sizes) and its peak RSS
    above setup at each size (<= 25 MB for the fast path's build)."""
    rows: list[tuple[str, ...]] = []
    for db in dict.fromkeys(g["db"] for g in groups):
        sized = sorted((g for g in groups if g["db"] == db), key=lambda g: g["rows"])
        if len(sized) < 2:
            continue
        small, large = sized[0], sized[-1]
        scale = large["rows"] / small["rows"]
        for tree, key in (("", "contenders"), (" (before)", "before")):
            for name, s in large.get(key, {}).items():
                base = small.get(key, {}).get(name, {})
                if "median" not in s or not base.get("median"):
                    continue
                limit = LINEAR_SLACK * scale
                value = s["median"] / base["median"]
                rows.append(
                    (
                        f"{name}{tree}: time {large['rows']:,} / {small['rows']:,}",
                        db,
                        f"{value:.2f}",
                        "",
                        f"<= {limit:g}",
                        ("ok" if value <= limit else "FAILS") if name == FAST else "",
                    )
                )
                for g in sized:
                    above = g.get(key, {}).get(name, {}).get("above_baseline_mb")
                    if above is None:
                        continue
                    child = g[key][name].get("children_peak_rss_mb", 0)
                    judged = name == FAST and g is large
                    rows.append(
                        (
                            f"{name}{tree}: peak RSS above setup, MB",
                            f"{db} {g['rows']:,}",
                            f"{above:.0f}" + (f" (+ child {child:.0f})" if child else ""),
                            "",
                            f"<= {RSS_LIMIT_MB}" if judged else "",
                            ("ok" if above <= RSS_LIMIT_MB else "FAILS") if judged else "",
                        )
                    )
    return rows


def seeding_table(rows: int, seeding: dict[str, dict[str, Any]]) -> str:
    labels = {
        "seed": "bench project (one INSERT ... SELECT)",
        "seed-demo": "example_project seed_demo (+ tags, authors)",
    }
    lines: list[tuple[str, ...]] = [("", "median s", "min-max s", "peak RSS MB")]
    for name, s in seeding.items():
        if "median" not in s:
            lines.append((labels[name], "FAILED", "", ""))
            continue
        lines.append(
            (
                labels[name],
                fmt_seconds(s["median"]),
                f"{fmt_seconds(s['min'])}-{fmt_seconds(s['max'])}",
                f"{s['peak_rss_mb']:.0f}",
            )
        )
    return "\n".join([f"== SQLite seeding of {rows:,} rows into a fresh file", *columns(lines)])


# --------------------------------------------------------------------------- main


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, nargs="+", help="row counts (default: 100000 1000000)")
    parser.add_argument(
        "--db", nargs="+", choices=["sqlite", "postgres"], default=["sqlite", "postgres"]
    )
    parser.add_argument(
        "--repeat", type=int, help="rounds over the contenders (default 3; 1 with --quick)"
    )
    parser.add_argument(
        "--contenders",
        nargs="+",
        choices=CONTENDERS,
        default=DEFAULT_CONTENDERS,
        help="default: all but the i18n ones (" + ", ".join(I18N_CONTENDERS) + ")",
    )
    parser.add_argument("--out", type=Path, default=HERE / "results" / "latest.json")
    parser.add_argument("--quick", action="store_true", help="smoke run: 20,000 rows, 1 round")
    parser.add_argument(
        "--seed-rows",
        type=int,
        help="rows for the SQLite seeding benchmark (default: the largest --rows up to "
        "1,000,000; 0 with --compare; 0: skip)",
    )
    parser.add_argument(
        "--pg-url",
        default=os.environ.get("BENCH_PG_URL", DEFAULT_PG_URL),
        help="PostgreSQL database (created if missing)",
    )
    parser.add_argument(
        "--data-dir", type=Path, default=HERE / ".data", help="where the SQLite databases live"
    )
    parser.add_argument(
        "--reseed", action="store_true", help="reseed even when a database holds the right rows"
    )
    parser.add_argument(
        "--timeout", type=float, default=1800, help="seconds allowed per measurement"
    )
    parser.add_argument(
        "--no-verify",
        dest="verify",
        action="store_false",
        help="skip checking that django-sitemapkit's page files equal the floor's, byte for byte",
    )
    revisions = parser.add_mutually_exclusive_group()
    revisions.add_argument(
        "--rev",
        help="benchmark django_sitemapkit (and example_project) as of this git revision "
        "(exported with git archive) instead of the working tree",
    )
    revisions.add_argument(
        "--compare",
        metavar="REV",
        help="benchmark the working tree (after) and git revision REV (before) in one "
        "interleaved run: django-sitemapkit's contenders run for both",
    )
    args = parser.parse_args()
    os.environ["BENCH_SCRATCH"] = str(SCRATCH)  # every measurement's, children's too
    if args.quick:
        args.rows = args.rows or [20_000]
        args.repeat = args.repeat or 1
    args.rows = args.rows or [100_000, 1_000_000]
    if "icv-generate" in args.contenders and importlib.util.find_spec("icv_sitemaps") is None:
        log(
            "django-icv-sitemaps is not installed (pip install -e '.[bench]'): icv-generate skipped"
        )
        args.contenders = [c for c in args.contenders if c != "icv-generate"]
    args.repeat = args.repeat or 3
    if args.seed_rows is None:
        wanted = "sqlite" in args.db and not args.compare
        args.seed_rows = min(max(args.rows), 1_000_000) if wanted else 0
    args.data_dir.mkdir(parents=True, exist_ok=True)

    trees = [Tree("", os.environ.get("BENCH_SITEMAPKIT_SRC", ""), git_revision())]
    if args.rev:
        commit, folder = export_revision(args.rev)
        trees = [Tree("", str(folder), commit)]
        log(f"benchmarking django_sitemapkit at {commit[:12]} ({folder})")
    elif args.compare:
        commit, folder = export_revision(args.compare)
        trees = [Tree("after", "", git_revision()), Tree("before", str(folder), commit)]
        log(f"comparing the working tree (after) with {commit[:12]} (before, {folder})")

    db_versions: dict[str, str] = {}
    if "postgres" in args.db:
        for rows in args.rows:
            db_versions["postgres"] = ensure_pg_database(sized_pg_url(args.pg_url, rows))

    report: dict[str, Any] = {
        "started": datetime.now(UTC).isoformat(timespec="seconds"),
        "args": {
            "rows": args.rows,
            "db": args.db,
            "repeat": args.repeat,
            "contenders": args.contenders,
            "seed_rows": args.seed_rows,
            "compare": args.compare,
        },
        "machine": machine_info(db_versions),
        # The tree measured; with --compare, "after" (this checkout) and "before".
        "django_sitemapkit_revision": trees[0].revision,
        "trees": {t.label or "measured": {"revision": t.revision, "src": t.path()} for t in trees},
        "groups": {},
    }
    t0 = time.perf_counter()
    for rows in args.rows:
        for db in args.db:
            key = f"{db} {rows:,} rows"
            report["groups"][key] = group = run_group(db, rows, args, list(args.contenders), trees)
            if group.get("contenders"):  # on stderr with the progress; stdout gets the summary
                log("\n" + group_table(key, group))
            write_report(report, args.out)
    if args.seed_rows:
        report["seeding_rows"] = args.seed_rows
        report["seeding"] = run_seeding(args.seed_rows, args, trees[0])
    report["total_minutes"] = (time.perf_counter() - t0) / 60
    write_report(report, args.out)
    print(all_tables(report))
    print(f"\n{report['total_minutes']:.1f} min in all; JSON: {args.out}")
    failed = any(
        s.get("errors") or s.get("url_mismatch") or "median" not in s
        for g in report["groups"].values()
        for s in [*g.get("contenders", {}).values(), *g.get("before", {}).values()]
    ) or any("error" in g.get("prepare", {}) for g in report["groups"].values())
    sys.exit(1 if failed else 0)


def ensure_pg_database(url: str) -> str:
    """Create the database of ``url`` when it does not exist; return the server version."""
    import psycopg
    from psycopg import sql

    dbname = url.rsplit("/", 1)[1].split("?", 1)[0]
    admin_url = url.rsplit("/", 1)[0] + "/postgres"
    with psycopg.connect(admin_url, autocommit=True) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [dbname]).fetchone()
        if not exists:
            log(f"creating PostgreSQL database {dbname}")
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(dbname)))
        return str(conn.execute("SHOW server_version").fetchone()[0])


def export_revision(rev: str) -> tuple[str, Path]:
    """Export django_sitemapkit/ and example_project/ at ``rev`` into a scratch
    folder; return the full commit id and the folder (BENCH_SITEMAPKIT_SRC)."""
    commit = subprocess.run(
        ["git", "-C", str(REPO), "rev-parse", "--verify", f"{rev}^{{commit}}"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    target = SCRATCH / f"src-{commit[:12]}"
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir(parents=True)
    archive = subprocess.run(
        ["git", "-C", str(REPO), "archive", commit, "django_sitemapkit", "example_project"],
        capture_output=True,
        check=True,
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(target)], input=archive, check=True)
    return commit, target


def write_report(report: dict[str, Any], path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(report, indent=2, default=str) + "\n")
    tmp.replace(path)


if __name__ == "__main__":
    try:
        main()
    finally:
        shutil.rmtree(SCRATCH, ignore_errors=True)
