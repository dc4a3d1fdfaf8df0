#!/usr/bin/env python
"""Peak memory of ``sitemapkit_validate URL`` on huge and endless sitemaps (issue #25).

    python benchmarks/validate_memory.py      # exit status 1 when a run passes 150 MB

Sites on 127.0.0.1 serve, as fast as they are read:

* ``300 MB``: a sitemap of 300 MB of distinct short URLs (about 5.8 million; the
  validator reads the protocol's 52,428,800 bytes, about 900,000 URLs, then stops);
* ``endless``: a sitemap of distinct short URLs that never ends;
* ``1.5M set``: an index of 30 files of 50,000 distinct URLs each, more than the
  1,000,000 URLs the duplicate rule remembers across the files of a set;
* ``tiny``: one file of one URL, for the process's own size (Python, Django, lxml).

Each run is ``python -m django sitemapkit_validate URL`` in its own process, with the test
suite's settings; its peak RSS comes from ``wait4()``. The unit suite measures an endless
sitemap of long URLs the same way (tests/validation/test_live.py), quicker.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tests.validation.servers import Site, streamed, urlset_chunks, validate_in_a_process  # noqa: E402

LIMIT_MB = 150
NS = "http://www.sitemaps.org/schemas/sitemap/0.9"


def three_hundred_mb(site: Site) -> str:
    # About 52 bytes an entry on 127.0.0.1 with a five-digit port.
    site.routes["/big.xml"] = streamed(urlset_chunks(site.url, 300_000_000 // 52))
    return "/big.xml"


def endless(site: Site) -> str:
    site.routes["/endless.xml"] = streamed(urlset_chunks(site.url, None))
    return "/endless.xml"


def large_set(site: Site) -> str:
    files = [f"/f{n}.xml" for n in range(30)]
    entries = "".join(f"<sitemap><loc>{site.url}{name}</loc></sitemap>" for name in files)
    site.serve("/index.xml", f'<sitemapindex xmlns="{NS}">{entries}</sitemapindex>'.encode())
    for n, name in enumerate(files):
        site.routes[name] = streamed(urlset_chunks(f"{site.url}/f{n}", 50_000))
    return "/index.xml"


def tiny(site: Site) -> str:
    site.routes["/tiny.xml"] = streamed(urlset_chunks(site.url, 1))
    return "/tiny.xml"


CASES: dict[str, Callable[[Site], str]] = {
    "tiny": tiny,
    "300 MB": three_hundred_mb,
    "endless": endless,
    "1.5M set": large_set,
}


def main() -> int:
    worst = 0.0
    print(f"{'case':<10} {'exit':>4} {'seconds':>8} {'peak RSS':>10}  summary")
    for name, serve in CASES.items():
        site = Site()
        try:
            path = serve(site)
            site.serve("/robots.txt", f"Sitemap: {site.url}{path}\n".encode())
            started = time.monotonic()
            status, output, peak = validate_in_a_process(site.url + path, "--deadline", "900")
            seconds = time.monotonic() - started
        finally:
            site.close()
        worst = max(worst, peak)
        summary = output.strip().splitlines()[-1].split(": ", 1)[-1] if output.strip() else ""
        print(f"{name:<10} {status:>4} {seconds:>8.1f} {peak:>7.1f} MB  {summary}")
    print(f"highest peak: {worst:.1f} MB (limit {LIMIT_MB} MB)")
    return 0 if worst < LIMIT_MB else 1


if __name__ == "__main__":
    sys.exit(main())
