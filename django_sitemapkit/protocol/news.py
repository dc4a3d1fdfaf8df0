"""``<news:news>`` elements (Google's news sitemap extension) and its rules.

Google News reads only articles of the last two days, at most 1,000 per file.
An item whose ``news()`` has no valid publication name, language, date or
title is not news: the caller leaves it out, as it does an article older
than two days.
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Mapping

from django_sitemapkit.protocol.extvalues import text, w3c_date
from django_sitemapkit.protocol.w3c import to_aware

MAX_NEWS_PER_FILE = 1000
NEWS_WINDOW = datetime.timedelta(days=2)
_LANGUAGE = re.compile(r"zh-cn|zh-tw|[a-z]{2,3}").fullmatch


class NotNews(ValueError):
    """The item is not listed in a news section; ``old`` when only its date is too old."""

    def __init__(self, message: str, *, old: bool = False) -> None:
        super().__init__(message)
        self.old = old


def news_language(value: object) -> str:
    """An ISO 639 code as Google wants it: ``"en"``, ``"zh-cn"``; ``"en-US"`` -> ``"en"``."""
    if not isinstance(value, str):
        raise NotNews(f"publication_language {value!r} is not a string")
    code = value.strip().lower().replace("_", "-")
    if not _LANGUAGE(code):
        code = code.partition("-")[0]
    if not _LANGUAGE(code) or code == "zh":
        raise NotNews(f"publication_language {value!r} is not an ISO 639 code")
    return code


def publication_datetime(value: object, tz: datetime.tzinfo) -> datetime.datetime:
    """The publication date as an aware datetime (a date: its midnight in ``tz``)."""
    if isinstance(value, str):
        try:
            w3c_date(value, tz)
            parsed: datetime.date = datetime.datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            raise NotNews(f"publication_date {value!r} is no W3C date") from None
        value = parsed
    if not isinstance(value, datetime.date):
        raise NotNews(f"publication_date {value!r} is no date")
    return to_aware(value, tz)


def news_xml(news: object, now: datetime.datetime, tz: datetime.tzinfo) -> str:
    """The ``<news:news>`` of an article published within two days of ``now``; else NotNews."""
    if not isinstance(news, Mapping):
        raise NotNews(f"news() returned {type(news).__name__}, not a dict")
    published = news.get("publication_date")
    if published is None:
        raise NotNews("no publication_date")
    try:
        date_text = w3c_date(published, tz)
    except ValueError as exc:
        raise NotNews(f"publication_date: {exc}") from None
    if publication_datetime(published, tz) < now - NEWS_WINDOW:
        raise NotNews("published more than two days ago", old=True)
    try:
        name = text(news.get("publication_name"))
        title = text(news.get("title"))
    except ValueError as exc:
        raise NotNews(f"publication_name or title: {exc}") from None
    language = news_language(news.get("publication_language"))
    return (
        f"<news:news><news:publication><news:name>{name}</news:name>"
        f"<news:language>{language}</news:language></news:publication>"
        f"<news:publication_date>{date_text}</news:publication_date>"
        f"<news:title>{title}</news:title></news:news>"
    )
