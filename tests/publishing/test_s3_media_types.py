"""Objects on S3 (moto) carry their own media type and no Content-Encoding, so that every HTTP
client receives a ``.xml.gz`` as the gzip file it is, never as XML it decoded on the way."""

from __future__ import annotations

import gzip
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
import requests
from django.core.files.base import ContentFile
from django.core.files.storage import storages

import django_sitemapkit as sitemapkit
from django_sitemapkit._sites import SitemapSite
from tests.s3 import use_new_bucket
from tests.testapp.models import Tag

pytestmark = [pytest.mark.django_db, pytest.mark.urls("tests.urls_two_sites")]


class StoriesSitemap(sitemapkit.Sitemap):
    def items(self) -> list[str]:
        return ["one", "two"]

    def location(self, item: str) -> str:
        return f"/news/{item}/"


@pytest.fixture
def news(sitemaps: SitemapSite) -> Iterator[SitemapSite]:
    from tests.urls_two_sites import news as news_site

    sitemaps.register(Tag)
    news_site.register(section="stories")(StoriesSitemap)
    Tag.objects.bulk_create(Tag(slug=f"t{i}") for i in range(3))
    try:
        yield news_site
    finally:
        news_site._registry.clear()


def test_every_object_has_its_type_and_no_encoding(
    news: SitemapSite, s3_endpoint: str, settings: Any
) -> None:
    client, bucket = use_new_bucket(settings, s3_endpoint)
    sitemapkit.build()
    news.build()  # in news/: a prefix of the same storage
    keys = [item["Key"] for item in client.list_objects_v2(Bucket=bucket)["Contents"]]
    assert {"sitemap.xml.gz", "news/sitemap.xml.gz", "sitemap-testapp-tag-1.xml.gz"} <= set(keys)
    types = {}
    for key in keys:
        head = client.head_object(Bucket=bucket, Key=key)
        assert "ContentEncoding" not in head, key
        types[key] = head["ContentType"]
    for key, media_type in types.items():
        if key.endswith(".xml.gz"):
            assert media_type == "application/gzip", key
        elif key.endswith(".xml"):
            assert media_type == "application/xml; charset=utf-8", key
    assert types["sitemap.css"] == "text/css; charset=utf-8"
    assert types["sitemapkit-manifest.json"] == "application/json"

    def url(key: str) -> str:
        """A presigned URL of the object, as a private bucket's link gives it to a client."""
        return str(
            client.generate_presigned_url("get_object", Params={"Bucket": bucket, "Key": key})
        )

    for key in [k for k in keys if k.endswith(".xml.gz")]:
        gz, plain = url(key), url(key.removesuffix(".gz"))
        with urllib.request.urlopen(gz) as response:
            assert response.headers["Content-Type"] == "application/gzip"
            assert response.headers["Content-Encoding"] is None
            body = response.read()
        with urllib.request.urlopen(plain) as response:
            assert gzip.decompress(body) == response.read()
        # requests decodes what a Content-Encoding names: the body must stay the gzip file.
        fetched = requests.get(gz, timeout=10)
        assert "Content-Encoding" not in fetched.headers
        assert fetched.content == body
        assert gzip.decompress(fetched.content) == requests.get(plain, timeout=10).content

    # Only the publisher's copy of the storage names the types: the project's own use of the
    # alias is left as configured (django-storages' guess from the name).
    storages["sitemaps"].save("media/report.xml.gz", ContentFile(gzip.compress(b"<a/>")))
    assert client.head_object(Bucket=bucket, Key="media/report.xml.gz")["ContentEncoding"] == "gzip"
