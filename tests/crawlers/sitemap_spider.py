"""Scrapy's SitemapSpider, run by tests/test_crawlers.py with `scrapy runspider`."""

from typing import Any

from scrapy.spiders import SitemapSpider


class SiteSpider(SitemapSpider):
    name = "site"

    def __init__(self, home: str, **kwargs: Any) -> None:
        # From the home page to robots.txt, as a crawler discovering the site does.
        self.sitemap_urls = [home.rstrip("/") + "/robots.txt"]
        super().__init__(**kwargs)

    def parse(self, response: Any) -> Any:
        yield {"url": response.url}
