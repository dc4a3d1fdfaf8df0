"""The local publisher's reads of published files (builds and publishing are in test_build)."""

from __future__ import annotations

from pathlib import Path

import pytest

from django_sitemapkit.publishing.publishers import GENERATIONS_DIR, LocalPublisher, Manifest


@pytest.fixture
def generation(tmp_path: Path) -> tuple[LocalPublisher, Manifest]:
    folder = tmp_path / GENERATIONS_DIR / "g1"
    folder.mkdir(parents=True)
    (folder / "sitemap-a-1.xml").write_bytes(b"<urlset>\xc3\xa9</urlset>\n")
    (folder / "empty.xml").write_bytes(b"")
    manifest = Manifest(generation="g1", built_at="", base_url="https://www.example.com", gzip=True)
    return LocalPublisher(tmp_path), manifest


def test_read_view_maps_the_published_file_without_copying(
    generation: tuple[LocalPublisher, Manifest],
) -> None:
    publisher, manifest = generation
    view = publisher.read_view(manifest, "sitemap-a-1.xml")
    assert isinstance(view, memoryview) and view.readonly
    assert view == publisher.read(manifest, "sitemap-a-1.xml") == b"<urlset>\xc3\xa9</urlset>\n"
    assert view[: len(b"<urlset>")] == b"<urlset>"


def test_read_view_of_an_empty_or_missing_file(
    generation: tuple[LocalPublisher, Manifest],
) -> None:
    publisher, manifest = generation
    assert publisher.read_view(manifest, "empty.xml") == b""
    assert publisher.read_view(manifest, "sitemap-a-2.xml") is None
