"""The XSL stylesheet: what a person sees of an index and of a page (lxml's XSLT, as a browser's)."""

from __future__ import annotations

from xml.sax.saxutils import unescape

import lxml.etree as etree
import lxml.html
from hypothesis import given
from hypothesis import strategies as st

from django_sitemapkit._protocol.files import STYLESHEET_NAME, stylesheet_bytes
from django_sitemapkit._protocol.writer import (
    IndexWriter,
    UrlsetWriter,
    stylesheet_instruction,
)

IMAGE_NS = "http://www.google.com/schemas/sitemap-image/1.1"
XHTML_NS = "http://www.w3.org/1999/xhtml"


def shown(xml: bytes) -> lxml.html.HtmlElement:
    """The HTML the stylesheet makes of ``xml``."""
    transform = etree.XSLT(etree.fromstring(stylesheet_bytes()))
    html = str(transform(etree.fromstring(xml)))
    return lxml.html.fromstring(html)


def cells(document: lxml.html.HtmlElement) -> list[list[str]]:
    return [
        [" ".join(td.text_content().split()) for td in row.xpath("td")]
        for row in document.xpath("//table/tbody/tr")
    ]


def test_the_stylesheet_is_package_data_with_no_script_or_external_resource() -> None:
    assert STYLESHEET_NAME == "sitemap.xsl"
    root = etree.fromstring(stylesheet_bytes())
    assert root.tag == "{http://www.w3.org/1999/XSL/Transform}stylesheet"
    text = stylesheet_bytes().decode()
    assert "<script" not in text and "@import" not in text and "url(" not in text
    assert "<link" not in text


def test_an_index_is_a_table_of_its_files() -> None:
    writer = IndexWriter(stylesheet="/sitemap.xsl")
    writer.add("https://example.com/sitemap-blog-1.xml", "2026-01-02T03:04:05+00:00")
    writer.add("https://example.com/sitemap-blog-2.xml")
    document = shown(writer.content())
    assert document.xpath("//h1")[0].text_content() == "Sitemap index"
    assert "names 2 sitemap file(s)" in " ".join(document.text_content().split())
    assert cells(document) == [
        ["1", "https://example.com/sitemap-blog-1.xml", "2026-01-02 03:04:05+00:00"],
        ["2", "https://example.com/sitemap-blog-2.xml", "-"],
    ]
    links = [a.get("href") for a in document.xpath("//tbody//a")]
    assert links == [
        "https://example.com/sitemap-blog-1.xml",
        "https://example.com/sitemap-blog-2.xml",
    ]


def test_a_page_lists_url_lastmod_frequency_priority_alternates_and_images() -> None:
    writer = UrlsetWriter(
        stylesheet="/sitemap.xsl", namespaces={"image": IMAGE_NS, "xhtml": XHTML_NS}
    )
    writer.add_xml(
        "<url><loc>https://example.com/a/</loc><lastmod>2026-01-02</lastmod>"
        "<changefreq>daily</changefreq><priority>0.8</priority>"
        '<xhtml:link rel="alternate" hreflang="de" href="https://example.com/de/a/"/>'
        '<xhtml:link rel="alternate" hreflang="en" href="https://example.com/a/"/>'
        "<image:image><image:loc>https://example.com/1.png</image:loc></image:image>"
        "<image:image><image:loc>https://example.com/2.png</image:loc></image:image></url>\n"
    )
    writer.add_xml("<url><loc>https://example.com/b/</loc></url>\n")
    document = shown(writer.content())
    headings = [th.text_content() for th in document.xpath("//thead//th")]
    assert headings == [
        "#",
        "URL",
        "Last modified",
        "Change frequency",
        "Priority",
        "Alternates",
        "Images",
    ]
    assert cells(document) == [
        ["1", "https://example.com/a/", "2026-01-02", "daily", "0.8", "de en", "2"],
        ["2", "https://example.com/b/", "-", "", "", "-", "0"],
    ]
    alternates = document.xpath("//tbody/tr[1]/td[6]/a/@href")
    assert alternates == ["https://example.com/de/a/", "https://example.com/a/"]
    assert "lists 2 URL(s)" in " ".join(document.text_content().split())


def test_columns_without_values_are_left_out() -> None:
    writer = UrlsetWriter(stylesheet="/sitemap.xsl")
    writer.add_xml("<url><loc>https://example.com/</loc></url>\n")
    headings = [th.text_content() for th in shown(writer.content()).xpath("//th")]
    assert headings == ["#", "URL", "Last modified", "Alternates", "Images"]


def test_the_instruction_follows_the_declaration_and_is_the_only_change() -> None:
    plain, styled = UrlsetWriter(), UrlsetWriter(stylesheet="/maps/sitemap.xsl")
    for writer in (plain, styled):
        writer.add_xml("<url><loc>https://example.com/</loc></url>\n")
    line = b'<?xml-stylesheet type="text/xsl" href="/maps/sitemap.xsl"?>\n'
    declaration = b'<?xml version="1.0" encoding="UTF-8"?>\n'
    assert styled.content() == plain.content().replace(declaration, declaration + line, 1)
    assert styled.size == len(styled.content())
    assert b"xml-stylesheet" not in plain.content()
    assert stylesheet_instruction(None) == ""


@given(st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), min_size=1))
def test_any_href_is_written_as_a_well_formed_instruction(href: str) -> None:
    writer = IndexWriter(stylesheet=href)
    writer.add("https://example.com/sitemap-a-1.xml")
    root = etree.fromstring(writer.content())
    [instruction] = [node for node in root.itersiblings(preceding=True)]
    assert instruction.target == "xml-stylesheet"
    assert instruction.get("type") == "text/xsl"
    # Pseudo-attributes take the predefined entities (the xml-stylesheet
    # recommendation), which browsers read back; lxml leaves them as written.
    assert unescape(instruction.get("href"), {"&quot;": '"', "&apos;": "'"}) == href
