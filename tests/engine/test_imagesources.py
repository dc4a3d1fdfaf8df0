from __future__ import annotations

from typing import Any

from django.core.files.storage import Storage

import django_sitemapkit as sitemapkit
from django_sitemapkit._engine.extensions import (
    ImageReader,
    plain_file_prefix,
    target_field,
    url_of,
)
from django_sitemapkit._engine.rows import row_layout
from tests.testapp.models import Gallery, Photo


class Covers(sitemapkit.ModelSitemap):
    model = Gallery
    images_field = "cover"
    url_name = "article-detail"
    url_kwargs = {"slug": "slug"}


class Photos(Covers):
    images_field = "photos__file"


def test_a_field_of_the_model_is_a_column_a_lookup_is_not() -> None:
    covers = row_layout(Covers())
    assert covers.image is not None and covers.columns[covers.image] == "cover"
    assert row_layout(Photos()).image is None
    assert target_field(Photos()) is Photo._meta.get_field("file")


def test_file_names_become_their_storages_urls(settings: Any) -> None:
    settings.MEDIA_URL = "/media/"
    field = Gallery._meta.get_field("picture")
    assert url_of(field)("a/b.jpg") == "/media/a/b.jpg"
    assert url_of(field)("") is None
    assert url_of(Gallery._meta.get_field("cover"))("/x.jpg") == "/x.jpg"
    assert plain_file_prefix(field) == "/media/"


def test_only_a_local_storage_has_a_plain_prefix() -> None:
    class Remote(Storage):
        def url(self, name: str | None) -> str:
            return f"https://s3.example/{name}?signature=1"

    field = Gallery._meta.get_field("picture")
    saved = field.storage
    field.storage = Remote()
    try:
        assert plain_file_prefix(field) is None
    finally:
        field.storage = saved


def test_column_rows_read_their_image_column() -> None:
    reader = ImageReader(Covers(), 2)
    assert reader((1, "slug", "/a.jpg")) == ["/a.jpg"]
    assert reader((1, "slug", "")) == []
