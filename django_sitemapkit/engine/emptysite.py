"""What ``/sitemap.xml`` holds while no section has a URL: a ``<urlset>`` of the home page.

robots.txt names ``/sitemap.xml`` from the start, and a 404 there is an error
in Search Console. An empty ``<sitemapindex>`` or ``<urlset>`` is not valid
(both schemas require one entry: ``minOccurs`` defaults to 1), so an empty
file would fail validation. The site's home page (its root under the script
prefix) is the one URL every site has: the file is valid, a sitemap Search
Console takes at any URL, and lists nothing that is not the site's. Under a
directory (``path("blog/", sitemapkit.site.urls)``) a sitemap may list only
URLs under it, so the file lists that directory's root instead.
"""

from __future__ import annotations

from django_sitemapkit.protocol.writer import UrlsetWriter, url_element


def empty_site_pieces(home: str, stylesheet: str | None) -> list[bytes]:
    """The file (one piece), listing ``home``, undated."""
    writer = UrlsetWriter(stylesheet=stylesheet)
    writer.add_xml(url_element(home))
    return [writer.content()]
