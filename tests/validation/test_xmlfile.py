from __future__ import annotations

import hashlib
import io

import pytest
from hypothesis import given
from hypothesis import strategies as st

from django_sitemapkit._validation.xmlfile import Entry, Scan, load_schemas, scan
from tests.xsd import xsd_dir

NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
IMAGE = "http://www.google.com/schemas/sitemap-image/1.1"
LOC = "<loc>https://www.example.com/a</loc>"


def urlset(body: str, root: str = "urlset") -> bytes:
    return (
        f'<?xml version="1.0"?><{root} xmlns="{NS}" xmlns:image="{IMAGE}">{body}</{root}>'.encode()
    )


def run(data: bytes, with_xsd: bool = False) -> tuple[Scan, list[Entry]]:
    entries: list[Entry] = []
    schemas = None
    if with_xsd:
        schemas = load_schemas(str(xsd_dir()))
    return scan(io.BytesIO(data), entries.append, schemas), entries


def test_entries_size_and_hash() -> None:
    data = urlset(
        f"<url>{LOC}<lastmod>2026-01-01</lastmod></url><url><loc>https://x.example/b</loc></url>"
    )
    result, entries = run(data)
    assert result.problem is None
    assert (result.kind, result.entries, result.size) == ("urlset", 2, len(data))
    assert result.sha256 == hashlib.sha256(data).hexdigest()
    assert entries == [
        Entry(1, "https://www.example.com/a", "2026-01-01"),
        Entry(2, "https://x.example/b", None),
    ]


PROBLEMS = [
    (urlset(""), ("schema", "<urlset> has no <url>", "")),
    (
        urlset(f"<url><lastmod>2026-01-01</lastmod>{LOC}</url>"),
        ("schema", "<url> must start with <loc>, not <lastmod>", "entry 1"),
    ),
    (
        urlset("<url><priority>0.5</priority></url>"),
        ("schema", "<url> must start with <loc>, not <priority>", "entry 1"),
    ),
    (
        urlset(f"<url>{LOC}<priority>2</priority></url>"),
        ("schema", "<priority> '2' is not a number from 0.0 to 1.0", "entry 1"),
    ),
    (
        urlset(f"<url>{LOC}<image:image/><lastmod>2026-01-01</lastmod></url>"),
        ("schema", "unexpected <lastmod> in <url>", "entry 1"),
    ),
    (
        urlset(f"<url>{LOC}</url><sitemap>{LOC}</sitemap>"),
        ("schema", "unexpected <sitemap> in <urlset>", "entry 2"),
    ),
    (
        urlset(f"<sitemap>{LOC}<changefreq>daily</changefreq></sitemap>", "sitemapindex"),
        ("schema", "unexpected <changefreq> in <sitemap>", "entry 1"),
    ),
    (
        urlset("<url><loc>https://www.example.com/<b/></loc></url>"),
        ("schema", "<loc> holds an element", "entry 1"),
    ),
    (
        b"<urlset><url/></urlset>",
        ("schema", "root element 'urlset', not <urlset> or <sitemapindex> of {" + NS + "}", ""),
    ),
    (urlset(f"<url>{LOC}</url>")[:-3], None),
]


@pytest.mark.parametrize(("data", "problem"), PROBLEMS)
def test_the_first_problem_of_a_file(data: bytes, problem: tuple[str, str, str] | None) -> None:
    result, _ = run(data)
    if problem is None:  # truncated
        assert result.problem is not None and result.problem[0] == "xml"
    else:
        assert result.problem == problem


@pytest.mark.parametrize(("data", "problem"), PROBLEMS)
def test_lxml_and_the_xsds_agree(data: bytes, problem: tuple[str, str, str] | None) -> None:
    result, _ = run(data, with_xsd=True)
    assert result.problem is not None
    assert result.problem[0] == ("xml" if problem is None else "schema")


def test_extensions_validate_against_their_schemas() -> None:
    good = urlset(
        f"<url>{LOC}<image:image><image:loc>https://www.example.com/i.png</image:loc></image:image></url>"
    )
    assert run(good)[0].problem is None
    assert run(good, with_xsd=True)[0].problem is None
    bad = good.replace(b"image:loc", b"image:where")
    assert run(bad)[0].problem is None  # Python rules do not read extensions
    assert run(bad, with_xsd=True)[0].problem is not None


def test_entities_are_not_expanded() -> None:
    bomb = (
        b'<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "aaaaaaaaaa">'
        + b"".join(
            f'<!ENTITY a{i} "{"&a;" * 10 if i == 0 else f"&a{i - 1};" * 10}">'.encode()
            for i in range(9)
        )
        + f']><urlset xmlns="{NS}"><url><loc>https://www.example.com/&a8;</loc></url></urlset>'.encode()
    )
    result, entries = run(bomb)
    assert result.problem is not None
    assert entries == []


@pytest.mark.parametrize(
    ("declared", "codec"),
    [("TF-8", "utf-8"), ("Shift_JIS", "shift_jis"), ("UTF-7", "utf-7"), ("ISO-8859-1", "latin-1")],
)
def test_a_declared_encoding_other_than_utf8(declared: str, codec: str) -> None:
    text = (
        f'<?xml version="1.0" encoding="{declared}"?><urlset xmlns="{NS}"><url>{LOC}</url></urlset>'
    )
    result, entries = run(text.encode(codec))
    message = f"declares the encoding {declared!r}: sitemaps must be UTF-8"
    assert (result.problem, entries) == (("xml", message, ""), [])
    assert result.size == len(text.encode(codec))


@pytest.mark.parametrize("codec", ["utf-16", "utf-16-be", "utf-32", "utf-32-le"])
def test_utf16_and_utf32_with_or_without_a_declaration(codec: str) -> None:
    for declaration in ("", f'<?xml version="1.0" encoding="{codec.upper()}"?>'):
        result, entries = run(
            f'{declaration}<urlset xmlns="{NS}"><url>{LOC}</url></urlset>'.encode(codec)
        )
        assert result.problem == ("xml", "not UTF-8 (UTF-16 or UTF-32): sitemaps must be UTF-8", "")
        assert entries == []


@pytest.mark.parametrize("declaration", ['<?xml version="1.0" encoding="utf-8"?>', "\ufeff"])
def test_utf8_declared_in_any_case_or_by_its_byte_order_mark(declaration: str) -> None:
    result, entries = run(f'{declaration}<urlset xmlns="{NS}"><url>{LOC}</url></urlset>'.encode())
    assert result.problem is None
    assert len(entries) == 1


@given(st.binary(max_size=300))
def test_any_bytes_give_a_scan(data: bytes) -> None:
    result, _ = run(data)
    assert result.size == len(data)
    assert result.problem is not None or result.kind is not None
