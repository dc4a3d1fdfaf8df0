"""``/sitemap.css``, ``/sitemap.xsl``: the stylesheet every served file references (``STYLESHEET``),
from the site's own origin."""

from __future__ import annotations

import datetime
import gzip
import re
from pathlib import Path
from typing import Any

import lxml.etree
import pytest
from django.test import Client, override_settings
from hypothesis import given
from hypothesis import strategies as st

import django_sitemapkit as sitemapkit
from django_sitemapkit._protocol.files import STYLESHEETS
from tests.testapp.models import Article
from tests.utils import crawl, parse_index

pytestmark = pytest.mark.django_db

T0 = datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC)
DECLARATION = b'<?xml version="1.0" encoding="UTF-8"?>\n'
INSTRUCTION = b'<?xml-stylesheet type="text/css" href="/sitemap.css"?>\n'  # the default
XSL_INSTRUCTION = b'<?xml-stylesheet type="text/xsl" href="/sitemap.xsl"?>\n'


@pytest.fixture
def site(sitemaps: Any, settings: Any) -> Any:
    settings.SITEMAPKIT = {**settings.SITEMAPKIT, "SERVE_BUILT_FILES": False}

    @sitemapkit.register(Article)
    class ArticleSitemap(sitemapkit.ModelSitemap):
        limit = 5

    Article.objects.bulk_create(Article(slug=f"a{i}", updated_at=T0) for i in range(12))
    return sitemaps


def every_file(client: Client) -> dict[str, bytes]:
    paths = ["/sitemap.xml", *crawl(client)]
    return {path: client.get(path).content for path in paths}


@pytest.mark.parametrize("kind", ["css", "xsl"])
@pytest.mark.parametrize("setting", ["css", "xsl", None])
def test_each_stylesheet_is_served_with_validators_and_cache_headers(
    client: Client, settings: Any, kind: str, setting: str | None
) -> None:
    # Whatever STYLESHEET says: a file a browser or a CDN cached before a change still finds its own.
    settings.SITEMAPKIT = {**settings.SITEMAPKIT, "STYLESHEET": setting}
    path = f"/sitemap.{kind}"
    response = client.get(path)
    assert response.status_code == 200
    assert response["Content-Type"] == f"text/{kind}; charset=utf-8"
    assert response.content == STYLESHEETS[kind].content
    assert response["Cache-Control"] == "public, max-age=86400"
    assert response["X-Robots-Tag"] == "noindex"
    assert response["Last-Modified"].endswith(" GMT")
    again = client.get(path, headers={"if-none-match": response["ETag"]})
    assert again.status_code == 304 and again.content == b""
    since = client.get(path, headers={"if-modified-since": response["Last-Modified"]})
    assert since.status_code == 304
    assert client.head(path).status_code == 200
    assert client.post(path).status_code == 405
    assert client.get("/sitemap.js").status_code == 404


@pytest.mark.parametrize(
    ("setting", "instruction"),
    [
        ({}, INSTRUCTION),
        ({"STYLESHEET": "xsl"}, XSL_INSTRUCTION),
        ({"STYLESHEET": True}, XSL_INSTRUCTION),
    ],
)
def test_every_file_references_it_and_still_validates(
    site: Any,
    client: Client,
    settings: Any,
    xsd_validate_index: Any,
    xsd_validate_urlset: Any,
    setting: dict[str, Any],
    instruction: bytes,
) -> None:
    # By default the CSS, never the XSL: browsers are removing XSLT. True, the old default, is "xsl".
    settings.SITEMAPKIT = {**settings.SITEMAPKIT, **setting}
    files = every_file(client)
    assert len(files) == 4
    for path, content in files.items():
        assert content.startswith(DECLARATION + instruction), path
        assert (b"text/xsl" in content) == (instruction == XSL_INSTRUCTION)
        assert content.count(b"xml-stylesheet") == 1
        (xsd_validate_index if path == "/sitemap.xml" else xsd_validate_urlset)(content)
        assert gzip.decompress(client.get(path + ".gz").content) == content


