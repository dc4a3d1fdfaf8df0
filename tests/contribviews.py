"""Reading the same project's sitemaps through contrib's views and sitemapkit's, entry by entry."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlsplit

from django.test import Client
from lxml import etree

from tests.xsd import validate_index, validate_urlset

NS = {"sm": "http://www.sitemaps.org/schemas/sitemap/0.9", "xhtml": "http://www.w3.org/1999/xhtml"}
HOST = {"HTTP_HOST": "www.example.com", "secure": True}


@dataclass(frozen=True)
class Entry:
    loc: str
    lastmod: str | None
    changefreq: str | None
    priority: str | None
    alternates: frozenset[tuple[str, str]]


def get(client: Client, url: str, **headers: str) -> bytes:
    parts = urlsplit(url)
    response = client.get(
        parts.path + (f"?{parts.query}" if parts.query else ""), **HOST, **headers
    )
    assert response.status_code == 200, (url, response.status_code)
    return bytes(response.content)


def entries(content: bytes, *, validate: bool = True) -> list[Entry]:
    root = validate_urlset(content) if validate else etree.fromstring(content)
    found = []
    for url in root.findall("sm:url", NS):
        links = url.findall("xhtml:link", NS)
        found.append(
            Entry(
                url.findtext("sm:loc", namespaces=NS) or "",
                url.findtext("sm:lastmod", namespaces=NS),
                url.findtext("sm:changefreq", namespaces=NS),
                url.findtext("sm:priority", namespaces=NS),
                frozenset((link.get("hreflang") or "", link.get("href") or "") for link in links),
            )
        )
    return found


def index_locs(content: bytes) -> list[str]:
    root = validate_index(content)
    return [loc.text or "" for loc in root.findall("sm:sitemap/sm:loc", NS)]


def sitemapkit_files(client: Client, section: str) -> list[list[Entry]]:
    """Each file of ``section`` in sitemapkit's index, in order: its entries."""
    prefix = f"/sitemap-{section}-"
    return [
        entries(get(client, loc))
        for loc in index_locs(get(client, "/sitemap.xml"))
        if urlsplit(loc).path.startswith(prefix)
    ]


def contrib_files(client: Client, section: str) -> list[list[Entry]]:
    """Each file of ``section`` in contrib's index (``/contrib/sitemap.xml``): its entries.

    contrib's files are parsed, not validated: they are the reference the
    comparison is made against, not what is under test.
    """
    prefix = f"/contrib/sitemap-{section}.xml"
    return [
        entries(get(client, loc), validate=False)
        for loc in index_locs(get(client, "/contrib/sitemap.xml"))
        if urlsplit(loc).path == prefix
    ]


def by_loc(files: list[list[Entry]]) -> dict[str, Entry]:
    return {entry.loc: entry for file in files for entry in file}


def same_day(entry: Entry) -> Entry:
    """``entry`` with its lastmod cut to the date, as contrib's template writes it (``Y-m-d``)."""
    lastmod = None if entry.lastmod is None else entry.lastmod[:10]
    return Entry(entry.loc, lastmod, entry.changefreq, entry.priority, entry.alternates)
