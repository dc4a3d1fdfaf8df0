from __future__ import annotations

from pathlib import Path

from django_sitemapkit._validation.sources import (
    ROBOTS_MAX_BYTES,
    FileSource,
    directory,
    folder_files,
    origin,
    sitemap_lines,
)


def folder(root: Path, index_url: str, robots: str | None = None) -> FileSource:
    return FileSource(index_url, folder_files(root), str(root), robots)


def test_sitemap_lines() -> None:
    robots = b"\xef\xbb\xbfUser-agent: *\nSITEMAP : https://a.example/s.xml  # ours\r\nsitemap:\nDisallow: /x\n"
    assert sitemap_lines(robots) == ["https://a.example/s.xml"]


def test_directory() -> None:
    assert directory("https://a.example/blog/sitemap.xml") == "https://a.example/blog/"
    assert directory("https://a.example") == "https://a.example/"


def test_origin() -> None:
    assert origin("https://A.Example:8443/x?y") == ("https", "a.example:8443")
    assert origin("http://a.example/") != origin("https://a.example/")


def test_a_folder_opens_only_its_own_files(tmp_path: Path) -> None:
    (tmp_path / "site").mkdir()
    (tmp_path / "secret.xml").write_bytes(b"x")
    (tmp_path / "site" / "a.xml").write_bytes(b"a")
    source = folder(tmp_path / "site", "https://a.example/sitemap.xml")
    stream = source.open("https://a.example/a.xml")
    assert stream is not None and stream.read() == b"a"
    stream.close()
    assert source.open("https://a.example/../secret.xml") is None
    assert source.open("https://b.example/a.xml") is None
    assert source.robots() is None


def test_a_local_robots_txt_is_read_as_crawlers_read_it(tmp_path: Path) -> None:
    robots = tmp_path / "robots.txt"
    late = b"Sitemap: https://a.example/late.xml\n"
    robots.write_bytes(b"Sitemap: https://a.example/s.xml\n" + b"#" * ROBOTS_MAX_BYTES + late)
    found = folder(tmp_path, "https://a.example/s.xml", str(robots)).robots()
    assert found is not None and found[1] is not None
    assert len(found[1]) == ROBOTS_MAX_BYTES
    assert sitemap_lines(found[1]) == ["https://a.example/s.xml"]
