"""A file's bytes as the protocol bounds them: inflated when gzipped, and no more than it allows.

A sitemap or index may be served gzipped (``INDEX_LINKS_GZIP`` names the
``.xml.gz`` files); either way the protocol caps a file at 52,428,800
uncompressed bytes. Reading stops one byte past that cap, so that a huge or
endless file, or a gzip bomb, costs at most that much reading and no memory.
"""

from __future__ import annotations

import gzip
from typing import Protocol

from django_sitemapkit.protocol.writer import MAX_BYTES_PER_FILE

GZIP_MAGIC = b"\x1f\x8b"
# A file's content is read up to here: one byte more than the protocol allows tells it is over.
READ_CAP = MAX_BYTES_PER_FILE + 1
# Deflate never doubles its input: a gzip file this large inflates past the cap.
_COMPRESSED_CAP = 2 * MAX_BYTES_PER_FILE


class Readable(Protocol):
    def read(self, size: int = -1, /) -> bytes: ...


class Stream(Readable, Protocol):
    """What a file is read from: a local file, a storage's bytes, an HTTP response."""

    def close(self) -> None: ...


class Capped:
    """At most ``cap`` bytes: ``head`` (read from ``stream`` already), then the rest of ``stream``."""

    def __init__(self, stream: Readable, cap: int, head: bytes = b"") -> None:
        self.stream = stream
        self.head = head
        self.left = cap

    def read(self, size: int = -1, /) -> bytes:
        want = self.left if size is None or size < 0 else min(size, self.left)
        data, self.head = self.head[:want], self.head[want:]
        if want > len(data):
            data += self.stream.read(want - len(data))
        self.left -= len(data)
        return data


def content(stream: Readable) -> Readable:
    """The file's content up to :data:`READ_CAP` bytes: gunzipped when it starts as gzip does."""
    head = stream.read(len(GZIP_MAGIC))
    if head == GZIP_MAGIC:
        return gunzipped(stream, head)
    return Capped(stream, READ_CAP, head)


def gunzipped(stream: Readable, head: bytes = b"") -> Readable:
    """The inflated content of a gzip file, up to :data:`READ_CAP` bytes.

    Reading a file that is not gzip raises ``gzip.BadGzipFile``, ``EOFError`` or
    ``zlib.error``. Closing ``stream`` stays the caller's.
    """
    compressed = Capped(stream, _COMPRESSED_CAP, head)
    # GzipFile seeks its file only when asked to rewind, which the validator never does.
    inflated = gzip.GzipFile(fileobj=compressed, mode="rb")  # type: ignore[call-overload]
    return Capped(inflated, READ_CAP)
