"""Issue #15 "Rich entries": images, videos and news, served and built, always valid."""

from __future__ import annotations

import datetime
import io
import logging
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.test import Client
from django.utils import timezone
from usp.tree import sitemap_from_str

import django_sitemapkit as sitemapkit
from django_sitemapkit._checks import check_sites
from django_sitemapkit._engine.rendering import render_page
from django_sitemapkit._sites import site
from tests.stories import StorySitemap
from tests.testapp.models import Gallery, Photo, Story
from tests.utils import get_ok, parse_index, path_of
from tests.xsd import validate_urlset

pytestmark = pytest.mark.django_db

BASE = "https://www.example.com"
T0 = datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC)
IMAGE = "{http://www.google.com/schemas/sitemap-image/1.1}"
NEWS = "{http://www.google.com/schemas/sitemap-news/0.9}"
VIDEO = "{http://www.google.com/schemas/sitemap-video/1.1}"
SM = "{http://www.sitemaps.org/schemas/sitemap/0.9}"
AWKWARD_IMAGES = [
    "/media/plain.jpg",
    "https://cdn.example.net/a.jpg?w=1&h=2",
    "/media/with space.jpg",
    {"loc": "/media/café-日本.jpg"},
    "//cdn.example.net/schemeless.png",
]
# One clock for the whole module: the served and the built pages must carry the same
# publication dates, however long apart they are rendered.
NOW = timezone.now()


class MediaSitemap(sitemapkit.Sitemap):
    """A list of stories with images, a video and news: every extension in one section."""

    def items(self) -> list[dict[str, Any]]:
        return [{"slug": f"s{n}", "when": NOW - datetime.timedelta(hours=n)} for n in range(3)]

    def location(self, item: Any) -> str:
        return f"/articles/{item['slug']}/"

    def images(self, item: Any) -> list[Any]:
        if item["slug"] == "s1":
            return [f"/media/many/{n}.jpg" for n in range(1001)]
        return AWKWARD_IMAGES

    def videos(self, item: Any) -> list[dict[str, Any]]:
        return [
            {
                "thumbnail_loc": "/thumbs/t.jpg",
                "title": f"Video of {item['slug']} & co",
                "description": "A <video>",
                "player_loc": "https://player.example.net/?v=1&x=2",
                "duration": 90,
                "rating": 9,  # invalid: dropped alone
            },
            {"title": "no thumbnail, no location: dropped"},
        ]

    def news(self, item: Any) -> dict[str, Any]:
        return {
            "publication_name": "The Example Times",
            "publication_language": "en",
            "publication_date": item["when"],
            "title": f"Story {item['slug']}",
        }


class GallerySitemap(sitemapkit.ModelSitemap):
    """Column rows whose images come from a reverse foreign key, one query per chunk."""

    url_name = "article-detail"
    url_kwargs = {"slug": "slug"}
    images_field = "photos__file"


def register(settings: Any, tmp_path: Path) -> None:
    settings.MEDIA_URL = "/media/"
    settings.SITEMAPKIT = {**settings.SITEMAPKIT, "BUILD_DIR": str(tmp_path)}
    sitemapkit.register(section="media")(MediaSitemap)
    sitemapkit.register(Gallery, section="galleries")(GallerySitemap)
    galleries = Gallery.objects.bulk_create(Gallery(slug=f"g{n}", updated_at=T0) for n in range(3))
    Photo.objects.bulk_create(
        Photo(gallery=gallery, file=f"photos/{gallery.slug}-{n}{suffix}")
        for gallery in galleries
        for n, suffix in enumerate([".jpg", " b&w.jpg", "-ü.png"])
    )


def usp_pages(content: bytes) -> list[Any]:
    return list(sitemap_from_str(content.decode()).all_pages())


