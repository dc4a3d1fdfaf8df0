"""LocalPublisher: generations, the ``current`` symlink, the flock (builds are in test_builder)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from django_sitemapkit._publishing.base import MANIFEST_NAME, BuildLocked, FileRecord, Manifest
from django_sitemapkit._publishing.localfolder import (
    CURRENT_LINK,
    GENERATIONS_DIR,
    LOCK_NAME,
    TEMP_PREFIX,
    LocalPublisher,
)


@pytest.fixture
def generation(tmp_path: Path) -> tuple[LocalPublisher, Manifest]:
    folder = tmp_path / GENERATIONS_DIR / "g1"
    folder.mkdir(parents=True)
    (folder / "sitemap-a-1.xml").write_bytes(b"<urlset>\xc3\xa9</urlset>\n")
    (folder / "empty.xml").write_bytes(b"")
    manifest = Manifest(generation="g1", built_at="", base_url="https://www.example.com", gzip=True)
    return LocalPublisher(tmp_path), manifest


def manifest_for(generation: str, previous: str | None = None) -> Manifest:
    page = FileRecord(section="a", number=1, sha256="", size=0, urls=1, lastmod=None)
    return Manifest(
        generation=generation,
        built_at="",
        base_url="https://www.example.com",
        gzip=False,
        pages=[page],
        previous_generation=previous,
    )


def test_publish_writes_pages_then_the_index_then_the_manifest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    publisher = LocalPublisher(tmp_path)
    manifest = manifest_for("g1")
    transaction = publisher.begin(manifest, None)
    order: list[str] = []
    real_write = transaction.write

    def recording_write(name: str, data: bytes) -> None:
        order.append(name)
        real_write(name, data)

    monkeypatch.setattr(transaction, "write", recording_write)
    transaction.write("sitemap-a-1.xml", b"<urlset></urlset>")
    assert not (tmp_path / CURRENT_LINK).exists()  # nothing visible before publish()
    transaction.publish({"sitemap.xml": b"<sitemapindex/>"}, manifest)
    assert order == ["sitemap-a-1.xml", "sitemap.xml", MANIFEST_NAME]
    assert os.readlink(tmp_path / CURRENT_LINK) == f"{GENERATIONS_DIR}/g1"
    assert (tmp_path / CURRENT_LINK / "sitemap-a-1.xml").read_bytes() == b"<urlset></urlset>"
    assert publisher.manifest() == manifest
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(TEMP_PREFIX)] == []


def test_a_new_generation_keeps_unchanged_files_and_prunes_the_one_before_previous(
    tmp_path: Path,
) -> None:
    publisher = LocalPublisher(tmp_path)
    previous: Manifest | None = None
    for name in ("g1", "g2", "g3"):
        manifest = manifest_for(name, None if previous is None else previous.generation)
        transaction = publisher.begin(manifest, previous)
        if previous is None:
            transaction.write("sitemap-a-1.xml", b"<urlset/>")
        else:
            transaction.keep("sitemap-a-1.xml")
        transaction.publish({"sitemap.xml": b"<sitemapindex/>"}, manifest)
        previous = manifest
    assert sorted(p.name for p in (tmp_path / GENERATIONS_DIR).iterdir()) == ["g2", "g3"]
    kept = tmp_path / GENERATIONS_DIR / "g3" / "sitemap-a-1.xml"
    assert kept.stat().st_nlink == 2  # a hard link to g2's


def test_abort_leaves_the_published_set_and_no_temporary_folder(tmp_path: Path) -> None:
    publisher = LocalPublisher(tmp_path)
    transaction = publisher.begin(manifest_for("g1"), None)
    transaction.write("sitemap-a-1.xml", b"<urlset/>")
    transaction.abort()
    assert list(tmp_path.iterdir()) == []
    assert publisher.manifest() is None


def test_a_held_lock_names_its_holder_to_a_second_build(tmp_path: Path) -> None:
    holder, other = LocalPublisher(tmp_path), LocalPublisher(tmp_path)
    with holder.lock():
        assert (tmp_path / LOCK_NAME).read_text().startswith(f"pid {os.getpid()} since ")
        with (
            pytest.raises(
                BuildLocked, match=re.escape(f"publishing to {tmp_path} (pid {os.getpid()} ")
            ),
            other.lock(wait=0.3),
        ):
            pass
    assert (tmp_path / LOCK_NAME).read_text() == ""
    with other.lock():  # released: the next build takes it
        pass


def test_cleanup_removes_what_a_killed_build_left(tmp_path: Path) -> None:
    publisher = LocalPublisher(tmp_path)
    (tmp_path / f"{TEMP_PREFIX}killed").mkdir()
    (tmp_path / f"{TEMP_PREFIX}link-killed").symlink_to("generations/nowhere")
    assert publisher.cleanup() == 2
    assert list(tmp_path.iterdir()) == []
