"""Seen in a browser: headless Chromium shows the index and a page as tables.

The live server serves the files, their stylesheet and nothing else from its
own origin; Chromium applies the XSL (``--dump-dom`` prints the DOM after the
transformation) and screenshots what a person sees. Skipped only where
Chromium is absent outside CI: under ``CI`` a missing browser fails the run.
"""

from __future__ import annotations

import datetime
import os
import shutil
import struct
import subprocess
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import lxml.html
import pytest
from django.test import Client
from pytest_django.live_server_helper import LiveServer

import django_sitemapkit as sitemapkit
from tests.testapp.models import Article

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        CHROMIUM is None and not os.environ.get("CI"),
        reason="no chromium (apt-get install chromium); required under CI",
    ),
]

T0 = datetime.datetime(2026, 1, 1, 12, 30, tzinfo=datetime.UTC)
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run"]


def chromium(*args: str, timeout: float = 60) -> str:
    assert CHROMIUM is not None, "CI requires chromium: apt-get install chromium"
    done = subprocess.run(
        [CHROMIUM, *FLAGS, *args], capture_output=True, text=True, timeout=timeout, check=True
    )
    return done.stdout


def rows(url: str) -> list[list[str]]:
    """The text of each cell of each body row of the table Chromium renders at ``url``."""
    document = lxml.html.fromstring(chromium("--dump-dom", url))
    assert document.xpath("//table"), f"Chromium showed {url} without the XSL (XSLT removed?)"
    return [
        [" ".join(cell.text_content().split()) for cell in row.xpath("td")]
        for row in document.xpath("//table/tbody/tr")
    ]


def png_colours(path: Path) -> set[bytes]:
    """The distinct pixels of an 8-bit RGB(A) PNG, decoded with the standard library."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    offset, idat, header = 8, b"", b""
    while offset < len(data):
        (length,) = struct.unpack(">I", data[offset : offset + 4])
        kind, body = data[offset + 4 : offset + 8], data[offset + 8 : offset + 8 + length]
        header = body if kind == b"IHDR" else header
        idat += body if kind == b"IDAT" else b""
        offset += 12 + length
    width, height, depth, colour = struct.unpack(">IIBB", header[:10])
    assert depth == 8 and colour in (2, 6), "an 8-bit RGB or RGBA screenshot"
    step = 3 if colour == 2 else 4
    raw, stride = zlib.decompress(idat), width * step + 1
    # Only the filter-free bytes matter for "more than one colour": sample
    # rows as stored (filtered), which differ as soon as the image does.
    return {raw[y * stride + 1 : (y + 1) * stride] for y in range(height)}


@pytest.fixture
def server(sitemaps: Any, settings: Any) -> Iterator[str]:
    live = LiveServer("localhost")
    settings.SITEMAPKIT = {
        **settings.SITEMAPKIT,
        "BASE_URL": live.url,
        "SERVE_BUILT_FILES": False,
        "STYLESHEET": True,
    }
    # What projects run: nosniff must not stop the stylesheet.
    settings.MIDDLEWARE = ["django.middleware.security.SecurityMiddleware"]

    @sitemapkit.register(Article)
    class ArticleSitemap(sitemapkit.ModelSitemap):
        limit = 5
        changefreq = "daily"

    Article.objects.bulk_create(Article(slug=f"a{i}", updated_at=T0) for i in range(8))
    Client().get("/sitemap.xml")  # paginate before the threads of the live server
    try:
        yield live.url
    finally:
        live.stop()


def test_the_index_and_a_page_are_tables_in_chromium(server: str, tmp_path: Path) -> None:
    index = rows(f"{server}/sitemap.xml")
    assert index == [
        ["1", f"{server}/sitemap-testapp-article-1.xml", "2026-01-01 12:30:00+00:00"],
        ["2", f"{server}/sitemap-testapp-article-2.xml", "2026-01-01 12:30:00+00:00"],
    ]
    page = rows(f"{server}/sitemap-testapp-article-2.xml")
    assert page == [
        [str(n), f"{server}/articles/a{i}/", "2026-01-01 12:30:00+00:00", "daily", "-", "0"]
        for n, i in enumerate(range(5, 8), start=1)
    ]
    for name in ("sitemap.xml", "sitemap-testapp-article-1.xml"):
        shot = tmp_path / f"{name}.png"
        chromium(f"--screenshot={shot}", "--window-size=1200,800", f"{server}/{name}")
        assert len(png_colours(shot)) > 10, f"{shot} is blank"