def test_images_videos_and_news_are_valid_served_and_built(
    sitemaps: Any, client: Client, settings: Any, tmp_path: Path, caplog: Any
) -> None:
    register(settings, tmp_path)
    with caplog.at_level(logging.WARNING, logger="django_sitemapkit"):
        served = {
            path_of(loc): get_ok(client, path_of(loc))
            for loc, _lastmod in parse_index(get_ok(client, "/sitemap.xml"))
        }
    assert set(served) == {"/sitemap-media-1.xml", "/sitemap-galleries-1.xml"}
    for content in served.values():
        validate_urlset(content)

    media = validate_urlset(served["/sitemap-media-1.xml"])
    entries = {url.findtext(f"{SM}loc"): url for url in media.iter(f"{SM}url")}
    first = entries[f"{BASE}/articles/s0/"]
    assert [image.findtext(f"{IMAGE}loc") for image in first.iter(f"{IMAGE}image")] == [
        f"{BASE}/media/plain.jpg",
        "https://cdn.example.net/a.jpg?w=1&h=2",
        f"{BASE}/media/with%20space.jpg",
        f"{BASE}/media/caf%C3%A9-%E6%97%A5%E6%9C%AC.jpg",
        "https://cdn.example.net/schemeless.png",
    ]
    assert len(list(entries[f"{BASE}/articles/s1/"].iter(f"{IMAGE}image"))) == 1000
    [video] = first.iter(f"{VIDEO}video")
    assert video.findtext(f"{VIDEO}title") == "Video of s0 & co"
    assert video.find(f"{VIDEO}rating") is None
    assert first.findtext(f"{NEWS}news/{NEWS}title") == "Story s0"
    assert "rating dropped" in caplog.text and "video dropped" in caplog.text
    assert "1 images past Google's 1,000 per URL" in caplog.text

    # A crawler's parser reads the images and the news stories.
    pages = {page.url: page for page in usp_pages(served["/sitemap-media-1.xml"])}
    assert pages[f"{BASE}/articles/s0/"].news_story.title == "Story s0"
    assert len(pages[f"{BASE}/articles/s0/"].images) == 5
    assert len(pages[f"{BASE}/articles/s1/"].images) == 1000
    gallery_pages = usp_pages(served["/sitemap-galleries-1.xml"])
    assert [image.loc for image in gallery_pages[0].images] == [
        f"{BASE}/media/photos/g0-0.jpg",
        f"{BASE}/media/photos/g0-1%20b%26w.jpg",
        f"{BASE}/media/photos/g0-2-%C3%BC.png",
    ]

    # Built by the command: the same files, and the summary counts the dropped image.
    out = io.StringIO()
    call_command("sitemapkit_build", stdout=out, stderr=io.StringIO())
    assert "(0 skipped, 1 images dropped)" in out.getvalue()
    built = {p.name: p.read_bytes() for p in (tmp_path / "current").glob("sitemap-*.xml")}
    assert built == {path.lstrip("/"): content for path, content in served.items()}
    result = site.build(full=True)
    assert result.images_dropped == 1


def test_related_images_cost_one_query_per_chunk(
    sitemaps: Any, settings: Any, tmp_path: Path, django_assert_max_num_queries: Any
) -> None:
    register(settings, tmp_path)
    with django_assert_max_num_queries(4):
        page = render_page("galleries", 1, base_url=BASE, sitemaps=site)
    assert page.content.count(b"<image:image>") == 9


class BrokenExtraSitemap(sitemapkit.Sitemap):
    namespaces = {"ex": "urn:example"}

    def items(self) -> list[str]:
        return ["good", "malformed", "undeclared", "raises", "also-good"]

    def location(self, item: str) -> str:
        return f"/articles/{item}/"

    def extra_xml(self, item: str) -> tuple[str, ...]:
        if item == "malformed":
            return ("<image:image><image:loc>x",)
        if item == "undeclared":
            return ('<other:thing xmlns:ex="urn:example"/>',)
        if item == "raises":
            raise RuntimeError("boom")
        return ("<image:image><image:loc>https://cdn.example.net/x.jpg</image:loc></image:image>",)

    def images(self, item: str) -> list[str]:
        return ["/a.jpg"]  # declares the image namespace that extra_xml() uses


def test_bad_extra_xml_skips_only_its_item(
    sitemaps: Any, client: Client, settings: Any, tmp_path: Path, caplog: Any
) -> None:
    settings.SITEMAPKIT = {**settings.SITEMAPKIT, "BUILD_DIR": str(tmp_path)}
    sitemapkit.register(section="extra")(BrokenExtraSitemap)
    with caplog.at_level(logging.WARNING, logger="django_sitemapkit"):
        content = get_ok(client, "/sitemap-extra-1.xml")
    root = validate_urlset(content)
    assert [url.findtext(f"{SM}loc") for url in root.iter(f"{SM}url")] == [
        f"{BASE}/articles/good/",
        f"{BASE}/articles/also-good/",
    ]
    assert "skipped 'malformed': extra_xml() returned" in caplog.text
    assert "not well-formed XML" in caplog.text
    assert "unbound prefix" in caplog.text or "declares namespace" in caplog.text
    result = site.build()
    assert result.skipped == 3
    assert (tmp_path / "current" / "sitemap-extra-1.xml").read_bytes() == content


