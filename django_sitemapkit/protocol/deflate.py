"""Gzip files built from independently compressed pieces.

A sitemap file is written as pieces (its head, segments of entries, its tail;
see writer.py). Each piece is deflated by a fresh compressor and ended with a
sync flush, which leaves it byte-aligned and free of references to earlier
data. The pieces' compressed bytes therefore concatenate into one ordinary
deflate stream, wrapped in one gzip member (RFC 1952): any gunzip, browser or
crawler reads it, and a build can replace one piece's compressed bytes without
compressing the others again (the same idea as ``gzip --rsyncable``).

The output depends only on the pieces, never on when or where they were
compressed (the header's mtime is 0), so a view and a build, or a spliced
file and a freshly rendered one, give the same bytes.
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence

# A piece of a file: bytes, or a view into a published file's bytes (a spliced
# page reuses most of its old file without copying it piece by piece).
Piece = bytes | memoryview

# gzip level 6: zlib's default, the usual balance for files fetched often.
GZIP_LEVEL = 6
# ID1 ID2, CM=deflate, FLG=0, MTIME=0, XFL=0, OS=255 (unknown): fixed, so
# the bytes are reproducible.
GZIP_HEADER = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff"
GZIP_TRAILER_SIZE = 8


def compress_piece(piece: Piece, *, last: bool) -> bytes:
    """Raw deflate of one piece: sync-flushed, or the stream's final block if ``last``."""
    compressor = zlib.compressobj(GZIP_LEVEL, zlib.DEFLATED, -zlib.MAX_WBITS)
    data = compressor.compress(piece)
    return data + compressor.flush(zlib.Z_FINISH if last else zlib.Z_SYNC_FLUSH)


def compress_pieces(pieces: Sequence[Piece]) -> list[bytes]:
    """The compressed bytes of each piece; the last one ends the stream."""
    last = len(pieces) - 1
    return [compress_piece(piece, last=index == last) for index, piece in enumerate(pieces)]


def gzip_member(pieces: Sequence[Piece], compressed: Sequence[Piece]) -> list[Piece]:
    """The gzip file of ``pieces`` (in parts), given each piece's compressed bytes."""
    crc = 0
    size = 0
    for piece in pieces:
        crc = zlib.crc32(piece, crc)
        size += len(piece)
    trailer = crc.to_bytes(4, "little") + (size & 0xFFFFFFFF).to_bytes(4, "little")
    return [GZIP_HEADER, *compressed, trailer]


def gzip_pieces(pieces: Sequence[Piece]) -> bytes:
    """Raw gzip of the concatenated ``pieces``, each compressed on its own."""
    return b"".join(gzip_member(pieces, compress_pieces(pieces)))
