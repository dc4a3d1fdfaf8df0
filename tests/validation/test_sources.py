from __future__ import annotations

import gzip
import http.server
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from django_sitemapkit.validation.findings import Report
from django_sitemapkit.validation.rules import validate_set
from django_sitemapkit.validation.sources import (
    FetchError,
    FolderSource,
    HttpSource,
    directory,
    fetch,
    sitemap_lines,
)

NS = "http://www.sitemaps.org/schemas/sitemap/0.9"


class Handler(http.server.BaseHTTPRequestHandler):
    files: dict[str, tuple[int, bytes]] = {}

    def do_GET(self) -> None:
        status, body = self.files.get(self.path, (404, b"not found"))
        self.send_response(status)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def http_site() -> Iterator[tuple[str, dict[str, tuple[int, bytes]]]]:
    files: dict[str, tuple[int, bytes]] = {}
    handler = type("H", (Handler,), {"files": files})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", files
    finally:
        server.shutdown()
        server.server_close()


def test_sitemap_lines() -> None:
    robots = b"\xef\xbb\xbfUser-agent: *\nSITEMAP : https://a.example/s.xml  # ours\r\nsitemap:\nDisallow: /x\n"
    assert sitemap_lines(robots) == ["https://a.example/s.xml"]


def test_directory() -> None:
    assert directory("https://a.example/blog/sitemap.xml") == "https://a.example/blog/"
    assert directory("https://a.example") == "https://a.example/"


def test_a_folder_opens_only_its_own_files(tmp_path: Path) -> None:
    (tmp_path / "site").mkdir()
    (tmp_path / "secret.xml").write_bytes(b"x")
    (tmp_path / "site" / "a.xml").write_bytes(b"a")
    source = FolderSource(tmp_path / "site", "https://a.example/sitemap.xml")
    stream = source.open("https://a.example/a.xml")
    assert stream is not None and stream.read() == b"a"
    stream.close()
    assert source.open("https://a.example/../secret.xml") is None
    assert source.open("https://b.example/a.xml") is None
    assert source.robots() is None


def test_http_errors(http_site: tuple[str, dict[str, tuple[int, bytes]]]) -> None:
    base, files = http_site
    page = f'<urlset xmlns="{NS}"><url><loc>{base}/a</loc></url></urlset>'.encode()
    index = f'<sitemapindex xmlns="{NS}"><sitemap><loc>{base}/s1.xml</loc></sitemap><sitemap><loc>{base}/s2.xml</loc></sitemap></sitemapindex>'
    files.update(
        {
            "/sitemap.xml": (200, index.encode()),
            "/s1.xml": (500, b"oops"),
            "/s2.xml": (200, page),
            "/s2.xml.gz": (200, gzip.compress(page)),
            "/robots.txt": (200, f"Sitemap: {base}/sitemap.xml\n".encode()),
        }
    )
    assert fetch(base + "/nothing") is None
    with pytest.raises(FetchError, match="HTTP 500"):
        fetch(base + "/s1.xml")
    with pytest.raises(FetchError, match="not an http"):
        fetch("file:///etc/passwd")
    report = Report("live")
    validate_set(HttpSource(base + "/sitemap.xml"), report, None)
    assert [f.line() for f in report.finish().findings] == [
        f"{base}/s1.xml: [fetch] cannot read {base}/s1.xml: HTTP 500 Internal Server Error"
    ]
    assert (report.files, report.urls) == (2, 1)


def test_a_live_gz_twin_that_is_not_gzip(
    http_site: tuple[str, dict[str, tuple[int, bytes]]],
) -> None:
    base, files = http_site
    page = f'<urlset xmlns="{NS}"><url><loc>{base}/a</loc></url></urlset>'.encode()
    files.update({"/sitemap.xml": (200, page), "/sitemap.xml.gz": (200, page)})
    report = Report("live")
    validate_set(HttpSource(base + "/sitemap.xml"), report, None)
    lines = [f.line() for f in report.finish().findings]
    assert len(lines) == 2
    assert lines[0].startswith(f"{base}/sitemap.xml.gz: [gzip] not a gzip file: ")
    assert (
        lines[1]
        == f"{base}/robots.txt: [robots] does not exist, so crawlers are not told about {base}/sitemap.xml"
    )