def test_a_news_section_lists_two_days_and_1000_a_file(
    sitemaps: Any, client: Client, django_assert_max_num_queries: Any
) -> None:
    sitemapkit.register(Story, section="stories")(StorySitemap)
    now = timezone.now()
    Story.objects.bulk_create(
        Story(slug=f"new{n}", title=f"New {n}", published_at=now - datetime.timedelta(seconds=n))
        for n in range(1500)
    )
    Story.objects.bulk_create(
        [
            Story(slug="old", title="Old", published_at=now - datetime.timedelta(days=3)),
            Story(slug="undated", title="Undated", published_at=None),
        ]
    )
    index = parse_index(get_ok(client, "/sitemap.xml"))
    assert len(index) == 2
    listed = []
    for loc, _lastmod in index:
        root = validate_urlset(get_ok(client, path_of(loc)))
        urls = list(root.iter(f"{SM}url"))
        assert len(urls) <= 1000
        assert all(url.find(f"{NEWS}news") is not None for url in urls)
        listed += [url.findtext(f"{SM}loc") for url in urls]
    assert len(listed) == len(set(listed)) == 1500
    assert f"{BASE}/articles/old/" not in listed
    assert f"{BASE}/articles/undated/" not in listed


def test_the_python_rule_applies_without_news_date_field(sitemaps: Any) -> None:
    class Unfiltered(StorySitemap):
        news_date_field = None

    sitemapkit.register(Story, section="stories")(Unfiltered)
    now = timezone.now()
    Story.objects.create(slug="new", title="New", published_at=now)
    Story.objects.create(slug="old", title="Old", published_at=now - datetime.timedelta(days=3))
    page = render_page("stories", 1, base_url=BASE, sitemaps=site)
    root = validate_urlset(page.content)
    assert [url.findtext(f"{SM}loc") for url in root.iter(f"{SM}url")] == [f"{BASE}/articles/new/"]
    assert page.skipped == 1
    assert "sitemapkit.W002" in [message.id for message in check_sites()]


class HeavySitemap(sitemapkit.Sitemap):
    def items(self) -> list[int]:
        return list(range(6))

    def location(self, item: int) -> str:
        return f"/articles/heavy{item}/"

    def images(self, item: int) -> list[str]:
        return [f"/media/heavy/{item}/{n:04}.jpg" for n in range(1000)]


def test_the_byte_limit_counts_the_extensions(
    sitemaps: Any, client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    # About 95,000 bytes of images per entry: two entries a file under 200,000 bytes.
    monkeypatch.setattr("django_sitemapkit._engine.entries.MAX_BYTES_PER_FILE", 200_000)
    sitemapkit.register(section="heavy")(HeavySitemap)
    index = parse_index(get_ok(client, "/sitemap.xml"))
    assert len(index) == 3
    for loc, _lastmod in index:
        content = get_ok(client, path_of(loc))
        assert 150_000 < len(content) <= 200_000
        assert content.count(b"<image:image>") == 2000
        validate_urlset(content)


class I18nImagesSitemap(sitemapkit.Sitemap):
    i18n = True
    alternates = True
    languages = ["en", "fr"]

    def items(self) -> list[str]:
        return ["a", "b"]

    def location(self, item: str) -> str:
        return f"/articles/{item}/"

    def images(self, item: str) -> list[str]:
        return [f"/media/{item}.jpg"]


def test_every_language_entry_has_its_images(sitemaps: Any, client: Client) -> None:
    sitemapkit.register(section="i18n-images")(I18nImagesSitemap)
    root = validate_urlset(get_ok(client, "/sitemap-i18n-images-1.xml"))
    urls = list(root.iter(f"{SM}url"))
    assert urls
    assert all(len(list(url.iter(f"{IMAGE}image"))) == 1 for url in urls)
