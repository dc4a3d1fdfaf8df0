"""Writing files of a local folder: durably (fsync), and by copying ranges in the kernel."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Sequence
from pathlib import Path
from typing import BinaryIO

from django_sitemapkit.protocol.deflate import Piece


def sync_and_close(handle: BinaryIO) -> None:
    try:
        os.fsync(handle.fileno())
    finally:
        handle.close()


def fsync_directory(directory: Path) -> None:
    """Make renames inside ``directory`` durable (POSIX; elsewhere a no-op)."""
    # Directories cannot be opened this way on Windows, where a replace is
    # already as durable as it gets.
    with contextlib.suppress(OSError):
        fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def copy_ranges(
    source: Path, handle: BinaryIO, pieces: Sequence[Piece], offsets: dict[int, int]
) -> bool:
    """Write ``pieces`` to ``handle``, copying those in ``offsets`` from ``source`` in the kernel.

    The kernel copies a spliced page's unchanged pieces without reading them
    into memory and writing them back. False (and maybe a partial file) when
    the system cannot copy between these files; the caller then writes.
    """
    if not hasattr(os, "copy_file_range"):
        return False
    handle.flush()
    target = handle.fileno()
    position = 0
    try:
        with open(source, "rb") as origin:
            index = 0
            while index < len(pieces):
                if index not in offsets:
                    view = memoryview(pieces[index])
                    while view:
                        written = os.pwrite(target, view, position)
                        position += written
                        view = view[written:]
                    index += 1
                    continue
                # Consecutive reused pieces are one range of the source.
                source_offset = offsets[index]
                length = 0
                while index in offsets and offsets[index] == source_offset + length:
                    length += len(pieces[index])
                    index += 1
                while length:
                    copied = os.copy_file_range(
                        origin.fileno(), target, length, source_offset, position
                    )
                    if copied == 0:
                        return False  # the source is shorter than the manifest says
                    source_offset += copied
                    position += copied
                    length -= copied
    except OSError:
        return False
    handle.seek(position)
    return True
