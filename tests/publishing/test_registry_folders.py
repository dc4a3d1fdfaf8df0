"""Two SitemapSites, at / and /news/ (tests/urls_two_sites.py): each builds its own set, serves it,
and never touches the other's, in a local folder and on S3 (moto)."""

from __future__ import annotations

import gc
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from django.test import Client

import django_sitemapkit as sitemapkit
from django_sitemapkit._checks import check_sites
from django_sitemapkit._sites import SitemapSite
from tests.s3 import use_new_bucket
from tests.testapp.models import Tag
from tests.utils import get_ok, parse_index, path_of

pytestmark = [pytest.mark.django_db, pytest.mark.urls("tests.urls_two_sites")]

BASE = "https://www.example.com"
# What the list sections list: changed by the tests between builds.
STORIES: list[str] = []
PAGES: list[str] = []


class StoriesSitemap(sitemapkit.Sitemap):
    def items(self) -> list[str]:
        return list(STORIES)

    def location(self, item: str) -> str:
        return f"/news/{item}/"


class PagesSitemap(sitemapkit.Sitemap):
    def items(self) -> list[str]:
        return list(PAGES)

    def location(self, item: str) -> str:
        return f"/tags/{item}/"


@pytest.fixture
def news(sitemaps: SitemapSite) -> Iterator[SitemapSite]:
    """Default site: Tag rows and a list section; the news site: a list section of its own."""
    from tests.urls_two_sites import news as news_site

    sitemaps.register(Tag)
    sitemaps.register(section="pages")(PagesSitemap)
    news_site.register(section="stories")(StoriesSitemap)
    STORIES[:] = ["one", "two"]
    PAGES[:] = ["p1"]
    Tag.objects.bulk_create(Tag(slug=f"t{i}") for i in range(3))
    try:
        yield news_site
    finally:
        news_site._registry.clear()
        news_site.duplicate_sections.clear()


@dataclass
class Storage:
    """Every file the storage holds ({key: bytes}), and a published file as a web server reads it."""

    files: Callable[[], dict[str, bytes]]
    # (folder of the set, name of the file in it) -> its bytes
    read: Callable[[str, str], bytes]


def folder_files(root: Path) -> dict[str, bytes]:
    found: dict[str, bytes] = {}
    for directory, dirs, names in os.walk(root):
        for name in names + [d for d in dirs if (Path(directory) / d).is_symlink()]:
            path = Path(directory) / name
            key = path.relative_to(root).as_posix()
            found[key] = (
                f"-> {os.readlink(path)}".encode() if path.is_symlink() else path.read_bytes()
            )
    return found


@pytest.fixture(params=["folder", "s3"])
def storage(request: pytest.FixtureRequest, settings: Any, tmp_path: Path) -> Storage:
    if request.param == "folder":
        settings.SITEMAPKIT = {**settings.SITEMAPKIT, "BUILD_DIR": str(tmp_path)}
        return Storage(
            lambda: folder_files(tmp_path),
            lambda folder, name: (tmp_path / folder / "current" / name).read_bytes(),
        )
    client, bucket = use_new_bucket(settings, request.getfixturevalue("s3_endpoint"))

    def objects() -> dict[str, bytes]:
        listing = client.list_objects_v2(Bucket=bucket).get("Contents", [])
        return {
            item["Key"]: client.get_object(Bucket=bucket, Key=item["Key"])["Body"].read()
            for item in listing
        }

    def read(folder: str, name: str) -> bytes:
        return bytes(client.get_object(Bucket=bucket, Key=folder + name)["Body"].read())

    return Storage(objects, read)


def split(files: dict[str, bytes]) -> tuple[dict[str, bytes], dict[str, bytes]]:
    """The default site's files and the news site's (its folder, news/)."""
    news = {key: data for key, data in files.items() if key.startswith("news/")}
    return {key: data for key, data in files.items() if key not in news}, news


def served(client: Client, prefix: str) -> dict[str, bytes]:
    """Every file a crawler fetches from the index at ``prefix``: index, pages, and their .gz."""
    index = get_ok(client, f"{prefix}sitemap.xml")
    paths = [f"{prefix}sitemap.xml"] + [path_of(loc) for loc, _ in parse_index(index)]
    return {p + gz: get_ok(client, p + gz) for p in paths for gz in ("", ".gz")}


