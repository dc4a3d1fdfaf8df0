from __future__ import annotations

import pytest

from django_sitemapkit.writer import (
    MAX_BYTES_PER_FILE,
    IndexFull,
    IndexWriter,
    UrlEntry,
    UrlsetWriter,
    escape,
    format_priority,
)
from tests.utils import parse_index, parse_urlset


def test_escape_the_five_characters() -> None:
    assert escape("a&b'c\"d<e>f") == "a&amp;b&apos;c&quot;d&lt;e&gt;f"


@pytest.mark.parametrize(
    ("value", "text"), [(0, "0.0"), (0.5, "0.5"), (1, "1.0"), (0.25, "0.25"), (0.6, "0.6")]
)
def test_format_priority(value: float, text: str) -> None:
    assert format_priority(value) == text


def test_element_order_and_validity() -> None:
    writer = UrlsetWriter()
    assert writer.add(
        UrlEntry(
            "https://example.com/a?x=1&y='2'",
            lastmod="2026-01-02T03:04:05+00:00",
            changefreq="daily",
            priority="0.5",
        )
    )
    content = writer.getvalue()
    assert content.startswith(b'<?xml version="1.0" encoding="UTF-8"?>\n<urlset ')
    assert b"<url><loc>https://example.com/a?x=1&amp;y=&apos;2&apos;</loc><lastmod>" in content
    urls = parse_urlset(content)
    assert urls[0].loc == "https://example.com/a?x=1&y='2'"
    positions = [
        content.index(tag) for tag in (b"<loc>", b"<lastmod>", b"<changefreq>", b"<priority>")
    ]
    assert positions == sorted(positions)


def test_entry_limit() -> None:
    writer = UrlsetWriter(max_entries=2)
    assert writer.add(UrlEntry("https://example.com/1"))
    assert writer.add(UrlEntry("https://example.com/2"))
    assert not writer.add(UrlEntry("https://example.com/3"))
    assert len(parse_urlset(writer.getvalue())) == 2


def test_byte_limit_holds_with_2048_character_urls_of_apostrophes() -> None:
    # The worst case of escaping: every character of the URL becomes &apos;.
    loc = "https://example.com/" + "'" * (2048 - 20)
    writer = UrlsetWriter(max_bytes=200_000)
    while writer.add(UrlEntry(loc, lastmod="2026-01-02")):
        pass
    content = writer.getvalue()
    assert len(content) <= 200_000
    assert len(content) > 200_000 - len(UrlEntry(loc).to_xml().encode())
    assert writer.count == len(parse_urlset(content))


def test_default_byte_limit_is_the_protocols() -> None:
    assert MAX_BYTES_PER_FILE == 52_428_800
    assert UrlsetWriter().max_bytes == 52_428_800


def test_extension_namespaces_and_extra_xml() -> None:
    writer = UrlsetWriter(namespaces={"image": "http://www.google.com/schemas/sitemap-image/1.1"})
    writer.add(
        UrlEntry(
            "https://example.com/a",
            extra_xml=(
                "<image:image><image:loc>https://example.com/i.png</image:loc></image:image>",
            ),
        )
    )
    content = writer.getvalue()
    assert b'xmlns:image="http://www.google.com/schemas/sitemap-image/1.1"' in content
    assert b"</priority>" not in content
    assert b"</loc><image:image>" in content


def test_index_writer_fails_clearly_past_its_limit() -> None:
    writer = IndexWriter(max_entries=3)
    for number in range(3):
        writer.add(f"https://example.com/sitemap-a-{number + 1}.xml", "2026-01-01T00:00:00+00:00")
    with pytest.raises(IndexFull, match="more than 3 files"):
        writer.add("https://example.com/sitemap-a-4.xml")
    assert len(parse_index(writer.getvalue())) == 3


def test_index_writer_caps_at_50000() -> None:
    writer = IndexWriter(max_entries=10**6)
    assert writer.max_entries == 50_000
