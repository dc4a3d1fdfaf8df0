"""Builds to S3 (moto) killed at random moments: one clean build later, the bucket holds its
published set and nothing else, every file the manifest's."""

from __future__ import annotations

import gzip
import os
import random
import signal
import subprocess
import sys
import time
from typing import Any

import django_sitemapkit as sitemapkit
from django_sitemapkit._publishing.base import MANIFEST_NAME
from django_sitemapkit._publishing.selection import get_publisher
from django_sitemapkit._sites import SitemapSite
from tests.s3 import use_new_bucket
from tests.utils import parse_index, parse_urlset, path_of


def start_build(endpoint: str, bucket: str, items: int) -> subprocess.Popen[str]:
    """tests/publishing/s3_build.py, in a process of its own (no database, a cache of its own)."""
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "tests.settings",
        "DATABASE_URL": "sqlite://:memory:",
        "CACHE_URL": "locmemcache://",
    }
    command = [sys.executable, "-m", "tests.publishing.s3_build", endpoint, bucket, str(items)]
    return subprocess.Popen(command, env=env, stdout=subprocess.PIPE, text=True)


def until_building(process: subprocess.Popen[str]) -> float:
    """Wait for the process to start its build; the moment it did."""
    assert process.stdout is not None
    assert process.stdout.readline() == "building\n"
    return time.perf_counter()


def close(process: subprocess.Popen[str]) -> None:
    assert process.stdout is not None
    process.stdout.close()


def test_killed_builds_leave_nothing_on_s3(
    sitemaps: SitemapSite, s3_endpoint: str, settings: Any
) -> None:
    client, bucket = use_new_bucket(settings, s3_endpoint)
    process = start_build(s3_endpoint, bucket, 23)
    started = until_building(process)
    assert process.wait(timeout=120) == 0
    duration = time.perf_counter() - started
    close(process)

    rng = random.Random(2026)
    for _ in range(20):
        # More pages or fewer than the clean build will have: a killed build's writes differ.
        process = start_build(s3_endpoint, bucket, rng.randint(1, 60))
        until_building(process)
        time.sleep(rng.uniform(0, duration * 1.2))
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=60)
        close(process)

    class Stories(sitemapkit.Sitemap):
        limit = 5

        def items(self) -> list[int]:
            return list(range(7))

        def location(self, item: int) -> str:
            return f"/stories/{item}/"

    sitemaps.register(section="stories")(Stories)
    assert sitemapkit.build(force=True).published  # 7 of up to 60 URLs left
    manifest = get_publisher().manifest()
    assert manifest is not None
    stored = {
        item["Key"]: client.get_object(Bucket=bucket, Key=item["Key"])["Body"].read()
        for item in client.list_objects_v2(Bucket=bucket)["Contents"]
    }
    assert set(stored) == {*manifest.files(), MANIFEST_NAME}
    names = [path_of(loc).lstrip("/") for loc, _ in parse_index(stored["sitemap.xml"])]
    assert names == ["sitemap-stories-1.xml", "sitemap-stories-2.xml"]
    urls = [url.loc for name in names for url in parse_urlset(stored[name])]
    assert urls == [f"https://www.example.com/stories/{i}/" for i in range(7)]
    for name in [*names, "sitemap.xml"]:
        assert gzip.decompress(stored[name + ".gz"]) == stored[name]
