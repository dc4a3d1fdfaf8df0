"""Where a model section's images come from: ``images_field``, a column or a related lookup.

``images_field = "cover"`` names a field of the model holding an image URL
(CharField, URLField) or a file (FileField, ImageField, whose storage gives
the URL). Column rows read it as one more column; instances, as an
attribute. ``images_field = "photos__file"`` follows a reverse foreign key or
many-to-many relation first: those values are fetched for a chunk of rows in
one query, keyed by the rows' keys, never one query per row.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from itertools import islice
from typing import Any

from django.core.files.storage import FileSystemStorage
from django.db import models
from django.db.models.fields.files import FieldFile

from django_sitemapkit.engine.internals import CHUNK_SIZE
from django_sitemapkit.engine.routes import url_route
from django_sitemapkit.sitemaps import ModelSitemap, Sitemap


def images_field(sitemap: Sitemap) -> str | None:
    """The section's ``images_field``: only model sections have one."""
    if not isinstance(sitemap, ModelSitemap) or sitemap.model is None:
        return None
    return sitemap.images_field


def image_column(sitemap: Sitemap) -> str | None:
    """The column a column row holds the image in: a field of the model itself."""
    name = images_field(sitemap)
    if name is None or "__" in name or not isinstance(sitemap, ModelSitemap):
        return None
    return name if url_route(sitemap) is not None else None


def target_field(sitemap: ModelSitemap) -> models.Field[Any, Any]:
    """The field ``images_field`` ends at (a field of a related model for a lookup)."""
    assert sitemap.model is not None
    assert sitemap.images_field is not None
    model: Any = sitemap.model
    *path, last = sitemap.images_field.split("__")
    for name in path:
        model = model._meta.get_field(name).related_model
    field: models.Field[Any, Any] = model._meta.get_field(last)
    return field


def url_of(field: models.Field[Any, Any]) -> Callable[[Any], Any]:
    """Turn the field's value (a file name, a FieldFile, a URL) into the image's URL."""
    if not isinstance(field, models.FileField):
        return lambda value: value
    storage = field.storage

    def file_url(value: Any) -> Any:
        if isinstance(value, FieldFile):
            value = value.name
        return storage.url(value) if value else None

    return file_url


def plain_file_prefix(field: models.Field[Any, Any]) -> str | None:
    """What a local storage puts before a plain file name to make its URL, if it is that simple."""
    if not isinstance(field, models.FileField) or not isinstance(field.storage, FileSystemStorage):
        return None
    probe = str(field.storage.url("x"))
    return probe[:-1] if probe.endswith("/x") else None


class ImageReader:
    """Reads the image values of items; a related lookup's are fetched chunk by chunk."""

    def __init__(self, sitemap: ModelSitemap) -> None:
        assert sitemap.images_field is not None
        assert sitemap.model is not None
        self.sitemap = sitemap
        self.lookup = sitemap.images_field
        self.related = "__" in self.lookup
        self.columns = url_route(sitemap) is not None
        self.to_url = url_of(target_field(sitemap))
        self.fetched: dict[Any, list[Any]] = {}

    def __call__(self, item: Any) -> list[Any]:
        """The image URLs of ``item`` (a column row or an instance)."""
        if self.related:
            key = item[0] if self.columns else item.pk
            values = self.fetched.get(key, [])
        elif self.columns:
            values = [item[-1]]
        else:
            values = [getattr(item, self.lookup.split("__")[0])]
        urls = []
        for value in values:
            url = self.to_url(value)
            if url:
                urls.append(url)
        return urls

    def prefetching(self, keyed: Iterable[tuple[Any, Any]]) -> Iterator[tuple[Any, Any]]:
        """``keyed`` (key, item) pairs as they come, each chunk's images fetched first."""
        if not self.related:
            yield from keyed
            return
        pairs = iter(keyed)
        while chunk := list(islice(pairs, CHUNK_SIZE)):
            self.fetch([key for key, _item in chunk])
            yield from chunk

    def fetch(self, keys: list[Any]) -> None:
        """One query for the images of the rows with these keys."""
        sitemap = self.sitemap
        assert sitemap.model is not None
        through = self.lookup.rpartition("__")[0]
        rows = (
            sitemap.model._default_manager.using(sitemap.get_queryset().db)
            .filter(pk__in=keys)
            .values_list("pk", self.lookup)
            .order_by("pk", f"{through}__pk")
        )
        fetched: dict[Any, list[Any]] = defaultdict(list)
        for key, value in rows:
            if value is not None:
                fetched[key].append(value)
        self.fetched = fetched
