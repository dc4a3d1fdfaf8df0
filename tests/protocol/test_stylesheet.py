"""The stylesheets: what a person sees of an index and of a page (the XSL through lxml's XSLT, as
a browser's; the CSS in headless Chromium: tests/test_browser_stylesheet.py)."""

from __future__ import annotations

from typing import Any
from xml.sax.saxutils import unescape

import lxml.etree as etree
import lxml.html
import pytest
from hypothesis import given
from hypothesis import strategies as st

from django_sitemapkit._protocol.files import STYLESHEETS, content_type
from django_sitemapkit._protocol.writer import IndexWriter, UrlsetWriter

CSS, XSL = STYLESHEETS["css"], STYLESHEETS["xsl"]
INSTRUCTION = XSL.instruction("/sitemap.xsl")
IMAGE_NS = "http://www.google.com/schemas/sitemap-image/1.1"
XHTML_NS = "http://www.w3.org/1999/xhtml"


def shown(xml: bytes) -> lxml.html.HtmlElement:
    """The HTML the stylesheet makes of ``xml``."""
    transform = etree.XSLT(etree.fromstring(XSL.content))
    html = str(transform(etree.fromstring(xml)))
    return lxml.html.fromstring(html)


def cells(document: lxml.html.HtmlElement) -> list[list[str]]:
    return [
        [" ".join(td.text_content().split()) for td in row.xpath("td")]
        for row in document.xpath("//table/tbody/tr")
    ]


def test_the_stylesheets_are_package_data_with_no_script_or_external_resource() -> None:
    assert (XSL.name, content_type(XSL.name)) == ("sitemap.xsl", "text/xsl; charset=utf-8")
    assert (CSS.name, content_type(CSS.name)) == ("sitemap.css", "text/css; charset=utf-8")
    root = etree.fromstring(XSL.content)
    assert root.tag == "{http://www.w3.org/1999/XSL/Transform}stylesheet"
    text = XSL.content.decode()
    assert "<script" not in text and "@import" not in text and "url(" not in text
    assert "<link" not in text
    # The CSS loads nothing: its only url()s are the @namespace rules' names.
    css = CSS.content.decode()
    assert "@import" not in css and css.count("url(") == css.count("@namespace") == 2


def test_an_index_is_a_table_of_its_files() -> None:
    writer = IndexWriter(stylesheet=INSTRUCTION)
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
    writer = UrlsetWriter(stylesheet=INSTRUCTION, namespaces={"image": IMAGE_NS, "xhtml": XHTML_NS})
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
    writer = UrlsetWriter(stylesheet=INSTRUCTION)
    writer.add_xml("<url><loc>https://example.com/</loc></url>\n")
    headings = [th.text_content() for th in shown(writer.content()).xpath("//th")]
    assert headings == ["#", "URL", "Last modified", "Alternates", "Images"]


@pytest.mark.parametrize("kind", ["css", "xsl"])
def test_the_instruction_follows_the_declaration_and_is_the_only_change(kind: str) -> None:
    sheet = STYLESHEETS[kind]
    plain, styled = (
        UrlsetWriter(),
        UrlsetWriter(stylesheet=sheet.instruction("/maps/" + sheet.name)),
    )
    for writer in (plain, styled):
        writer.add_xml("<url><loc>https://example.com/</loc></url>\n")
    line = f'<?xml-stylesheet type="text/{kind}" href="/maps/sitemap.{kind}"?>\n'.encode()
    declaration = b'<?xml version="1.0" encoding="UTF-8"?>\n'
    assert styled.content() == plain.content().replace(declaration, declaration + line, 1)
    assert styled.size == len(styled.content())
    assert b"xml-stylesheet" not in plain.content()


@given(
    st.sampled_from(list(STYLESHEETS.values())),
    st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), min_size=1),
)
def test_any_href_is_written_as_a_well_formed_instruction(sheet: Any, href: str) -> None:
    writer = IndexWriter(stylesheet=sheet.instruction(href))
    writer.add("https://example.com/sitemap-a-1.xml")
    root = etree.fromstring(writer.content())
    [instruction] = [node for node in root.itersiblings(preceding=True)]
    assert instruction.target == "xml-stylesheet"
    assert instruction.get("type") == sheet.media_type
    # Pseudo-attributes take the predefined entities (the xml-stylesheet
    # recommendation), which browsers read back; lxml leaves them as written.
    assert unescape(instruction.get("href"), {"&quot;": '"', "&apos;": "'"}) == href
