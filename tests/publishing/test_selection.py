"""Which publisher a process uses, and the views' read of the published set."""

from __future__ import annotations

import datetime
from pathlib import Path
from typing import Any

import pytest

from django_sitemapkit._publishing.base import FileRecord, Manifest, PublishError
from django_sitemapkit._publishing.flatstorage import FlatPublisher
from django_sitemapkit._publishing.localfolder import LocalPublisher
from django_sitemapkit._publishing.selection import build_dir, get_publisher, published_file


def test_build_dir_is_local_and_one_publisher_serves_the_process(
    settings: Any, tmp_path: Path
) -> None:
    settings.SITEMAPKIT = {**settings.SITEMAPKIT, "BUILD_DIR": str(tmp_path)}
    publisher = get_publisher()
    assert isinstance(publisher, LocalPublisher) and publisher.root == tmp_path
    assert get_publisher() is publisher


def test_without_build_dir_it_is_under_base_dir(settings: Any, tmp_path: Path) -> None:
    settings.BASE_DIR = tmp_path
    assert build_dir() == tmp_path / "sitemaps"


def test_without_build_dir_or_base_dir_nothing_is_published(settings: Any) -> None:
    del settings.BASE_DIR
    with pytest.raises(PublishError, match="Set SITEMAPKIT\\['BUILD_DIR'\\]"):
        get_publisher()
    assert published_file("sitemap.xml") is None


@pytest.mark.parametrize(
    ("backend", "kind"),
    [
        ("django.core.files.storage.FileSystemStorage", LocalPublisher),
        ("django.core.files.storage.InMemoryStorage", FlatPublisher),
    ],
)
def test_a_storage_alias(settings: Any, tmp_path: Path, backend: str, kind: type) -> None:
    settings.STORAGES = {
        **settings.STORAGES,
        "sitemaps": {"BACKEND": backend, "OPTIONS": {"location": str(tmp_path)}},
    }
    settings.SITEMAPKIT = {**settings.SITEMAPKIT, "STORAGE": "sitemaps"}
    publisher = get_publisher()
    assert isinstance(publisher, kind)
    assert get_publisher() is publisher


def test_published_file(settings: Any, tmp_path: Path) -> None:
    settings.SITEMAPKIT = {**settings.SITEMAPKIT, "BUILD_DIR": str(tmp_path)}
    assert published_file("sitemap.xml") is None  # nothing built: the views render
    lastmod = "2026-01-01T00:00:00+00:00"
    manifest = Manifest(
        generation="g1",
        built_at="",
        base_url="https://www.example.com",
        gzip=False,
        pages=[FileRecord(section="a", number=1, sha256="", size=0, urls=1, lastmod=lastmod)],
        index_lastmod=lastmod,
    )
    transaction = get_publisher().begin(manifest, None)
    transaction.write("sitemap-a-1.xml", b"<urlset/>")
    transaction.publish({"sitemap.xml": b"<sitemapindex/>"}, manifest)
    moment = datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC)
    assert published_file("sitemap.xml") == (b"<sitemapindex/>", moment)
    assert published_file("sitemap-a-1.xml") == (b"<urlset/>", moment)
    with pytest.raises(FileNotFoundError):
        published_file("sitemap-a-2.xml")  # not in the build
    with pytest.raises(FileNotFoundError):
        published_file("sitemap-a-1.xml.gz")  # in the manifest, but no file
