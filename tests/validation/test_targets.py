from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from django_sitemapkit.validation.sources import FolderSource, HttpSource
from django_sitemapkit.validation.targets import (
    TargetError,
    is_url,
    live_sources,
    path_source,
    published_sources,
)
from tests.validation.test_sources import http_site  # noqa: F401 -- the fixture


def test_is_url() -> None:
    assert is_url("https://a.example/sitemap.xml")
    assert not is_url("/srv/sitemaps")
    assert not is_url("ftp://a.example/")


def test_a_live_site_from_its_robots_txt(http_site: Any) -> None:  # noqa: F811
    base, files = http_site
    with pytest.raises(TargetError, match="does not exist"):
        live_sources(base)
    files["/robots.txt"] = (200, b"User-agent: *\n")
    with pytest.raises(TargetError, match="has no Sitemap line"):
        live_sources(base + "/")
    files["/robots.txt"] = (
        200,
        f"Sitemap: {base}/a.xml\nSitemap: {base}/b.xml\nSitemap: {base}/a.xml\n".encode(),
    )
    sources = live_sources(base + "/robots.txt")
    assert [s.index_url for s in sources] == [f"{base}/a.xml", f"{base}/b.xml"]
    assert all(isinstance(s, HttpSource) and s.robots_url == f"{base}/robots.txt" for s in sources)
    (single,) = live_sources(base + "/news.xml")
    assert single.index_url == base + "/news.xml"


def test_a_path(settings: Any, tmp_path: Path) -> None:
    settings.SITEMAPKIT = {"BASE_URL": "https://www.example.com/"}
    with pytest.raises(TargetError, match="does not exist"):
        path_source(tmp_path / "none", None, None)
    source = path_source(tmp_path, "https://other.example", "/r.txt")
    assert isinstance(source, FolderSource)
    assert (source.index_url, source.robots_path) == ("https://other.example/sitemap.xml", "/r.txt")
    assert path_source(tmp_path, None, None).index_url == "https://www.example.com/sitemap.xml"
    settings.SITEMAPKIT = {}
    with pytest.raises(TargetError, match="pass --base-url"):
        path_source(tmp_path, None, None)


def test_nothing_published(settings: Any, tmp_path: Path) -> None:
    settings.SITEMAPKIT = {**settings.SITEMAPKIT, "BUILD_DIR": str(tmp_path)}
    with pytest.raises(TargetError, match="Nothing is published in"):
        published_sources(None, None, None)
    with pytest.raises(TargetError, match="no storage 'nope'"):
        published_sources("nope", None, None)
    with pytest.raises(TargetError, match="needs SITEMAPKIT\\['SITES'\\]"):
        published_sources(None, ["shop"], None)