@pytest.mark.parametrize("off", [None, False, "XSL", 1, ["css"]])
def test_turned_off_the_files_are_what_they_were(
    site: Any, client: Client, settings: Any, off: object
) -> None:
    """Crawlers' bytes are one line apart; a value E028 reports names no stylesheet, no 500."""
    styled = every_file(client)
    settings.SITEMAPKIT = {**settings.SITEMAPKIT, "STYLESHEET": "xsl"}
    xsl = every_file(client)
    # Cached (the default locmem cache, or Redis): never served under the other value.
    settings.SITEMAPKIT = {**settings.SITEMAPKIT, "STYLESHEET": off}
    plain = every_file(client)
    assert plain == {path: content.replace(INSTRUCTION, b"", 1) for path, content in styled.items()}
    assert plain == {
        path: content.replace(XSL_INSTRUCTION, b"", 1) for path, content in xsl.items()
    }
    assert all(content.startswith(DECLARATION + b"<") for content in plain.values())
    assert b"xml-stylesheet" not in b"".join(plain.values())


@override_settings(ROOT_URLCONF="tests.urls_sitemapkit_in_directory")
def test_in_a_directory_the_href_is_beside_the_index(sitemaps: Any, client: Client) -> None:
    @sitemapkit.register(section="help")
    class HelpSitemap(sitemapkit.StaticViewSitemap):
        url_names = ["sitemapkit-help"]

    index = client.get("/sitemapkit/sitemap.xml").content
    href = b"/sitemapkit/sitemap.css"
    assert index.startswith(DECLARATION + INSTRUCTION.replace(b"/sitemap.css", href))
    [(loc, _)] = parse_index(index)
    page = client.get(loc.removeprefix("https://www.example.com")).content
    assert page.startswith(DECLARATION + INSTRUCTION.replace(b"/sitemap.css", href))
    assert client.get(href.decode()).content == STYLESHEETS["css"].content
    assert client.get("/sitemap.css").status_code == 404


# Hrefs a row may write into an alternate through extra_xml(): schemes that run
# script, in the spellings a browser still reads as them (any case, leading
# space or control characters, a tab or newline inside the scheme, character
# references the XML parser decodes), an entity- and a percent-encoded one.
HOSTILE_HREFS = [
    "javascript:top.postMessage('javascript','*')",
    "JaVaScRiPt:top.postMessage('mixed-case','*')",
    "\t\n javascript:top.postMessage('leading-space','*')",
    "java\tscr\nipt:top.postMessage('tab-inside','*')",
    "data:text/html,<script>top.postMessage('data','*')</script>",
    " DATA:text/html;base64,PHNjcmlwdD50b3AucG9zdE1lc3NhZ2UoJ2I2NCcsJyonKTwvc2NyaXB0Pg==",
    "vbscript:MsgBox(1)",
    "%6Aavascript:top.postMessage('percent','*')",
]
# Written as XML character references: the parser hands the browser "javascript:".
ENCODED_HREFS = ["&#106;avascript:top.postMessage('entity','*')", "&#x09;javascript:x()"]
SAFE_HREF = "https://www.example.com/fr/"
XML_CHARACTERS = st.characters(codec="utf-8", exclude_categories=["Cs", "Cc"])


def alternate(href: str, hreflang: str = "fr") -> str:
    """An ``xhtml:link`` alternate, as a row's data could write it through ``extra_xml()``."""
    quoted = href.replace("&", "&amp;").replace("<", "&lt;").replace('"', "&quot;")
    quoted = quoted.replace("\t", "&#9;").replace("\n", "&#10;")
    return f'<xhtml:link rel="alternate" hreflang="{hreflang}" href="{quoted}"/>'


class HostileSitemap(sitemapkit.Sitemap):
    """One URL whose alternates are every hostile href, and one safe alternate."""

    namespaces = {"xhtml": "http://www.w3.org/1999/xhtml"}

    def items(self) -> list[str]:
        return ["hostile"]

    def location(self, item: str) -> str:
        return f"/articles/{item}/"

    def extra_xml(self, item: str) -> tuple[str, ...]:
        raw = [alternate(href, f"x{n}") for n, href in enumerate(HOSTILE_HREFS)]
        encoded = [
            f'<xhtml:link rel="alternate" hreflang="e{n}" href="{href}"/>'
            for n, href in enumerate(ENCODED_HREFS)
        ]
        return (*raw, *encoded, alternate(SAFE_HREF))


