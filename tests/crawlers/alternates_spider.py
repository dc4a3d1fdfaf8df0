"""Scrapy's SitemapSpider following hreflang alternates, run by tests/test_crawlers_alternates.py.

``sitemap_alternate_links = True`` makes the spider request every
``<xhtml:link rel="alternate" href>`` of an entry besides its ``<loc>``.
Redirects are not followed (``x-default`` URLs answer with LocaleMiddleware's
redirect), so each item is exactly one URL the spider requested, with the
status and ``Location`` it got.
"""

from typing import Any

from scrapy.spiders import SitemapSpider


class AlternatesSpider(SitemapSpider):
    name = "alternates"
    sitemap_alternate_links = True
    handle_httpstatus_list = [301, 302]
    custom_settings = {"REDIRECT_ENABLED": False}

    def __init__(self, home: str, follow: str = "", **kwargs: Any) -> None:
        # From the home page to robots.txt, as a crawler discovering the site does.
        self.sitemap_urls = [home.rstrip("/") + "/robots.txt"]
        # Which files of the index to read (a regex searched in their URLs).
        self.sitemap_follow = [follow]
        super().__init__(**kwargs)

    def parse(self, response: Any) -> Any:
        location = response.headers.get("Location")
        yield {
            "url": response.url,
            "status": response.status,
            "location": location.decode() if location else None,
        }
