#!/usr/bin/env python
"""How long ``sitemapkit_audit`` takes over 10,000 listed URLs of the example project (issue #28).

    python benchmarks/audit.py                    # 10,000 URLs, 3 runs
    python benchmarks/audit.py --urls 2000 --repeat 5

The example project (``example_project/``) is seeded into a scratch SQLite database with about
``--urls`` articles (plus its tags, authors, static pages and guides), and each run is
``manage.py sitemapkit_audit --sample URLS --json`` in a fresh process: every page a real
``DetailView`` with its query and template, through the project's middleware. Printed: each run's
seconds as the audit reports them (reading the sitemaps included) and as the process took
(Django's start too), the median of the runs, and URLs per second.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
MANAGE = REPO / "example_project" / "manage.py"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--urls", type=int, default=10_000, help="URLs audited (default 10,000)")
    parser.add_argument("--repeat", type=int, default=3, help="runs (default 3)")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="sitemapkit-audit-bench-") as scratch:
        env = {
            **os.environ,
            "DATABASE_URL": f"sqlite:///{scratch}/db.sqlite3",
            "SITEMAPKIT_BUILD_DIR": f"{scratch}/sitemaps",
            "SITEMAPKIT_ROBOTS_TXT": f"{scratch}/robots.txt",
            "DEBUG": "False",  # as deployed: no query log growing with every page
            "PYTHONPATH": str(REPO),
        }

        def manage(*args: str) -> str:
            command = [sys.executable, str(MANAGE), *args]
            done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
            if done.returncode not in (0, 1):  # 1: the audit found problems
                sys.exit(f"{' '.join(args)} failed:\n{done.stderr}")
            return done.stdout

        manage("migrate", "-v0")
        # About 95 % of articles are published; tags, authors and guides add about 15 %.
        manage("seed_demo", "--count", str(options.urls), "--guides", "300", "-v0")
        print(f"auditing {options.urls:,} URLs of the example project, {options.repeat} runs")
        audits, processes = [], []
        for run in range(options.repeat):
            started = time.monotonic()
            report = json.loads(manage("sitemapkit_audit", "--sample", str(options.urls), "--json"))
            processes.append(time.monotonic() - started)
            [site] = report["sites"]
            audits.append(site["seconds"])
            print(
                f"run {run + 1}: {site['audited']:,} of {site['listed']:,} listed URLs, audit "
                f"{site['seconds']:.2f} s, process {processes[-1]:.2f} s, problems {site['counts']}"
            )
    audit, process = statistics.median(audits), statistics.median(processes)
    print(
        f"median: audit {audit:.2f} s ({options.urls / audit:,.0f} URLs/s), "
        f"process {process:.2f} s ({options.urls / process:,.0f} URLs/s)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
