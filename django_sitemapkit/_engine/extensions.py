"""An entry's images, videos, news, ``extra_xml()``; bad ones dropped (logged) or EntryRejected."""

from __future__ import annotations

import datetime
import logging
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from itertools import islice
from typing import Any

from django.core.files.storage import FileSystemStorage
from django.db import models
from django.db.models import DateTimeField, QuerySet
from django.db.models.fields.files import FieldFile
from django.utils import timezone

from django_sitemapkit._engine.internals import CHUNK_SIZE
from django_sitemapkit._protocol.extensionxml import (
    IMAGE_NS,
    MAX_NEWS_PER_FILE,
    NEWS_NS,
    NEWS_WINDOW,
    VIDEO_NS,
    XHTML_NS,
    FragmentChecker,
    FragmentError,
    NotNews,
    VideoXml,
    images_xml,
    news_xml,
)
from django_sitemapkit._protocol.writer import MAX_ENTRIES_PER_FILE
from django_sitemapkit._sitemaps import ModelSitemap, Sitemap

logger = logging.getLogger("django_sitemapkit")


class EntryRejected(Exception):
    """The item is not listed; ``quiet`` when that is the rule, not a fault (old news)."""

    def __init__(self, reason: str, *, quiet: bool = False) -> None:
        super().__init__(reason)
        self.quiet = quiet


def overrides(sitemap: Sitemap, hook: str) -> bool:
    return getattr(type(sitemap), hook) is not getattr(Sitemap, hook)


def max_entries(sitemap: Sitemap) -> int:
    limit = min(sitemap.limit, MAX_ENTRIES_PER_FILE)
    return min(limit, MAX_NEWS_PER_FILE) if overrides(sitemap, "news") else limit


def namespaces(sitemap: Sitemap) -> dict[str, str]:
    declared = dict(sitemap.namespaces)
    if sitemap.i18n and sitemap.alternates:
        declared.setdefault("xhtml", XHTML_NS)
    if overrides(sitemap, "images") or images_field(sitemap) is not None:
        declared.setdefault("image", IMAGE_NS)
    if overrides(sitemap, "videos"):
        declared.setdefault("video", VIDEO_NS)
    if overrides(sitemap, "news"):
        declared.setdefault("news", NEWS_NS)
    return declared


def news_window(sitemap: ModelSitemap, queryset: QuerySet[Any]) -> QuerySet[Any]:
    """``queryset`` narrowed to the last two days' news, by a news section's ``news_date_field``."""
    field_name = sitemap.news_date_field
    if field_name is None or not overrides(sitemap, "news") or sitemap.model is None:
        return queryset
    cutoff = timezone.now() - NEWS_WINDOW
    field = sitemap.model._meta.get_field(field_name)
    since = cutoff if isinstance(field, DateTimeField) else cutoff.date()
    return queryset.filter(**{f"{field_name}__gte": since})


def images_field(sitemap: Sitemap) -> str | None:
    if not isinstance(sitemap, ModelSitemap) or sitemap.model is None:
        return None
    return sitemap.images_field


def target_field(sitemap: ModelSitemap) -> models.Field[Any, Any]:
    assert sitemap.model is not None
    assert sitemap.images_field is not None
    model: Any = sitemap.model
    *path, last = sitemap.images_field.split("__")
    for name in path:
        model = model._meta.get_field(name).related_model
    field: models.Field[Any, Any] = model._meta.get_field(last)
    return field


