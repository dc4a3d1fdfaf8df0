#!/usr/bin/env python
"""Benchmark driver: seeds the databases, runs every contender round-robin in fresh
processes, prints tables and writes JSON.

    python benchmarks/run.py                                # 100,000 and 1,000,000 rows, SQLite and PostgreSQL, 3 rounds
    python benchmarks/run.py --rows 100000 --db sqlite --repeat 5
    python benchmarks/run.py --quick                        # 20,000 rows, 1 round: a smoke run

See benchmarks/README.md for what each figure means.
"""

from __future__ import annotations

import argparse
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
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import measure  # benchmarks/measure.py, beside this script

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
MEASURE = HERE / "measure.py"
SCRATCH = Path(tempfile.gettempdir()) / "sitemapkit-bench"
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
    "sitemapkit-incremental-log",
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
# 1-minute load average (before a measurement) above which a group's table warns.
# The runs themselves keep the load near 1; another busy process pushes it to 2 or more.
BUSY_LOAD = max(1.8, (os.cpu_count() or 1) * 0.9)
MB = 1024 * 1024


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


def measure(args: list[str], env: dict[str, str], timeout: float) -> dict[str, Any]:
    load = os.getloadavg()[0]
    proc = subprocess.run(
        [sys.executable, str(MEASURE), *args],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    if proc.returncode != 0:
        return {"error": (proc.stderr or proc.stdout)[-3000:], "returncode": proc.returncode}
    try:
        result: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
        result["loadavg_before"] = load
        return result
    except (IndexError, json.JSONDecodeError):
        return {"error": f"no JSON line in output: {proc.stdout[-1000:]}{proc.stderr[-2000:]}"}


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


def run_group(
    db: str, rows: int, args: argparse.Namespace, contenders: list[str]
) -> dict[str, Any]:
    env = {"DATABASE_URL": database_url(db, rows, args.data_dir, args.pg_url)}
    label = f"{db} {rows:,}"
    log(f"{label}: preparing (migrate, seed if needed, warm page boundaries)")
    prep_args = ["prepare", "--rows", str(rows)] + (["--force"] if args.reseed else [])
    i18n = bool(set(I18N_CONTENDERS).intersection(contenders))
    if i18n:
        prep_args.append("--warm-i18n")
    prep = measure(prep_args, env, args.timeout)
    if "error" in prep:
        log(f"{label}: prepare failed:\n{prep['error']}")
        return {"prepare": prep, "contenders": {}}
    if prep.get("reseeded"):
        log(f"{label}: seeded in {prep['seed_seconds']:.1f} s")
    runs: dict[str, list[dict[str, Any]]] = {c: [] for c in contenders}
    started = time.perf_counter()
    for round_ in range(args.repeat):
        # Round-robin; each round starts one contender later, so none is always first.
        shift = round_ % len(contenders)
        for contender in contenders[shift:] + contenders[:shift]:
            result = measure([contender, "--rows", str(rows)], env, args.timeout)
            runs[contender].append(result)
            if "error" in result:
                log(
                    f"{label} round {round_ + 1}/{args.repeat} {contender}: FAILED\n{result['error']}"
                )
            else:
                log(
                    f"{label} round {round_ + 1}/{args.repeat} {contender}: {result['seconds']:.3f} s, "
                    f"peak {result['peak_rss'] / MB:.0f} MB, {result.get('urls', 0):,} URLs"
                )
    elapsed = time.perf_counter() - started
    checked = [c for c in SAME_BYTES_AS_FLOOR if c == FAST or c in contenders]
    verifying = args.verify and bool(set(contenders) - set(I18N_CONTENDERS))
    return {
        "prepare": prep,
        "database_url": env["DATABASE_URL"],
        "elapsed_seconds": elapsed,
        "contenders": {c: summarize(runs[c], rows, c) for c in contenders},
        "identical_to_floor": verify(env, args.timeout, checked) if verifying else None,
        "verified_builds": checked if verifying else [],
        "i18n_page_comparison": verify_i18n(env, args.timeout) if args.verify and i18n else None,
    }


def verify(env: dict[str, str], timeout: float, builds: list[str]) -> bool | str:
    """Do the page files of django-sitemapkit's ``builds`` hold exactly the floor's bytes?

    True, or what differs (the first build that does).
    """
    work = Path(tempfile.mkdtemp(prefix="verify-", dir=SCRATCH.parent))
    try:
        floor = measure(["floor", "--keep-dir", str(work / "floor")], env, timeout)
        if "error" in floor:
            return "verification failed to run: floor"
        floor_pages = sorted((work / "floor").glob("sitemap-floor-*.xml"), key=page_number)
        for build in builds:
            result = measure([build, "--keep-dir", str(work / build)], env, timeout)
            if "error" in result:
                return f"verification failed to run: {build}"
            kit_pages = sorted((work / build / "current").glob("sitemap-*-*.xml"), key=page_number)
            if len(floor_pages) != len(kit_pages):
                return f"{build}: {len(kit_pages)} page files, the floor wrote {len(floor_pages)}"
            for a, b in zip(floor_pages, kit_pages, strict=True):
                if a.read_bytes() != b.read_bytes():
                    return f"{build}: {b.name} differs from the floor's {a.name}"
        return True
    finally:
        shutil.rmtree(work, ignore_errors=True)


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


def verify_i18n(env: dict[str, str], timeout: float) -> dict[str, Any]:
    """Compare page 1 of the i18n section, sitemapkit's view against contrib's.

    Entry by entry: the same ``<loc>``, the same lastmod date and the same
    alternates (hreflang and href, in order). sitemapkit writes all of an
    item's languages in one file (``limit // 3`` items a page), contrib cuts
    its list of (item, language) pairs every ``limit``: where ``limit`` is not
    a multiple of 3, contrib's page also lists the first languages of the next
    item, which sitemapkit lists on page 2. Those are reported, not failed.
    """
    work = Path(tempfile.mkdtemp(prefix="verify-i18n-", dir=SCRATCH.parent))
    try:
        pages = {}
        for side, contender in (
            ("kit", "sitemapkit-i18n-view-page"),
            ("contrib", "contrib-i18n-view-page"),
        ):
            result = measure([contender, "--keep-dir", str(work / side)], env, timeout)
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


def run_seeding(rows: int, args: argparse.Namespace) -> dict[str, Any]:
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


def table(title: str, contenders: dict[str, dict[str, Any]]) -> str:
    def median_of(name: str) -> float | None:
        return contenders.get(name, {}).get("median")

    def ratio(s: dict[str, Any], base: float | None) -> str:
        return f"{s['median'] / base:.2f}" if base else "-"

    gzip_floor, floor, fast = median_of(GZIP_FLOOR), median_of(FLOOR), median_of(FAST)
    header = (
        "contender",
        "median s",
        "min-max s",
        "x gzip floor",
        "x floor",
        "x fast path",
        "CPU s",
        "peak RSS MB",
        "child RSS MB",
        "above base MB",
        "URLs",
    )
    lines = []
    for name, s in contenders.items():
        if "median" not in s:
            lines.append((name, "FAILED", *[""] * (len(header) - 2)))
            continue
        urls = ",".join(f"{u:,}" for u in s.get("urls", []) if u) or "-"
        if s.get("url_mismatch"):
            urls += " (!)"
        if s.get("errors"):
            urls += f" ({s['errors']} failed)"
        children = s.get("children_peak_rss_mb", 0)
        lines.append(
            (
                name,
                fmt_seconds(s["median"]),
                f"{fmt_seconds(s['min'])}-{fmt_seconds(s['max'])}",
                ratio(s, gzip_floor),
                ratio(s, floor),
                ratio(s, fast) if name in SITEMAPKIT_BUILDS else "-",
                fmt_seconds(s["cpu_median"]),
                f"{s['peak_rss_mb']:.0f}",
                f"{children:.0f}" if children else "-",
                f"{s['above_baseline_mb']:.0f}" if "above_baseline_mb" in s else "-",
                urls,
            )
        )
    widths = [max(len(str(row[i])) for row in [header, *lines]) for i in range(len(header))]
    out = [title]
    for j, row in enumerate([header, *lines]):
        out.append(
            "  ".join(
                str(c).ljust(w) if i == 0 else str(c).rjust(w)
                for i, (c, w) in enumerate(zip(row, widths, strict=True))
            )
        )
        if j == 0:
            out.append("  ".join("-" * w for w in widths))
    return "\n".join(out)


def group_table(key: str, group: dict[str, Any]) -> str:
    same = group.get("identical_to_floor")
    # Older reports checked the fast path only, and did not say so.
    builds = group.get("verified_builds") or [FAST]
    checked = ", ".join(name.removeprefix("sitemapkit-build-") for name in builds)
    note = {True: f"; page files identical to the floor's (builds: {checked})", None: ""}.get(
        same, f"; NOT identical to the floor: {same}"
    )
    i18n = group.get("i18n_page_comparison")
    if i18n:
        note += f"; i18n page 1: {'' if i18n['ok'] else 'MISMATCH: '}{i18n['note']}"
    title = f"== {key} ({group['elapsed_seconds'] / 60:.1f} min{note})"
    load = max(
        (s.get("max_loadavg_before", 0.0) for s in group["contenders"].values()), default=0.0
    )
    if load > BUSY_LOAD:
        title += (
            f"\n   WARNING: the machine was busy (load average up to {load:.1f} before a"
            " measurement); these timings are not reliable"
        )
    return table(title, group["contenders"])


def all_tables(report: dict[str, Any]) -> str:
    parts = []
    for key, group in report["groups"].items():
        if group.get("contenders"):
            parts.append(group_table(key, group))
    if report.get("seeding"):
        parts.append(seeding_table(report["seeding_rows"], report["seeding"]))
    return "\n\n".join(parts)


def seeding_table(rows: int, seeding: dict[str, dict[str, Any]]) -> str:
    out = [f"== SQLite seeding of {rows:,} rows into a fresh file"]
    header = ("", "median s", "min-max s", "peak RSS MB")
    lines = [header]
    labels = {
        "seed": "bench project (executemany, 10,000 a batch)",
        "seed-demo": "example_project seed_demo (+ tags, authors)",
    }
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
    widths = [max(len(row[i]) for row in lines) for i in range(len(header))]
    for j, row in enumerate(lines):
        out.append(
            "  ".join(
                c.ljust(w) if i == 0 else c.rjust(w)
                for i, (c, w) in enumerate(zip(row, widths, strict=True))
            )
        )
        if j == 0:
            out.append("  ".join("-" * w for w in widths))
    return "\n".join(out)


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
        help="rows for the SQLite seeding benchmark (default: the largest --rows; 0: skip)",
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
    parser.add_argument(
        "--rev",
        help="benchmark django_sitemapkit (and example_project) as of this git revision "
        "(exported with git archive) instead of the working tree",
    )
    args = parser.parse_args()
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
        args.seed_rows = max(args.rows) if "sqlite" in args.db else 0
    args.data_dir.mkdir(parents=True, exist_ok=True)

    revision = git_revision()
    if args.rev:
        revision = export_revision(args.rev)

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
        },
        "machine": machine_info(db_versions),
        "django_sitemapkit_revision": revision,
        "groups": {},
    }
    t0 = time.perf_counter()
    for rows in args.rows:
        for db in args.db:
            key = f"{db} {rows:,} rows"
            report["groups"][key] = group = run_group(db, rows, args, list(args.contenders))
            if group.get("contenders"):  # on stderr with the progress; stdout gets the summary
                log("\n" + group_table(key, group))
            write_report(report, args.out)
    if args.seed_rows:
        report["seeding_rows"] = args.seed_rows
        report["seeding"] = run_seeding(args.seed_rows, args)
    report["total_minutes"] = (time.perf_counter() - t0) / 60
    write_report(report, args.out)
    print(all_tables(report))
    print(f"\n{report['total_minutes']:.1f} min in all; JSON: {args.out}")
    shutil.rmtree(SCRATCH, ignore_errors=True)
    failed = any(
        s.get("errors") or s.get("url_mismatch") or "median" not in s
        for g in report["groups"].values()
        for s in g.get("contenders", {}).values()
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


def export_revision(rev: str) -> str:
    """Export django_sitemapkit/ and example_project/ at ``rev`` into a scratch
    folder and point the measurements at it; return the full commit id."""
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
    os.environ["BENCH_SITEMAPKIT_SRC"] = str(target)
    log(f"benchmarking django_sitemapkit at {commit[:12]} ({target})")
    return commit


def write_report(report: dict[str, Any], path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(report, indent=2, default=str) + "\n")
    tmp.replace(path)


if __name__ == "__main__":
    main()
