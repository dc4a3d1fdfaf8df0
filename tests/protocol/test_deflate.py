"""Gzip files of independently compressed pieces: standard gzip, reproducible, spliceable."""

from __future__ import annotations

import gzip
import random
import subprocess
import zlib

import pytest

from django_sitemapkit.protocol.deflate import (
    GZIP_HEADER,
    compress_piece,
    compress_pieces,
    gzip_member,
    gzip_pieces,
)


def pieces(seed: int, count: int = 6) -> list[bytes]:
    rng = random.Random(seed)
    return [
        b"".join(
            f"<url><loc>https://example.com/{rng.random()}</loc></url>\n".encode()
            for _ in range(rng.randrange(1, 400))
        )
        for _ in range(count)
    ]


@pytest.mark.parametrize("seed", range(5))
def test_decompresses_to_the_joined_pieces(seed: int) -> None:
    parts = pieces(seed)
    packed = gzip_pieces(parts)
    assert gzip.decompress(packed) == b"".join(parts)
    # One gzip member: a single-member reader (zlib, as browsers use it)
    # reaches the end of the stream with nothing left over.
    reader = zlib.decompressobj(16 + zlib.MAX_WBITS)
    assert reader.decompress(packed) == b"".join(parts)
    assert reader.eof and reader.unused_data == b""


def test_gunzip_reads_it() -> None:
    parts = pieces(7)
    try:
        result = subprocess.run(
            ["gzip", "-dc"], input=gzip_pieces(parts), capture_output=True, check=True
        )
    except FileNotFoundError:
        pytest.skip("no gzip program")
    assert result.stdout == b"".join(parts)


def test_reproducible_and_header_fixed() -> None:
    parts = pieces(3)
    assert gzip_pieces(parts) == gzip_pieces(list(parts))
    assert gzip_pieces(parts).startswith(GZIP_HEADER)


def test_replacing_one_piece_equals_compressing_all_again() -> None:
    parts = pieces(11)
    compressed = compress_pieces(parts)
    parts[2] = b"<url><loc>https://example.com/changed</loc></url>\n" * 3
    compressed[2] = compress_piece(parts[2], last=False)
    assert b"".join(gzip_member(parts, compressed)) == gzip_pieces(parts)
    assert gzip.decompress(b"".join(gzip_member(parts, compressed))) == b"".join(parts)


def test_close_to_one_deflate_stream_in_size() -> None:
    # 1,000-entry pieces cost a few per cent against an unbroken stream.
    parts = [
        b"".join(
            f"<url><loc>https://www.example.com/articles/article-{n}/</loc>"
            f"<lastmod>2026-01-01T00:00:{n % 60:02d}+00:00</lastmod></url>\n".encode()
            for n in range(start, start + 1000)
        )
        for start in range(0, 10_000, 1000)
    ]
    whole = gzip.compress(b"".join(parts), compresslevel=6)
    assert len(gzip_pieces(parts)) < 1.06 * len(whole)
