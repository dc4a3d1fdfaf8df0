"""An entry's extension elements: images, videos, news and ``extra_xml()``, settled once per file.

``Extensions(sitemap, ...)`` looks once at which hooks and fields the section
uses; calling it with an item returns the XML that follows the entry's
``<priority>``. A bad image or video value is dropped (logged, images
counted); an item whose ``extra_xml()`` cannot go into the file, or that is
no news of the last two days in a news section, raises EntryRejected: the
caller skips it.
"""

from __future__ import annotations

import datetime
import logging
from collections.abc import Callable
from typing import Any

from django.db.models import DateTimeField, QuerySet
from django.utils import timezone

from django_sitemapkit.engine.imagesources import ImageReader, images_field
from django_sitemapkit.protocol.extensionxml import (
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
from django_sitemapkit.protocol.writer import MAX_ENTRIES_PER_FILE
from django_sitemapkit.sitemaps import ModelSitemap, Sitemap

logger = logging.getLogger("django_sitemapkit")


class EntryRejected(Exception):
    """The item is not listed; ``quiet`` when that is the rule, not a fault (old news)."""

    def __init__(self, reason: str, *, quiet: bool = False) -> None:
        super().__init__(reason)
        self.quiet = quiet


def overrides(sitemap: Sitemap, hook: str) -> bool:
    """Whether the section's class defines its own ``hook``."""
    return getattr(type(sitemap), hook) is not getattr(Sitemap, hook)


def is_news(sitemap: Sitemap) -> bool:
    return overrides(sitemap, "news")


def max_entries(sitemap: Sitemap) -> int:
    """The section's URLs per file: its ``limit``, at most 50,000, at most 1,000 for news."""
    limit = min(sitemap.limit, MAX_ENTRIES_PER_FILE)
    return min(limit, MAX_NEWS_PER_FILE) if is_news(sitemap) else limit


def namespaces(sitemap: Sitemap) -> dict[str, str]:
    """The namespaces a section's ``<urlset>`` declares: its own, and the built-in ones it uses."""
    declared = dict(sitemap.namespaces)
    if sitemap.i18n and sitemap.alternates:
        declared.setdefault("xhtml", XHTML_NS)
    if overrides(sitemap, "images") or images_field(sitemap) is not None:
        declared.setdefault("image", IMAGE_NS)
    if overrides(sitemap, "videos"):
        declared.setdefault("video", VIDEO_NS)
    if is_news(sitemap):
        declared.setdefault("news", NEWS_NS)
    return declared


def news_window(sitemap: ModelSitemap, queryset: QuerySet[Any]) -> QuerySet[Any]:
    """``queryset`` narrowed to the last two days' articles, for a news section's ``news_date_field``."""
    field_name = sitemap.news_date_field
    if field_name is None or not is_news(sitemap) or sitemap.model is None:
        return queryset
    cutoff = timezone.now() - NEWS_WINDOW
    field = sitemap.model._meta.get_field(field_name)
    since = cutoff if isinstance(field, DateTimeField) else cutoff.date()
    return queryset.filter(**{f"{field_name}__gte": since})


class Extensions:
    """Turns an item into its extension elements; see the module docstring."""

    def __init__(
        self, sitemap: Sitemap, base_url: str, tz: datetime.tzinfo, describe: Callable[[Any], str]
    ) -> None:
        self.sitemap = sitemap
        self.base_url = base_url
        self.describe = describe
        self.images_dropped = 0
        field = images_field(sitemap)
        self.reader = None if field is None else ImageReader(sitemap)  # type: ignore[arg-type]
        self.images = self.reader or (sitemap.images if overrides(sitemap, "images") else None)
        self.videos = VideoXml(base_url, tz) if overrides(sitemap, "videos") else None
        self.news = is_news(sitemap)
        self.now = timezone.now()
        self.tz = tz
        self.checker = (
            FragmentChecker(namespaces(sitemap)) if overrides(sitemap, "extra_xml") else None
        )
        self.active = bool(self.images or self.videos or self.news or self.checker)
        # Whether only a plain image column is at work, which the fused loop writes itself.
        self.plain_column = (
            self.reader is not None
            and self.reader.columns
            and not self.reader.related
            and not (self.videos or self.news or self.checker)
            and not overrides(sitemap, "images")
        )

    def __call__(self, item: Any) -> str:
        """The extension XML of ``item``; raises EntryRejected when it must not be listed."""
        parts = []
        if self.images is not None:
            parts.append(self.images_of(item))
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

    def images_of(self, item: Any) -> str:
        assert self.images is not None
        found = images_xml(self.images(item) or (), self.base_url)
        if found.dropped:
            self.images_dropped += found.dropped
            self.warn(item, "dropped", found.problems)
        return found.xml

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
