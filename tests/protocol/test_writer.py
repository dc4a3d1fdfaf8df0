from __future__ import annotations

import datetime
from collections.abc import Sequence
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from django_sitemapkit.engine import sections
from django_sitemapkit.engine.rendering import make_context
from django_sitemapkit.protocol.writer import (
    MAX_BYTES_PER_FILE,
    SEGMENT_ENTRIES,
    IndexFull,
    IndexWriter,
    UrlsetWriter,
    escape,
    format_priority,
)
from django_sitemapkit.sitemaps import Sitemap
from tests.utils import Url, parse_index, parse_urlset

IMAGE_NS = "http://www.google.com/schemas/sitemap-image/1.1"


def content(writer: UrlsetWriter | IndexWriter) -> bytes:
    return b"".join(writer.pieces())


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
        b'<?xml-stylesheet type="text/xsl" href="/sitemap.xsl"?>\n<urlset '
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


def test_a_file_is_its_head_segments_of_1000_entries_and_tail() -> None:
    writer = UrlsetWriter()
    for n in range(2500):
        assert writer.add_xml(_entry(n), key=n)
    head, *segments, tail = writer.pieces()
    assert head.endswith(b'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n')
    assert tail == b"</urlset>\n"
    assert [segment.count(b"<url>") for segment in segments] == [SEGMENT_ENTRIES] * 2 + [500]
    # A segment ends at its last row's key; the last one runs to the file's end.
    assert writer.segment_cuts == [999, 1999]
    assert writer.segment_skips == [0, 0, 0]
    assert writer.pieces() == [head, *segments, tail]  # pieces() may be asked again
    assert writer.size == len(content(writer))


def test_skipped_rows_count_in_the_segment_whose_key_range_holds_them() -> None:
    writer = UrlsetWriter(segment_entries=2)
    writer.skip()  # before the first entry: segment 0
    writer.add_xml(_entry(1), key=1)
    writer.add_xml(_entry(2), key=2)  # segment 0 ends at key 2
    writer.skip()  # after key 2, before the next entry: segment 1
    writer.add_xml(_entry(4), key=4)
    writer.skip()
    writer.pieces()
    assert writer.segment_cuts == [2]
    assert writer.segment_skips == [1, 2]


def test_a_last_segment_that_ends_full_runs_to_the_end_of_the_file() -> None:
    writer = UrlsetWriter(segment_entries=2)
    for key in (1, 2, 3, 4):
        writer.add_xml(_entry(key), key=key)
    writer.skip()  # after the last entry: still the last segment's
    pieces = writer.pieces()
    assert len(pieces) == 4  # head, two segments, tail
    assert writer.segment_cuts == [2]
    assert writer.segment_skips == [0, 1]


def test_an_empty_file_has_head_and_tail_only() -> None:
    writer = UrlsetWriter()
    assert len(writer.pieces()) == 2
    assert writer.segment_cuts == []


def test_written_locations_read_back_as_they_were_given() -> None:
    writer = UrlsetWriter(segment_entries=2)
    locs = ["https://x.test/a?b=1&c='2'", 'https://x.test/"q"', "https://x.test/&amp;"]
    for loc in locs:
        writer.add_xml(f"<url><loc>{escape(loc)}</loc></url>\n")
    # Two entries sit in a finished segment, the third in the one being written.
    assert writer.written_locs() == set(locs)


# --------------------------------------------------------------------------- add_entries

# One entry of a run: ASCII or not (its size in bytes is not its length).
ENTRY = st.builds(
    lambda path: f"<url><loc>https://example.com/{escape(path)}</loc></url>\n",
    st.text(alphabet=st.sampled_from("ab-_/&é€😀"), max_size=12),
)
# What a caller does: a run of entries, a single entry, or a skipped row.
STEP = st.one_of(
    st.tuples(st.just("entries"), st.lists(ENTRY, max_size=9)),
    st.tuples(st.just("xml"), ENTRY),
    st.tuples(st.just("skip"), st.none()),
)


def fed(writer: UrlsetWriter, steps: list[tuple[str, Any]], *, runs: bool) -> list[object]:
    """Feed ``steps`` to ``writer`` (runs with add_entries() or one add_xml() each); the answers."""
    answers: list[object] = []
    key = 0
    for kind, value in steps:
        if kind == "skip":
            writer.skip()
            continue
        xmls = value if kind == "entries" else [value]
        keys = list(range(key, key + len(xmls)))
        key += len(xmls)
        if kind == "entries" and runs:
            answers.append(writer.add_entries(xmls, keys))
        elif kind == "entries":
            taken = 0
            for xml, row_key in zip(xmls, keys, strict=True):
                if not writer.add_xml(xml, row_key):
                    break
                taken += 1
            answers.append(taken)
        else:
            answers.append(writer.add_xml(value, keys[0]))
    return answers


@settings(max_examples=300, deadline=None)
@given(
    steps=st.lists(STEP, max_size=25),
    segment_entries=st.integers(1, 5),
    max_entries=st.integers(0, 60),
    max_bytes=st.integers(110, 2500),  # the head and tail alone are 110 bytes
)
def test_add_entries_writes_what_add_xml_one_by_one_writes(
    steps: list[tuple[str, Any]], segment_entries: int, max_entries: int, max_bytes: int
) -> None:
    limits = {"segment_entries": segment_entries, "max_entries": max_entries}
    runs = UrlsetWriter(**limits, max_bytes=max_bytes)
    singles = UrlsetWriter(**limits, max_bytes=max_bytes)
    assert fed(runs, steps, runs=True) == fed(singles, steps, runs=False)
    assert (runs.count, runs.size) == (singles.count, singles.size)
    assert runs.written_locs() == singles.written_locs()
    assert runs.pieces() == singles.pieces()
    assert runs.segment_cuts == singles.segment_cuts
    assert runs.segment_skips == singles.segment_skips
    assert runs.size == len(content(runs)) <= max_bytes
    assert runs.count == content(runs).count(b"<url>") <= max_entries


def test_add_entries_stops_at_the_first_entry_that_does_not_fit() -> None:
    writer = UrlsetWriter(max_entries=5, segment_entries=2)
    assert writer.add_entries([_entry(n) for n in range(3)], [0, 1, 2]) == 3
    assert writer.add_entries([_entry(n) for n in range(3, 7)], [3, 4, 5, 6]) == 2
    writer.pieces()
    assert [url.loc for url in parse_urlset(content(writer))] == [
        f"https://example.com/{n}" for n in range(5)
    ]
    assert writer.segment_cuts == [1, 3]


def test_add_entries_of_a_whole_segment_ends_it_at_the_last_key() -> None:
    writer = UrlsetWriter(segment_entries=3)
    assert writer.add_entries([_entry(n) for n in range(3)], ["a", "b", "c"]) == 3
    assert writer.add_xml(_entry(3), "d")
    assert writer.segment_cuts == ["c"]
    assert len(writer.pieces()) == 4