def url_of(field: models.Field[Any, Any]) -> Callable[[Any], Any]:
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
    """Reads items' image values: a field holding a URL or a file (its storage gives the URL), or
    across a relation (``"photos__file"``), fetched a chunk of rows at a time, not per row."""

    def __init__(self, sitemap: ModelSitemap, column: int | None) -> None:
        assert sitemap.images_field is not None
        assert sitemap.model is not None
        self.sitemap = sitemap
        self.lookup = sitemap.images_field
        self.related = "__" in self.lookup
        self.column = column
        self.to_url = url_of(target_field(sitemap))
        self.fetched: dict[Any, list[Any]] = {}

    def __call__(self, item: Any) -> list[Any]:
        if self.related:
            key = item.pk if isinstance(item, models.Model) else item[0]
            values = self.fetched.get(key, [])
        elif self.column is not None:
            values = [item[self.column]]
        else:
            values = [getattr(item, self.lookup)]
        return [url for value in values if (url := self.to_url(value))]

    def prefetching(self, keyed: Iterable[tuple[Any, Any]]) -> Iterator[tuple[Any, Any]]:
        """``keyed`` as it comes, each chunk's related values first fetched in one query."""
        sitemap = self.sitemap
        assert sitemap.model is not None
        through = self.lookup.rpartition("__")[0]
        pairs = iter(keyed)
        while chunk := list(islice(pairs, CHUNK_SIZE)):
            rows = (
                sitemap.model._default_manager.using(sitemap.get_queryset().db)
                .filter(pk__in=[key for key, _item in chunk])
                .values_list("pk", self.lookup)
                .order_by("pk", f"{through}__pk")
            )
            self.fetched = defaultdict(list)
            for key, value in rows:
                if value is not None:
                    self.fetched[key].append(value)
            yield from chunk


class Extensions:
    def __init__(
        self,
        sitemap: Sitemap,
        base_url: str,
        tz: datetime.tzinfo,
        describe: Callable[[Any], str],
        image_at: int | None = None,
    ) -> None:
        self.sitemap = sitemap
        self.base_url = base_url
        self.describe = describe
        self.images_dropped = 0
        field = images_field(sitemap)
        self.reader = (
            None if field is None else ImageReader(sitemap, image_at)  # type: ignore[arg-type]
        )
        self.images = self.reader or (sitemap.images if overrides(sitemap, "images") else None)
        self.videos = VideoXml(base_url, tz) if overrides(sitemap, "videos") else None
        self.news = overrides(sitemap, "news")
        self.now = timezone.now()
        self.tz = tz
        self.checker = (
            FragmentChecker(namespaces(sitemap)) if overrides(sitemap, "extra_xml") else None
        )
        self.active = bool(self.images or self.videos or self.news or self.checker)
        self.plain_column = (  # only a plain image column: the fast loop writes it
            self.reader is not None
            and self.reader.column is not None
            and not (self.videos or self.news or self.checker or overrides(sitemap, "images"))
        )

    def __call__(self, item: Any) -> str:
        parts = []
        if self.images is not None:
            found = images_xml(self.images(item) or (), self.base_url)
            if found.dropped:
                self.images_dropped += found.dropped
                self.warn(item, "dropped", found.problems)
            parts.append(found.xml)
        if self.videos is not None:
            parts.extend(self.videos_of(item))
        if self.news:
            try:
                parts.append(news_xml(self.sitemap.news(item), self.now, self.tz))
            except NotNews as exc:
                raise EntryRejected(f"not news: {exc}", quiet=exc.old) from None
        if self.checker is not None:
            for fragment in self.sitemap.extra_xml(item):
                try:
                    self.checker.check(fragment)
                except FragmentError as exc:
                    raise EntryRejected(f"extra_xml() returned {fragment[:80]!r}: {exc}") from None
                parts.append(fragment)
        return "".join(parts)

    def videos_of(self, item: Any) -> list[str]:
        assert self.videos is not None
        videos = self.sitemap.videos(item) or ()
        parts = []
        for video in [videos] if isinstance(videos, dict) else videos:
            xml, problems = self.videos(video)
            if problems:
                self.warn(item, "left out", problems)
            if xml is not None:
                parts.append(xml)
        return parts

    def warn(self, item: Any, what: str, problems: list[str]) -> None:
        logger.warning(
            "Sitemap section %r: %s of %s: %s.",
            self.sitemap.section,
            what,
            self.describe(item),
            "; ".join(problems),
        )