def assert_serves_its_build(client: Client, storage: Storage, prefix: str) -> dict[str, bytes]:
    files = served(client, prefix)
    for path, data in files.items():
        assert storage.read(prefix.lstrip("/"), path.removeprefix(prefix)) == data, path
    return files


def test_each_site_builds_and_serves_its_own_set(
    news: SitemapSite, storage: Storage, client: Client
) -> None:
    sitemapkit.build()
    default_files, news_files = split(storage.files())
    assert news_files == {}
    default_served = assert_serves_its_build(client, storage, "/")
    # Not built yet: the news site renders, from its own sections only.
    news_index = parse_index(get_ok(client, "/news/sitemap.xml"))
    assert [loc for loc, _ in news_index] == [f"{BASE}/news/sitemap-stories-1.xml"]

    news.build()
    after_default, news_files = split(storage.files())
    assert after_default == default_files
    assert served(client, "/") == default_served
    news_served = assert_serves_its_build(client, storage, "/news/")
    assert news_files  # in news/, beside the default site's set
    assert [loc for loc, _ in parse_index(news_served["/news/sitemap.xml"])] == [
        f"{BASE}/news/sitemap-stories-1.xml"
    ]

    # Served from the build, not rendered: a list section's new items show after its build only.
    STORIES[:] = ["three"]
    PAGES[:] = ["p1", "p2"]
    Tag.objects.create(slug="t9")
    assert served(client, "/news/") == news_served

    # The other order: the news site first, then the default one.
    news.build()
    news_files_2 = split(storage.files())[1]
    assert split(storage.files())[0] == default_files
    assert served(client, "/") == default_served
    news_served_2 = assert_serves_its_build(client, storage, "/news/")
    assert b"/news/three/" in news_served_2["/news/sitemap-stories-1.xml"]

    sitemapkit.build()
    default_files_2, news_after = split(storage.files())
    assert news_after == news_files_2
    assert served(client, "/news/") == news_served_2
    default_served_2 = assert_serves_its_build(client, storage, "/")
    assert default_files_2 != default_files
    assert b"/tags/p2/" in default_served_2["/sitemap-pages-1.xml"]
    assert b"/tags/t9/" in default_served_2["/sitemap-testapp-tag-1.xml"]


@pytest.mark.parametrize("name", ["generations", "current", "Bad Name", "shop"])
def test_a_site_whose_name_cannot_be_its_folder(
    name: str, sitemaps: SitemapSite, settings: Any, tmp_path: Path
) -> None:
    settings.SITEMAPKIT = {
        "BUILD_DIR": str(tmp_path),
        "SITES": {"shop": {"BASE_URL": "https://shop.example.com"}},
    }
    other = SitemapSite(name)
    other.register(section="stories")(StoriesSitemap)
    STORIES[:] = ["one"]
    with pytest.raises(sitemapkit.PublishError, match=f"SitemapSite\\({name!r}\\)"):
        other.build(site="shop")
    assert list(tmp_path.iterdir()) == []
    [error] = [m for m in check_sites() if m.id == "sitemapkit.E025"]
    assert f"SitemapSite({name!r})" in error.msg
    del other
    gc.collect()
    assert "sitemapkit.E025" not in [m.id for m in check_sites()]


def test_under_sites_each_site_of_each_registry_has_its_folder(
    news: SitemapSite, settings: Any, tmp_path: Path
) -> None:
    settings.SITEMAPKIT = {
        "BUILD_DIR": str(tmp_path),
        "SITES": {"shop": {"BASE_URL": "https://shop.example.com"}},
    }
    sitemapkit.build(site="shop")
    default_files = folder_files(tmp_path)
    news.build(site="shop")
    files = folder_files(tmp_path)
    assert {k: v for k, v in files.items() if not k.startswith("news/")} == default_files
    index = (tmp_path / "news" / "shop" / "current" / "sitemap.xml").read_bytes()
    assert [loc for loc, _ in parse_index(index)] == [
        "https://shop.example.com/news/sitemap-stories-1.xml"
    ]
    assert (tmp_path / "shop" / "current" / "sitemap-pages-1.xml").exists()
