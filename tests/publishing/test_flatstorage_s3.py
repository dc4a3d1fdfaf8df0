"""FlatPublisher on S3 through django-storages, against moto's server on 127.0.0.1."""

from __future__ import annotations

import datetime
import gzip
from typing import Any

import pytest

import django_sitemapkit as sitemapkit
from django_sitemapkit._engine import sections
from django_sitemapkit._engine.rendering import render_page
from django_sitemapkit._publishing.base import BuildLocked, PublishError
from django_sitemapkit._publishing.flatstorage import FlatPublisher
from django_sitemapkit._publishing.selection import get_publisher
from django_sitemapkit._sites import site as default_site
from tests.s3 import use_new_bucket
from tests.testapp.models import Article
from tests.utils import parse_index, parse_urlset, path_of

pytestmark = pytest.mark.django_db

T0 = datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC)
# An edit as the ORM makes it: updated_at moves with the row.
EDITED = datetime.datetime(2026, 6, 1, tzinfo=datetime.UTC)


@pytest.fixture
def bucket(s3_endpoint: str, settings: Any, sitemaps: Any) -> Any:
    client, name = use_new_bucket(settings, s3_endpoint)

    @sitemapkit.register(Article)
    class ArticleSitemap(sitemapkit.ModelSitemap):
        limit = 10

    Article.objects.bulk_create(
        Article(slug=f"a{i}", updated_at=T0 + datetime.timedelta(hours=i)) for i in range(25)
    )
    return client, name


def objects(client: Any, bucket: str) -> dict[str, bytes]:
    listing = client.list_objects_v2(Bucket=bucket).get("Contents", [])
    return {
        item["Key"]: client.get_object(Bucket=bucket, Key=item["Key"])["Body"].read()
        for item in listing
    }


def test_build_to_s3(bucket: Any, client: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    s3, name = bucket
    publisher = get_publisher()
    assert isinstance(publisher, FlatPublisher)
    order: list[str] = []
    real_save = publisher.storage.save

    def recording_save(key: str, content: Any, *args: Any, **kwargs: Any) -> str:
        order.append(key)
        return str(real_save(key, content, *args, **kwargs))

    monkeypatch.setattr(publisher.storage, "save", recording_save)
    default_site.builder().run()
    # The index and the stylesheet beside it after every page, the manifest last of all.
    assert order[-4:] == [
        "sitemap.xml",
        "sitemap.xml.gz",
        "sitemap.css",
        "sitemapkit-manifest.json",
    ]
    stored = objects(s3, name)
    index = parse_index(stored["sitemap.xml"])
    assert [path_of(loc) for loc, _ in index] == [
        f"/sitemap-testapp-article-{n}.xml" for n in (1, 2, 3)
    ]
    for loc, _ in index:
        key = path_of(loc).lstrip("/")
        assert len(parse_urlset(stored[key])) in (10, 5)
        assert gzip.decompress(stored[key + ".gz"]) == stored[key]

    # The views serve the objects.
    assert (
        client.get("/sitemap-testapp-article-2.xml").content
        == stored["sitemap-testapp-article-2.xml"]
    )

    # Incremental: one edit rewrites one page and the index.
    order.clear()
    Article.objects.filter(slug="a12").update(updated_at=T0 + datetime.timedelta(days=5))
    default_site.builder().run()
    assert order == [
        ".sitemapkit-unfinished",
        "sitemap-testapp-article-2.xml",
        "sitemap-testapp-article-2.xml.gz",
        "sitemap.xml",
        "sitemap.xml.gz",
        "sitemapkit-manifest.json",
    ]

    # Vanished pages are deleted after the new index is published.
    Article.objects.filter(slug__in=[f"a{i}" for i in range(20, 25)]).delete()
    default_site.builder().run()
    stored = objects(s3, name)
    assert "sitemap-testapp-article-3.xml" not in stored
    assert "sitemap-testapp-article-3.xml.gz" not in stored
    names = {path_of(loc).lstrip("/") for loc, _ in parse_index(stored["sitemap.xml"])}
    assert names <= set(stored)


def test_storage_that_does_not_overwrite_is_refused(bucket: Any, settings: Any) -> None:
    settings.STORAGES["sitemaps"]["OPTIONS"]["file_overwrite"] = False
    settings.STORAGES = dict(settings.STORAGES)
    default_site.builder().run()

    Article.objects.filter(slug="a0").update(slug="changed", updated_at=EDITED)
    with pytest.raises(PublishError, match="does not overwrite files"):
        default_site.builder().run()


def test_one_build_at_a_time_on_s3(bucket: Any) -> None:
    publisher = get_publisher()
    with (
        publisher.lock(),
        pytest.raises(BuildLocked, match="Another sitemapkit_build is publishing"),
    ):
        default_site.builder().run()
    # Released: the next build runs.
    assert default_site.builder().run().published


def test_an_edit_rewrites_its_page_on_s3_and_keeps_the_others(
    bucket: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    client, name = bucket
    section = sitemapkit.site.get("testapp-article")
    assert section is not None
    type(section).limit = 1000
    Article.objects.bulk_create(
        Article(slug=f"b{i}", updated_at=T0 + datetime.timedelta(minutes=i)) for i in range(2500)
    )
    default_site.builder().run()
    before = objects(client, name)
    rendered: list[int] = []
    real = sections.render_sitemap_page

    def spy(sitemap: Any, number: int, context: Any) -> Any:
        rendered.append(number)
        return real(sitemap, number, context)

    monkeypatch.setattr(sections, "render_sitemap_page", spy)
    article = Article.objects.order_by("pk")[1500]
    article.updated_at = EDITED
    article.save()
    result = default_site.builder().run()
    assert rendered == [2]
    assert {n.removesuffix(".gz") for n in result.written} == {
        "sitemap-testapp-article-2.xml",
        "sitemap.xml",
    }
    monkeypatch.undo()
    files = objects(client, name)
    fresh = render_page(
        "testapp-article", 2, base_url="https://www.example.com", sitemaps=default_site
    )
    assert files["sitemap-testapp-article-2.xml"] == fresh.content
    assert files["sitemap-testapp-article-2.xml.gz"] == fresh.gzipped().content
    assert b"2026-06-01T00:00:00+00:00" in fresh.content
    for kept in ("sitemap-testapp-article-1.xml", "sitemap-testapp-article-3.xml.gz"):
        assert files[kept] == before[kept]


def test_a_manifest_rewritten_within_its_second_is_read_again(bucket: Any) -> None:
    """S3 keeps whole seconds: a cached manifest is not taken for the one a build just wrote."""
    publisher = get_publisher()
    default_site.builder().run()
    first = publisher.manifest()
    Article.objects.filter(slug="a0").update(updated_at=EDITED)
    default_site.builder().run()  # most often within the same second as the first
    second = publisher.manifest()
    assert first is not None and second is not None
    assert second.generation != first.generation
    assert second.previous_generation == first.generation
