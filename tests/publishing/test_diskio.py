"""A local folder's file writes: copying ranges in the kernel, and fsync of a folder."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from django_sitemapkit.publishing.diskio import copy_ranges, fsync_directory, sync_and_close

needs_copy_file_range = pytest.mark.skipif(
    not hasattr(os, "copy_file_range"), reason="copy_file_range is Linux-only"
)


@needs_copy_file_range
def test_reused_pieces_are_copied_from_the_source(tmp_path: Path) -> None:
    source = tmp_path / "old.xml"
    source.write_bytes(b"<head>one|two|three|<tail>")
    pieces = [b"<head>", b"one|", b"TWO|", b"three|", b"<tail>"]
    # Pieces 0 and 1 are one range of the source, 3 and 4 another.
    offsets = {0: 0, 1: 6, 3: 14, 4: 20}
    with open(tmp_path / "new.xml", "wb") as handle:
        assert copy_ranges(source, handle, pieces, offsets)
        handle.write(b"!")  # copy_ranges leaves the handle at the end
    assert (tmp_path / "new.xml").read_bytes() == b"<head>one|TWO|three|<tail>!"


@needs_copy_file_range
def test_a_source_shorter_than_its_offsets_is_refused(tmp_path: Path) -> None:
    source = tmp_path / "old.xml"
    source.write_bytes(b"<head>")
    with open(tmp_path / "new.xml", "wb") as handle:
        assert not copy_ranges(source, handle, [b"<head>", b"body"], {0: 0, 1: 6})


@needs_copy_file_range
def test_a_missing_source_is_refused(tmp_path: Path) -> None:
    with open(tmp_path / "new.xml", "wb") as handle:
        assert not copy_ranges(tmp_path / "gone.xml", handle, [b"x"], {0: 0})


def test_sync_and_close(tmp_path: Path) -> None:
    handle = open(tmp_path / "file", "wb")  # noqa: SIM115 -- closed by sync_and_close
    handle.write(b"data")
    handle.flush()
    sync_and_close(handle)
    assert handle.closed
    assert (tmp_path / "file").read_bytes() == b"data"


def test_fsync_directory_ignores_what_it_cannot_open(tmp_path: Path) -> None:
    fsync_directory(tmp_path)
    fsync_directory(tmp_path / "missing")
