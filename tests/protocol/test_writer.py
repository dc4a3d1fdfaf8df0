from __future__ import annotations

import datetime
from collections.abc import Sequence

import pytest

from django_sitemapkit._engine import sections
from django_sitemapkit._engine.rendering import make_context
from django_sitemapkit._protocol.writer import (
    MAX_BYTES_PER_FILE,
    IndexFull,
    IndexWriter,
    UrlsetWriter,
    escape,
    format_priority,
    url_element,
)
from django_sitemapkit._sitemaps import Sitemap
from tests.utils import Url, parse_index, parse_urlset

IMAGE_NS = "http://www.google.com/schemas/sitemap-image/1.1"


def content(writer: UrlsetWriter | IndexWriter) -> bytes:
    return writer.content()


def _entry(n: int) -> str:
    return f"<url><loc>https://example.com/{n}</loc></url>\n"


class OneImage(Sitemap):
    """One URL with an image, rendered as the views and builds render it."""

    section = "one"
    namespaces = {"image": IMAGE_NS}

    def items(self) -> Sequence[str]:
        return ["/a?x=1&y='2'"]

    def location(self, item: str) -> str:
        return item

    def extra_xml(self, item: str) -> tuple[str, ...]:
        return ("<image:image><image:loc>https://example.com/i.png</image:loc></image:image>",)


class OneImageWithEverything(OneImage):
    changefreq = "daily"
    priority = 0.5
    lastmod = datetime.datetime(2026, 1, 2, 3, 4, 5, tzinfo=datetime.UTC)


def render(sitemap: Sitemap) -> bytes:
    return sections.render_sitemap_page(sitemap, 1, make_context("https://example.com")).content


def test_escape_the_five_characters() -> None:
    assert escape("a&b'c\"d<e>f") == "a&amp;b&apos;c&quot;d&lt;e&gt;f"


@pytest.mark.parametrize(
    ("value", "text"), [(0, "0.0"), (0.5, "0.5"), (1, "1.0"), (0.25, "0.25"), (0.6, "0.6")]
)
def test_format_priority(value: float, text: str) -> None:
    assert format_priority(value) == text


def test_element_order_and_validity() -> None:
    xml = render(OneImageWithEverything())
    assert xml.startswith(
        b'<?xml version="1.0" encoding="UTF-8"?>\n'
        b'<?xml-stylesheet type="text/css" href="/sitemap.css"?>\n<urlset '
    )
    assert b"<url><loc>https://example.com/a?x=1&amp;y=&apos;2&apos;</loc><lastmod>" in xml
    [url] = parse_urlset(xml)
    assert url == Url(
        "https://example.com/a?x=1&y='2'", "2026-01-02T03:04:05+00:00", "daily", "0.5"
    )
    positions = [xml.index(tag) for tag in (b"<loc>", b"<lastmod>", b"<changefreq>", b"<priority>")]
    assert positions == sorted(positions)


def test_entry_limit() -> None:
    writer = UrlsetWriter(max_entries=2)
    assert writer.add_xml(_entry(1))
    assert writer.add_xml(_entry(2))
    assert not writer.add_xml(_entry(3))
    assert len(parse_urlset(content(writer))) == 2


def test_byte_limit_holds_with_2048_character_urls_of_apostrophes() -> None:
    # The worst case of escaping: every character of the URL becomes &apos;.
    loc = "https://example.com/" + "'" * (2048 - 20)
    entry = f"<url><loc>{escape(loc)}</loc><lastmod>2026-01-02</lastmod></url>\n"
    writer = UrlsetWriter(max_bytes=200_000)
    while writer.add_xml(entry):
        pass
    xml = content(writer)
    assert len(xml) <= 200_000
    assert len(xml) > 200_000 - len(entry.encode())
    assert writer.count == len(parse_urlset(xml))


def test_default_byte_limit_is_the_protocols() -> None:
    assert MAX_BYTES_PER_FILE == 52_428_800
    assert UrlsetWriter().max_bytes == 52_428_800


def test_extension_namespaces_and_extra_xml() -> None:
    xml = render(OneImageWithEverything())
    assert b'xmlns:image="http://www.google.com/schemas/sitemap-image/1.1"' in xml
    # After <priority>, where the schema's ##other wildcard allows them.
    assert b"</priority><image:image>" in xml


def test_extra_xml_follows_loc_when_nothing_else_is_written() -> None:
    assert b"</loc><image:image>" in render(OneImage())


def test_index_writer_fails_clearly_past_its_limit() -> None:
    writer = IndexWriter(max_entries=3)
    for number in range(3):
        writer.add(f"https://example.com/sitemap-a-{number + 1}.xml", "2026-01-01T00:00:00+00:00")
    with pytest.raises(IndexFull, match="more than 3 files"):
        writer.add("https://example.com/sitemap-a-4.xml")
    assert len(parse_index(content(writer))) == 3


def test_index_writer_caps_at_50000() -> None:
    writer = IndexWriter(max_entries=10**6)
    assert writer.max_entries == 50_000


def test_written_locations_read_back_as_they_were_given() -> None:
    writer = UrlsetWriter()
    locs = ["https://x.test/a?b=1&c='2'", 'https://x.test/"q"', "https://x.test/&amp;"]
    for loc in locs:
        writer.add_xml(url_element(loc))
    assert writer.written_locs() == set(locs)


def test_url_element_escapes_its_location_only() -> None:
    assert url_element("https://example.com/?a=1&b=2", "<lastmod>x</lastmod>", "<p/>") == (
        "<url><loc>https://example.com/?a=1&amp;b=2</loc><lastmod>x</lastmod><p/></url>\n"
    )
