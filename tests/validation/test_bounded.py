"""What is read of a file: gunzipped when it is gzip, never past the protocol's cap."""

from __future__ import annotations

import gzip
import io
import zlib

import pytest

from django_sitemapkit._protocol.writer import MAX_BYTES_PER_FILE
from django_sitemapkit._validation.sources import READ_CAP, Capped, Readable, content, gunzipped


def read_all(stream: Readable) -> bytes:
    data = b""
    while chunk := stream.read(1 << 20):
        data += chunk
    return data


def test_plain_and_gzip_content() -> None:
    xml = b"<urlset/>" * 1000
    assert read_all(content(io.BytesIO(xml))) == xml
    assert read_all(content(io.BytesIO(gzip.compress(xml)))) == xml
    assert content(io.BytesIO(b"")).read(10) == b""
    assert content(io.BytesIO(b"<")).read(10) == b"<"


def test_a_read_is_whole_across_the_peeked_head() -> None:
    stream = content(io.BytesIO(b"<?xml version='1.0'?>"))
    assert stream.read(5) == b"<?xml"
    assert stream.read(-1) == b" version='1.0'?>"


def test_reading_stops_one_byte_past_the_protocol_s_cap() -> None:
    assert READ_CAP == MAX_BYTES_PER_FILE + 1
    zeros = bytes(MAX_BYTES_PER_FILE + 1000)
    assert len(read_all(content(io.BytesIO(zeros)))) == READ_CAP
    bomb = gzip.compress(bytes(8 << 20)) * 50  # 400 MiB inflated
    assert len(read_all(content(io.BytesIO(bomb)))) == READ_CAP
    assert len(read_all(Capped(io.BytesIO(b"abcdef"), 4, b""))) == 4


@pytest.mark.parametrize(
    ("data", "error"),
    [
        (b"<urlset/>", gzip.BadGzipFile),
        (gzip.compress(b"<urlset/>" * 100)[:30], EOFError),
        (gzip.compress(b"<urlset/>")[:10] + b"\xff" * 20, zlib.error),
    ],
)
def test_what_is_not_gzip(data: bytes, error: type[Exception]) -> None:
    with pytest.raises(error):
        read_all(gunzipped(io.BytesIO(data)))