def scheme_a_browser_reads(href: str) -> str | None:
    """The scheme of ``href`` as the URL standard parses it: ends stripped of C0 controls and
    spaces, tabs and newlines removed anywhere, lower case; None for a relative URL."""
    url = re.sub("[\t\n\r]", "", href.strip("".join(map(chr, range(0x21)))))
    match = re.match(r"([A-Za-z][A-Za-z0-9+.-]*):", url)
    return match[1].lower() if match else None


def links(urlset: bytes) -> list[str]:
    """The hrefs the stylesheet makes links of, in a urlset shown to a person."""
    transform = lxml.etree.XSLT(lxml.etree.fromstring(STYLESHEETS["xsl"].content))
    html = transform(lxml.etree.fromstring(urlset))
    return [a.get("href") for a in html.getroot().iter("a")]


hrefs = st.builds(
    lambda lead, scheme, rest: lead + scheme + rest,
    st.text(alphabet=" \t\n\r", max_size=2),
    st.sampled_from(["javascript:", "data:", "vbscript:", "http://", "https://", "ftp:", ""]).map(
        lambda scheme: scheme.upper() if len(scheme) % 2 else scheme
    )
    | st.text(alphabet="jJaAvVsScCrRiIpPtThHdD:/\t", max_size=12),
    st.text(XML_CHARACTERS, max_size=20),
)


@given(hrefs)
def test_only_http_and_https_hrefs_become_links(href: str) -> None:
    urlset = (
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" '
        'xmlns:xhtml="http://www.w3.org/1999/xhtml"><url><loc>https://www.example.com/a</loc>'
        '<xhtml:link rel="alternate" hreflang="fr"/></url></urlset>'
    )
    document = lxml.etree.fromstring(urlset)
    document.find(".//{http://www.w3.org/1999/xhtml}link").set("href", href)
    made = links(lxml.etree.tostring(document))
    assert made[0] == "sitemap.xml" and made[1] == "https://www.example.com/a"
    for link in made[2:]:
        assert scheme_a_browser_reads(link) in ("http", "https"), link
    written_so = re.match("https?://", href, re.IGNORECASE) is not None
    assert made[2:] == ([href] if written_so else [])


def test_a_hostile_alternate_is_shown_as_text(sitemaps: Any, client: Client, settings: Any) -> None:
    settings.SITEMAPKIT = {**settings.SITEMAPKIT, "SERVE_BUILT_FILES": False}
    sitemapkit.register(section="hostile")(HostileSitemap)
    page = client.get("/sitemap-hostile-1.xml").content
    assert page.count(b"<xhtml:link") == len(HOSTILE_HREFS) + len(ENCODED_HREFS) + 1
    assert links(page) == ["sitemap.xml", "https://www.example.com/articles/hostile/", SAFE_HREF]


def test_every_response_of_the_sitemaps_is_nosniff(
    site: Any, client: Client, settings: Any, tmp_path: Path
) -> None:
    settings.SITEMAPKIT = {
        **settings.SITEMAPKIT,
        "BUILD_DIR": str(tmp_path),
        "INDEXNOW": {"KEY": "0123456789abcdef"},
    }
    paths = ["/sitemap.xml", "/sitemap.xml.gz", "/sitemap.css", "/sitemap.xsl", "/robots.txt"]
    paths += ["/0123456789abcdef.txt", "/sitemap-testapp-article-3.xml"]
    paths += ["/sitemap-testapp-article-3.xml.gz"]
    sitemapkit.build()
    for built in (False, True):
        settings.SITEMAPKIT = {**settings.SITEMAPKIT, "SERVE_BUILT_FILES": built}
        for path in paths:
            response = client.get(path)
            assert response.status_code == 200, path
            assert response["X-Content-Type-Options"] == "nosniff", path
