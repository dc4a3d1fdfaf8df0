"""What every publisher shares: the publish order and the wait for the build lock."""

from __future__ import annotations

import os
import re

import pytest

from django_sitemapkit._publishing.base import (
    MANIFEST_NAME,
    BuildLocked,
    FileRecord,
    Manifest,
    lock_holder_label,
    wait_for_lock,
    write_index_and_manifest,
)


def test_the_index_follows_every_page_and_the_manifest_comes_last() -> None:
    written: list[tuple[str, bytes]] = []

    def write(name: str, data: bytes) -> None:
        written.append((name, data))

    page = FileRecord(section="a", number=1, sha256="", size=0, urls=1, lastmod=None)
    manifest = Manifest(
        generation="g1", built_at="", base_url="https://www.example.com", gzip=True, pages=[page]
    )
    # A build writes its pages through the transaction before publish().
    write("sitemap-a-1.xml", b"<urlset/>")
    write("sitemap-a-1.xml.gz", b"gz")
    write_index_and_manifest(
        write, {"sitemap.xml": b"<sitemapindex/>", "sitemap.xml.gz": b"gz-index"}, manifest
    )
    assert [name for name, _ in written] == [
        "sitemap-a-1.xml",
        "sitemap-a-1.xml.gz",
        "sitemap.xml",
        "sitemap.xml.gz",
        MANIFEST_NAME,
    ]
    assert written[2:] == [
        ("sitemap.xml", b"<sitemapindex/>"),
        ("sitemap.xml.gz", b"gz-index"),
        (MANIFEST_NAME, manifest.to_json()),
    ]


class Acquire:
    """An acquire() that fails ``failures`` times, then succeeds; counts its calls."""

    def __init__(self, failures: int) -> None:
        self.failures = failures
        self.calls = 0

    def __call__(self) -> bool:
        self.calls += 1
        return self.calls > self.failures


def no_holder() -> str:
    raise AssertionError("the holder is asked only when the wait is over")


def test_a_free_lock_is_taken_at_once() -> None:
    acquire = Acquire(0)
    wait_for_lock(acquire, no_holder, wait=0, poll=10, description="here")
    assert acquire.calls == 1


def test_waiting_retries_until_the_lock_is_free() -> None:
    acquire = Acquire(3)
    wait_for_lock(acquire, no_holder, wait=30, poll=0.001, description="here")
    assert acquire.calls == 4


def test_no_wait_tries_once_and_names_the_holder() -> None:
    acquire = Acquire(1)
    with pytest.raises(BuildLocked) as raised:
        wait_for_lock(acquire, lambda: "pid 1 since then", wait=0, poll=10, description="there")
    assert acquire.calls == 1
    assert str(raised.value) == (
        "Another sitemapkit_build is publishing to there (pid 1 since then); "
        "try again when it has finished, or pass --wait SECONDS."
    )


def test_the_wait_ends_and_an_unknown_holder_is_another_process() -> None:
    with pytest.raises(BuildLocked, match=re.escape("to there (another process)")):
        wait_for_lock(Acquire(10**9), lambda: None, wait=0.05, poll=0.01, description="there")


def test_errors_of_acquire_propagate() -> None:
    def acquire() -> bool:
        raise OSError("no such lock")

    with pytest.raises(OSError, match="no such lock"):
        wait_for_lock(acquire, no_holder, wait=1, poll=0.01, description="here")


def test_the_holder_label_names_this_process_and_when() -> None:
    assert re.fullmatch(
        rf"pid {os.getpid()} since \d{{4}}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00", lock_holder_label()
    )
