"""FlatPublisher on a storage without renames (S3 itself is in test_flatstorage_s3)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from django.core.cache import caches
from django.core.files.storage import FileSystemStorage

from django_sitemapkit._conf import CACHE_KEY_PREFIX
from django_sitemapkit._publishing.base import (
    MANIFEST_NAME,
    BuildLocked,
    FileRecord,
    Manifest,
    PublishError,
)
from django_sitemapkit._publishing.flatstorage import UNFINISHED, FlatPublisher, _is_missing


def manifest_for(generation: str, *numbers: int) -> Manifest:
    return Manifest(
        generation=generation,
        built_at="",
        base_url="https://www.example.com",
        gzip=False,
        pages=[
            FileRecord(section="a", number=n, sha256="", size=0, urls=1, lastmod=None)
            for n in numbers
        ],
    )


@pytest.fixture
def publisher(tmp_path: Path) -> FlatPublisher:
    return FlatPublisher(FileSystemStorage(location=tmp_path, allow_overwrite=True), "flat")


def test_pages_then_the_index_then_the_manifest_then_deletions(
    publisher: FlatPublisher, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert publisher.manifest() is None
    first = manifest_for("g1", 1, 2)
    transaction = publisher.begin(first, None)
    for number in (1, 2):
        transaction.write(f"sitemap-a-{number}.xml", b"<urlset></urlset>")
    transaction.publish({"sitemap.xml": b"<sitemapindex/>"}, first)
    assert publisher.manifest() == first

    events: list[str] = []
    real_save, real_delete = publisher.storage.save, publisher.storage.delete

    def save(name: str, content: Any, *args: Any, **kwargs: Any) -> str:
        events.append(f"save {name}")
        return str(real_save(name, content, *args, **kwargs))

    def delete(name: str) -> None:
        events.append(f"delete {name}")
        real_delete(name)

    monkeypatch.setattr(publisher.storage, "save", save)
    monkeypatch.setattr(publisher.storage, "delete", delete)
    second = manifest_for("g2", 1, 3)
    transaction = publisher.begin(second, first)
    transaction.keep("sitemap-a-1.xml")
    transaction.write("sitemap-a-3.xml", b"<urlset>new</urlset>")
    transaction.publish({"sitemap.xml": b"<sitemapindex>new</sitemapindex>"}, second)
    assert events == [
        f"save {UNFINISHED}",
        "save sitemap-a-3.xml",
        "save sitemap.xml",
        f"save {MANIFEST_NAME}",
        "delete sitemap-a-2.xml",
        f"delete {UNFINISHED}",
    ]
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "sitemap-a-1.xml",
        "sitemap-a-3.xml",
        "sitemap.xml",
        MANIFEST_NAME,
    ]
    assert publisher.manifest() == second
    assert publisher.read(second, "sitemap-a-1.xml") == b"<urlset></urlset>"
    assert publisher.read(second, "sitemap-a-3.xml") == b"<urlset>new</urlset>"
    assert publisher.read(second, "sitemap-a-2.xml") is None


def test_a_storage_that_renames_instead_of_overwriting_is_refused(tmp_path: Path) -> None:
    publisher = FlatPublisher(FileSystemStorage(location=tmp_path), "flat")
    transaction = publisher.begin(manifest_for("g1", 1), None)
    transaction.write("sitemap-a-1.xml", b"<urlset/>")
    with pytest.raises(PublishError, match=re.escape("storage 'flat' saved 'sitemap-a-1.xml' as")):
        transaction.write("sitemap-a-1.xml", b"<urlset/>")
    # The copy went; the marker stays, the file may not be what a manifest says.
    assert sorted(p.name for p in tmp_path.iterdir()) == [UNFINISHED, "sitemap-a-1.xml"]


def test_a_build_that_wrote_and_gave_up_leaves_its_marker(
    publisher: FlatPublisher, tmp_path: Path
) -> None:
    transaction = publisher.begin(manifest_for("g1", 1), None)
    transaction.abort()  # nothing written: nothing to tell
    assert not publisher.interrupted()
    transaction = publisher.begin(manifest_for("g1", 1), None)
    transaction.write("sitemap-a-1.xml", b"<urlset/>")
    transaction.abort()
    assert publisher.cleanup() == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == [UNFINISHED, "sitemap-a-1.xml"]
    assert publisher.interrupted()  # the next build writes every file again


def test_a_publish_deletes_what_dead_builds_wrote(publisher: FlatPublisher, tmp_path: Path) -> None:
    for name in ["sitemap-a-7.xml", "sitemap-a-7.xml.gz", "sitemap.xsl", "sitemap.css", UNFINISHED]:
        (tmp_path / name).write_bytes(b"left by a killed build")
    # Not named like a set's files: the project's own.
    for name in ["robots.txt", "sitemap-notes.xml", "sitemap.xml.bak"]:
        (tmp_path / name).write_bytes(b"mine")
    first = manifest_for("g1", 1)
    transaction = publisher.begin(first, None)
    transaction.write("sitemap-a-1.xml", b"<urlset/>")
    transaction.publish({"sitemap.xml": b"<sitemapindex/>"}, first)
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "robots.txt",
        "sitemap-a-1.xml",
        "sitemap-notes.xml",
        "sitemap.xml",
        "sitemap.xml.bak",
        MANIFEST_NAME,
    ]
    assert not publisher.interrupted()


def test_the_cache_lock_names_its_holder_and_is_released(publisher: FlatPublisher) -> None:
    other = FlatPublisher(publisher.storage, "flat")
    key = f"{CACHE_KEY_PREFIX}:build-lock:flat"
    with publisher.lock():
        holder = caches["default"].get(key)
        assert re.fullmatch(r"pid \d+ since \S+ \([0-9a-f]{8}\)", holder)
        with (
            pytest.raises(BuildLocked, match=re.escape(f"to storage 'flat' ({holder})")),
            other.lock(wait=0.6),
        ):
            pass
    assert caches["default"].get(key) is None
    with other.lock():  # released: the next build takes it
        pass


def test_a_lock_taken_over_after_expiry_is_left_to_its_new_holder(
    publisher: FlatPublisher,
) -> None:
    key = f"{CACHE_KEY_PREFIX}:build-lock:flat"
    with publisher.lock():
        caches["default"].set(key, "a build that took the expired lock")
    assert caches["default"].get(key) == "a build that took the expired lock"


class ClientError(Exception):
    def __init__(self, code: str) -> None:
        self.response = {"Error": {"Code": code}}


def test_which_storage_errors_mean_missing() -> None:
    assert _is_missing(FileNotFoundError())
    assert _is_missing(ClientError("NoSuchKey"))
    assert _is_missing(ClientError("404"))
    assert not _is_missing(ClientError("AccessDenied"))
    assert not _is_missing(PermissionError())
