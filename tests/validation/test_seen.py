"""The URLs a set has listed: duplicates found within and across files, in bounded memory."""

from __future__ import annotations

import tracemalloc

from django_sitemapkit._validation.rules import SeenUrls

BASE = "https://www.example.com"


def test_a_url_seen_before_names_the_file_that_listed_it_first() -> None:
    seen = SeenUrls()
    assert seen.first(f"{BASE}/a", 0) is None
    assert seen.first(f"{BASE}/b", 1) is None
    assert seen.first(f"{BASE}/a", 1) == 0
    assert seen.first(f"{BASE}/b", 1) == 1
    assert seen.first(f"{BASE}/a", 2) == 0
    assert seen.first(f"{BASE}/A", 2) is None


def test_many_urls_grow_the_table_and_stay_found() -> None:
    seen = SeenUrls()
    urls = [f"{BASE}/p/{i}" for i in range(200_000)]
    assert all(seen.first(url, i // 50_000) is None for i, url in enumerate(urls))
    assert all(seen.first(url, 9) == i // 50_000 for i, url in enumerate(urls))


def test_memory_stops_growing_at_the_limit() -> None:
    """Past ``limit`` URLs nothing more is kept but the current file's (at most 50,000)."""
    seen = SeenUrls(limit=5_000)
    for i in range(5_000):
        seen.first(f"{BASE}/early/{i}", i // 1_000)
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        # 100,000 more distinct URLs, in files of 1,000.
        for i in range(100_000):
            assert seen.first(f"{BASE}/late/{i}", 5 + i // 1_000) is None
        grown = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert grown < 200_000  # one file's 1,000 fingerprints, not 100,000 URLs' (~2.4 MB)
    # Every URL is still checked against the first 5,000, and against its own file's.
    assert seen.first(f"{BASE}/early/4999", 200) == 4
    assert seen.first(f"{BASE}/late/99999", 104) == 104
    assert seen.first(f"{BASE}/late/0", 200) is None  # the first files past the limit: forgotten
