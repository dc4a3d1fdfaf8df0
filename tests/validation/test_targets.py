from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.core.management.base import CommandError

from django_sitemapkit._boundedhttp import Deadline
from django_sitemapkit._validation.sources import (
    FileSource,
    HttpSource,
    is_url,
    live_sources,
    path_source,
    published_sources,
)
from tests.validation.servers import Site


def test_is_url() -> None:
    assert is_url("https://a.example/sitemap.xml")
    assert not is_url("/srv/sitemaps")
    assert not is_url("ftp://a.example/")


def test_a_live_site_from_its_robots_txt(site: Site) -> None:
    base, deadline = site.url, Deadline(30)
    with pytest.raises(CommandError, match="does not exist"):
        live_sources(base, deadline)
    site.serve("/robots.txt", b"User-agent: *\n")
    with pytest.raises(CommandError, match="has no Sitemap line"):
        live_sources(base + "/", deadline)
    robots = f"Sitemap: {base}/a.xml\nSitemap: {base}/b.xml\nSitemap: {base}/a.xml\n".encode()
    site.serve("/robots.txt", robots)
    sources = live_sources(base + "/robots.txt", deadline)
    assert [s.index_url for s in sources] == [f"{base}/a.xml", f"{base}/b.xml"]
    assert all(isinstance(s, HttpSource) for s in sources)
    # Read once for every index it names.
    assert [s.robots() for s in sources] == [(f"{base}/robots.txt", robots)] * 2
    assert site.requests.count("/robots.txt") == 3
    (single,) = live_sources(base + "/news.xml", deadline)
    assert single.index_url == base + "/news.xml"


def test_a_path(settings: Any, tmp_path: Path) -> None:
    settings.SITEMAPKIT = {"BASE_URL": "https://www.example.com/"}
    with pytest.raises(CommandError, match="does not exist"):
        path_source(tmp_path / "none", None, None)
    source = path_source(tmp_path, "https://other.example", "/r.txt")
    assert isinstance(source, FileSource)
    assert (source.index_url, source.robots_path) == ("https://other.example/sitemap.xml", "/r.txt")
    assert path_source(tmp_path, None, None).index_url == "https://www.example.com/sitemap.xml"
    settings.SITEMAPKIT = {}
    with pytest.raises(CommandError, match="pass --base-url"):
        path_source(tmp_path, None, None)


def test_nothing_published(settings: Any, tmp_path: Path) -> None:
    settings.SITEMAPKIT = {**settings.SITEMAPKIT, "BUILD_DIR": str(tmp_path)}
    with pytest.raises(CommandError, match="Nothing is published in"):
        published_sources(None, None, None)
    with pytest.raises(CommandError, match="no storage 'nope'"):
        published_sources("nope", None, None)
    with pytest.raises(CommandError, match="needs SITEMAPKIT\\['SITES'\\]"):
        published_sources(None, ["shop"], None)
