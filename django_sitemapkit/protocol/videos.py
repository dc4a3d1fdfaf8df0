"""``<video:video>`` elements (Google's video sitemap extension).

Each video is a dict. Its values are checked against Google's rules and the
schema: a missing or invalid required value (``thumbnail_loc``, ``title``,
``description``, and ``content_loc`` or ``player_loc``) drops the video, an
invalid optional value drops just that value; either way the problem is
reported so the caller can log it with the item.
"""

from __future__ import annotations

import datetime
import math
import re
from collections.abc import Callable, Mapping
from decimal import Decimal
from typing import Any

from django_sitemapkit.protocol.extvalues import (
    absolute_url,
    text,
    w3c_date,
    whole_number,
    yes_no,
)
from django_sitemapkit.protocol.writer import escape, format_priority

MAX_TAGS = 32
_COUNTRIES = re.compile(r"[A-Z]{2}").fullmatch
_PLATFORMS = frozenset({"web", "mobile", "tv"})
_RELATIONSHIPS = frozenset({"allow", "deny"})


class VideoXml:
    """Formats the videos of one file: the site's base URL and time zone, fixed."""

    def __init__(self, base_url: str, tz: datetime.tzinfo) -> None:
        self.base_url = base_url
        self.tz = tz
        # In the schema's order; each returns the element's text.
        self.optional: list[tuple[str, Callable[[Any], str]]] = [
            ("duration", lambda v: _simple("duration", whole_number(v, 1, 28800))),
            ("expiration_date", lambda v: _simple("expiration_date", w3c_date(v, self.tz))),
            ("rating", lambda v: _simple("rating", _rating(v))),
            ("view_count", lambda v: _simple("view_count", whole_number(v, 0))),
            ("publication_date", lambda v: _simple("publication_date", w3c_date(v, self.tz))),
            ("tags", _tags),
            ("family_friendly", lambda v: _simple("family_friendly", yes_no(v))),
            ("restriction", _restriction),
            ("requires_subscription", lambda v: _simple("requires_subscription", yes_no(v))),
            ("uploader", self._uploader),
            ("platform", _platform),
            ("live", lambda v: _simple("live", yes_no(v))),
        ]

    def __call__(self, video: object) -> tuple[str | None, list[str]]:
        """The element of ``video`` (None when it is dropped) and the problems met."""
        problems: list[str] = []
        if not isinstance(video, Mapping):
            return None, [f"video {video!r} is not a dict"]
        try:
            head = self._required(video)
        except ValueError as exc:
            return None, [f"video dropped: {exc}"]
        parts = [head]
        for key, formatter in self.optional:
            value = video.get(key)
            if value is None:
                continue
            try:
                parts.append(formatter(value))
            except ValueError as exc:
                problems.append(f"video {key} dropped: {exc}")
        unknown = set(video) - _KNOWN
        if unknown:
            problems.append(f"video keys ignored: {', '.join(sorted(map(str, unknown)))}")
        return f"<video:video>{''.join(parts)}</video:video>", problems

    def _required(self, video: Mapping[str, Any]) -> str:
        parts = []
        for key, formatter in (
            ("thumbnail_loc", self._url),
            ("title", lambda v: text(v, max_length=100)),
            ("description", lambda v: text(v, max_length=2048)),
        ):
            if video.get(key) is None:
                raise ValueError(f"no {key}")
            try:
                parts.append(_simple(key, formatter(video[key])))
            except ValueError as exc:
                raise ValueError(f"{key}: {exc}") from None
        locations = [key for key in ("content_loc", "player_loc") if video.get(key) is not None]
        if not locations:
            raise ValueError("neither content_loc nor player_loc")
        for key in locations:
            try:
                parts.append(_simple(key, self._url(video[key])))
            except ValueError as exc:
                raise ValueError(f"{key}: {exc}") from None
        return "".join(parts)

    def _url(self, value: object) -> str:
        return absolute_url(value, self.base_url)

    def _uploader(self, value: object) -> str:
        if isinstance(value, Mapping):
            name = text(value.get("name"), max_length=255)
            info = value.get("info")
            if info is not None:
                return f'<video:uploader info="{self._url(info)}">{name}</video:uploader>'
            return _simple("uploader", name)
        return _simple("uploader", text(value, max_length=255))


_KNOWN = frozenset(
    {"thumbnail_loc", "title", "description", "content_loc", "player_loc"}
    | {"duration", "expiration_date", "rating", "view_count", "publication_date", "tags"}
    | {"family_friendly", "restriction", "requires_subscription", "uploader", "platform", "live"}
)


def _simple(name: str, value: str) -> str:
    return f"<video:{name}>{value}</video:{name}>"


def _rating(value: object) -> str:
    if isinstance(value, bool) or not isinstance(value, int | float | Decimal):
        raise ValueError(f"{value!r} is not a number")
    number = float(value)
    if math.isnan(number) or not 0.0 <= number <= 5.0:
        raise ValueError(f"{value!r} is not from 0.0 to 5.0")
    return format_priority(number)


def _tags(value: object) -> str:
    tags = [value] if isinstance(value, str) else value
    if not isinstance(tags, list | tuple):
        raise ValueError(f"{value!r} is not a list of tags")
    written = [text(tag, max_length=256) for tag in tags[:MAX_TAGS]]
    if len(tags) > MAX_TAGS:
        raise ValueError(f"{len(tags)} tags, more than Google's {MAX_TAGS}")
    return "".join(_simple("tag", tag) for tag in written)


def _words(value: object, key: str) -> tuple[str, list[str]]:
    """A restriction or platform dict: (relationship, its words)."""
    if not isinstance(value, Mapping):
        raise ValueError(f"{value!r} is not a dict with 'relationship' and {key!r}")
    relationship = value.get("relationship")
    if relationship not in _RELATIONSHIPS:
        raise ValueError(f"relationship {relationship!r} is neither 'allow' nor 'deny'")
    words = value.get(key) or []
    words = words.split() if isinstance(words, str) else list(words)
    if not all(isinstance(word, str) for word in words):
        raise ValueError(f"{key} {words!r} are not all strings")
    return str(relationship), words


def _restriction(value: object) -> str:
    relationship, countries = _words(value, "countries")
    countries = [country.upper() for country in countries]
    bad = [country for country in countries if not _COUNTRIES(country)]
    if bad:
        raise ValueError(f"{bad!r} are not ISO 3166 country codes")
    return (
        f'<video:restriction relationship="{relationship}">'
        f"{' '.join(countries)}</video:restriction>"
    )


def _platform(value: object) -> str:
    relationship, platforms = _words(value, "platforms")
    platforms = [platform.lower() for platform in platforms]
    if not platforms or not set(platforms) <= _PLATFORMS:
        raise ValueError(f"platforms {platforms!r} are not among web, mobile and tv")
    return f'<video:platform relationship="{relationship}">{escape(" ".join(platforms))}</video:platform>'
