"""What ``/sitemap.xml`` holds while no section has a URL: a ``<urlset>`` of the home page.

robots.txt names ``/sitemap.xml`` from the start, and a 404 there is an error
in Search Console. An empty ``<sitemapindex>`` or ``<urlset>`` is not valid
(both schemas require one entry: ``minOccurs`` defaults to 1), so an empty
file would fail validation. The site's home page (its root under the script
prefix) is the one URL every site has: the file is valid, a sitemap Search
Console takes at any URL, and lists nothing that is not the site's.
"""

from __future__ import annotations

from django.urls import get_script_prefix

from django_sitemapkit.protocol.writer import UrlsetWriter, escape


def empty_site_pieces(base_url: str, stylesheet: str | None) -> list[bytes]:
    """The file's pieces (head, the home page's entry, tail), undated."""
    writer = UrlsetWriter(stylesheet=stylesheet)
    home = base_url + get_script_prefix()
    writer.add_xml(f"<url><loc>{escape(home)}</loc></url>\n")
    return writer.pieces()
