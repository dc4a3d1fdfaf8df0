"""Helpers the tests share: fetching, parsing and crawling sitemaps as a crawler would."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from django.test import Client
from lxml import etree

from tests.xsd import validate_index, validate_urlset

NS = {"sm": "http://www.sitemaps.org/schemas/sitemap/0.9"}


@dataclass(frozen=True)
class Url:
    loc: str
    lastmod: str | None
    changefreq: str | None
    priority: str | None


def _text(element: etree._Element, tag: str) -> str | None:
    child = element.find(f"sm:{tag}", NS)
    return None if child is None else child.text


def parse_urlset(content: bytes) -> list[Url]:
    """Validate against sitemap.xsd and return the entries."""
    root = validate_urlset(content)
    return [
        Url(
            _text(u, "loc") or "", _text(u, "lastmod"), _text(u, "changefreq"), _text(u, "priority")
        )
        for u in root.findall("sm:url", NS)
    ]


def parse_index(content: bytes) -> list[tuple[str, str | None]]:
    """Validate against siteindex.xsd and return (loc, lastmod) pairs."""
    root = validate_index(content)
    return [(_text(s, "loc") or "", _text(s, "lastmod")) for s in root.findall("sm:sitemap", NS)]


def path_of(url: str) -> str:
    return urlsplit(url).path


def get_ok(client: Client, path: str) -> bytes:
    response = client.get(path)
    assert response.status_code == 200, (path, response.status_code)
    return bytes(response.content)


def crawl(client: Client, index_path: str = "/sitemap.xml") -> dict[str, list[Url]]:
    """Follow the index to every file; return {file path: entries}."""
    files: dict[str, list[Url]] = {}
    for loc, _lastmod in parse_index(get_ok(client, index_path)):
        files[path_of(loc)] = parse_urlset(get_ok(client, path_of(loc)))
    return files


def all_urls(client: Client) -> list[Url]:
    return [url for urls in crawl(client).values() for url in urls]


def gunzip(content: bytes) -> bytes:
    return gzip.decompress(content)


def run_spider(spider: Path, cwd: Path, **arguments: str) -> list[dict[str, Any]]:
    """Run a Scrapy spider file as ``scrapy runspider`` does; the items it yielded."""
    output = cwd / "items.json"
    options = [part for name, value in arguments.items() for part in ("-a", f"{name}={value}")]
    settings = [
        "LOG_LEVEL=WARNING",
        "TELNETCONSOLE_ENABLED=False",
        "ROBOTSTXT_OBEY=False",
        "HTTPCACHE_ENABLED=False",
        "CONCURRENT_REQUESTS=1",
    ]
    command = [sys.executable, "-m", "scrapy", "runspider", str(spider), *options]
    command += ["-o", str(output), *(part for s in settings for part in ("-s", s))]
    subprocess.run(command, check=True, timeout=120, cwd=cwd)
    items: list[dict[str, Any]] = json.loads(output.read_text())
    return items
