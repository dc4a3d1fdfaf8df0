"""Google's image, video and news elements, and ``Sitemap.extra_xml()`` fragments: a formatter
returns escaped text or raises ValueError saying what breaks Google's rules or the schemas."""

from __future__ import annotations

import datetime
import math
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from functools import partial
from typing import Any
from xml.parsers import expat

from django_sitemapkit._protocol.locations import (
    MAX_URL_LENGTH,
    as_string,
    join_url,
    split_url,
)
from django_sitemapkit._protocol.w3c import format_lastmod, to_aware
from django_sitemapkit._protocol.writer import SITEMAP_NS, escape, format_priority

IMAGE_NS = "http://www.google.com/schemas/sitemap-image/1.1"
VIDEO_NS = "http://www.google.com/schemas/sitemap-video/1.1"
NEWS_NS = "http://www.google.com/schemas/sitemap-news/0.9"
XHTML_NS = "http://www.w3.org/1999/xhtml"

MAX_IMAGES_PER_URL = 1000
MAX_NEWS_PER_FILE = 1000
NEWS_WINDOW = datetime.timedelta(days=2)
MAX_TAGS = 32

# What XML 1.0 cannot hold at all (control characters, lone surrogates, U+FFFE/F).
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}\Z").match
_DATETIME = re.compile(
    r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}(?::[0-9]{2}(?:\.[0-9]+)?)?(?:Z|[+-][0-9]{2}:[0-9]{2})\Z"
).match
_LANGUAGE = re.compile(r"zh-cn|zh-tw|[a-z]{2,3}").fullmatch
_COUNTRIES = re.compile(r"[A-Z]{2}").fullmatch
_PLATFORMS = frozenset({"web", "mobile", "tv"})
_RELATIONSHIPS = frozenset({"allow", "deny"})
_REQUIRED = frozenset({"thumbnail_loc", "title", "description", "content_loc", "player_loc"})


def text(value: object, *, max_length: int | None = None) -> str:
    """``value`` as escaped element text, without the characters XML cannot hold."""
    cleaned = _NOT_XML.sub("", as_string(value)).strip()
    if not cleaned:
        raise ValueError("empty")
    if max_length is not None and len(cleaned) > max_length:
        raise ValueError(f"longer than {max_length:,} characters")
    return escape(cleaned)


def absolute_url(raw: object, base_url: str) -> str:
    """``raw`` as an escaped absolute URI; a path is on ``base_url``, a host may differ (CDN)."""
    value = as_string(raw).strip()
    if _NOT_XML.search(value):
        raise ValueError("contains characters XML cannot hold")
    if value.startswith("/") and not value.startswith("//"):
        value = base_url + value
    scheme, netloc, path, query = split_url(
        value, base_url.partition(":")[0], "not a URL: must start with '/' or 'http(s)://'"
    )
    url = join_url(f"{scheme}://{netloc}", path, query)
    if len(url) > MAX_URL_LENGTH:
        raise ValueError(f"longer than {MAX_URL_LENGTH} characters")
    return escape(url)


def w3c_date(value: object, tz: datetime.tzinfo) -> str:
    """A date or datetime (or its W3C text) as W3C Datetime text."""
    if isinstance(value, datetime.datetime):
        try:
            return format_lastmod(value, tz, date_only=False)
        except (OverflowError, ValueError):
            raise ValueError(f"{value!r} cannot be written in the site's time zone") from None
    if isinstance(value, datetime.date):
        return value.isoformat()
    if isinstance(value, str) and (_DATE(value) or _DATETIME(value)):
        try:
            parse = datetime.date if _DATE(value) else datetime.datetime
            parse.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            raise ValueError(f"{value!r} is no W3C date") from None
        return value
    raise ValueError(f"{value!r} is no date, datetime or W3C date text")


def yes_no(value: object) -> str:
    """``True``/``"yes"`` -> ``"yes"``, ``False``/``"no"`` -> ``"no"``."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, str) and value.strip().lower() in ("yes", "no"):
        return value.strip().lower()
    raise ValueError(f"{value!r} is neither yes nor no")


def whole_number(value: object, low: int, high: int | None = None) -> str:
    """An integer from ``low`` to ``high`` (no bool)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{value!r} is not an integer")
    if value < low or (high is not None and value > high):
        raise ValueError(f"{value!r} is not from {low} to {high if high is not None else 'any'}")
    return str(value)


@dataclass
class ImagesXml:
    xml: str = ""
    dropped: int = 0
    problems: list[str] = field(default_factory=list)


def image_element(url: str) -> str:
    return f"<image:image><image:loc>{url}</image:loc></image:image>"


def images_xml(images: Iterable[object], base_url: str) -> ImagesXml:
    """``<image:image>`` of URLs or dicts with a ``"loc"``; past Google's 1,000, dropped."""
    result = ImagesXml()
    parts: list[str] = []
    if isinstance(images, str | Mapping):
        images = [images]
    for image in images:
        raw = image.get("loc") if isinstance(image, Mapping) else image
        if raw is None or raw == "":
            continue
        if len(parts) >= MAX_IMAGES_PER_URL:
            result.dropped += 1
            continue
        try:
            parts.append(image_element(absolute_url(raw, base_url)))
        except ValueError as exc:
            result.dropped += 1
            result.problems.append(f"image {raw!r}: {exc}")
    over = result.dropped - len(result.problems)
    if over:
        result.problems.append(f"{over:,} images past Google's {MAX_IMAGES_PER_URL:,} per URL")
    result.xml = "".join(parts)
    return result


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


def news_xml(news: object, now: datetime.datetime, tz: datetime.tzinfo) -> str:
    """``<news:news>`` of an article published within two days of ``now``, else NotNews."""
    if not isinstance(news, Mapping):
        raise NotNews(f"news() returned {type(news).__name__}, not a dict")
    published = news.get("publication_date")
    if published is None:
        raise NotNews("no publication_date")
    try:
        date_text = w3c_date(published, tz)
    except ValueError as exc:
        raise NotNews(f"publication_date: {exc}") from None
    if isinstance(published, str):  # valid W3C text by now
        published = datetime.datetime.fromisoformat(published.replace("Z", "+00:00"))
    if to_aware(published, tz) < now - NEWS_WINDOW:
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


class VideoXml:
    """Formats videos (dicts): a bad required value drops the video, a bad optional one itself."""

    def __init__(self, base_url: str, tz: datetime.tzinfo) -> None:
        self._url = partial(absolute_url, base_url=base_url)
        # In the schema's order.
        self.optional: dict[str, Callable[[Any], str]] = {
            "duration": lambda v: _simple("duration", whole_number(v, 1, 28800)),
            "expiration_date": lambda v: _simple("expiration_date", w3c_date(v, tz)),
            "rating": lambda v: _simple("rating", _rating(v)),
            "view_count": lambda v: _simple("view_count", whole_number(v, 0)),
            "publication_date": lambda v: _simple("publication_date", w3c_date(v, tz)),
            "tags": _tags,
            "family_friendly": lambda v: _simple("family_friendly", yes_no(v)),
            "restriction": lambda v: _related("restriction", "countries", v, _countries),
            "requires_subscription": lambda v: _simple("requires_subscription", yes_no(v)),
            "uploader": self._uploader,
            "platform": lambda v: _related("platform", "platforms", v, _platforms),
            "live": lambda v: _simple("live", yes_no(v)),
        }

    def __call__(self, video: object) -> tuple[str | None, list[str]]:
        if not isinstance(video, Mapping):
            return None, [f"video {video!r} is not a dict"]
        try:
            parts = [self._required(video)]
        except ValueError as exc:
            return None, [f"video dropped: {exc}"]
        problems: list[str] = []
        for key, formatter in self.optional.items():
            try:
                if (value := video.get(key)) is not None:
                    parts.append(formatter(value))
            except ValueError as exc:
                problems.append(f"video {key} dropped: {exc}")
        unknown = set(video) - _REQUIRED - self.optional.keys()
        if unknown:
            problems.append(f"video keys ignored: {', '.join(sorted(map(str, unknown)))}")
        return f"<video:video>{''.join(parts)}</video:video>", problems

    def _required(self, video: Mapping[str, Any]) -> str:
        locations = [key for key in ("content_loc", "player_loc") if video.get(key) is not None]
        parts = [
            _formatted("thumbnail_loc", self._url, video),
            _formatted("title", lambda v: text(v, max_length=100), video),
            _formatted("description", lambda v: text(v, max_length=2048), video),
            *(_formatted(key, self._url, video) for key in locations),
        ]
        if not locations:
            raise ValueError("neither content_loc nor player_loc")
        return "".join(parts)

    def _uploader(self, value: object) -> str:
        given = value if isinstance(value, Mapping) else {"name": value}
        name = text(given.get("name"), max_length=255)
        info = given.get("info")
        attribute = "" if info is None else f' info="{self._url(info)}"'
        return f"<video:uploader{attribute}>{name}</video:uploader>"


def _formatted(key: str, formatter: Callable[[Any], str], video: Mapping[str, Any]) -> str:
    if video.get(key) is None:
        raise ValueError(f"no {key}")
    try:
        return _simple(key, formatter(video[key]))
    except ValueError as exc:
        raise ValueError(f"{key}: {exc}") from None


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


def _related(name: str, key: str, value: object, clean: Callable[[list[str]], list[str]]) -> str:
    """``<video:{name}>`` of the words of ``value[key]`` (as ``clean`` checks them), allowed or
    denied as ``value["relationship"]`` says."""
    if not isinstance(value, Mapping):
        raise ValueError(f"{value!r} is not a dict with 'relationship' and {key!r}")
    relationship = value.get("relationship")
    if relationship not in _RELATIONSHIPS:
        raise ValueError(f"relationship {relationship!r} is neither 'allow' nor 'deny'")
    words = value.get(key) or []
    words = words.split() if isinstance(words, str) else list(words)
    if not all(isinstance(word, str) for word in words):
        raise ValueError(f"{key} {words!r} are not all strings")
    listed = escape(" ".join(clean(words)))
    return f'<video:{name} relationship="{relationship}">{listed}</video:{name}>'


def _countries(words: list[str]) -> list[str]:
    countries = [word.upper() for word in words]
    bad = [country for country in countries if not _COUNTRIES(country)]
    if bad:
        raise ValueError(f"{bad!r} are not ISO 3166 country codes")
    return countries


def _platforms(words: list[str]) -> list[str]:
    platforms = [word.lower() for word in words]
    if not platforms or not set(platforms) <= _PLATFORMS:
        raise ValueError(f"platforms {platforms!r} are not among web, mobile and tv")
    return platforms


class FragmentError(ValueError):
    pass


class FragmentChecker:
    """Checks ``extra_xml()`` fragments against one file's namespaces (prefix -> URI): what
    sitemap.xsd allows after ``<priority>``. expat loads no DTD nor external entity."""

    def __init__(self, namespaces: Mapping[str, str]) -> None:
        declarations = "".join(
            f' xmlns:{prefix}="{escape(uri)}"' for prefix, uri in sorted(namespaces.items())
        )
        self.open = f'<urlset xmlns="{SITEMAP_NS}"{declarations}>'

    def check(self, fragment: str) -> None:
        """Raise FragmentError unless ``fragment`` may follow ``<priority>`` in a ``<url>``."""
        parser = expat.ParserCreate("UTF-8", " ")
        depth = 0
        problem: list[str] = []

        def start(name: str, _attributes: object) -> None:
            nonlocal depth
            depth += 1
            if depth == 2 and (" " not in name or name.startswith(SITEMAP_NS + " ")):
                problem.append(f"element {name.rpartition(' ')[2]!r} is not of an extension")

        def end(name: str) -> None:
            nonlocal depth
            depth -= 1

        def characters(data: str) -> None:
            if depth == 1 and data.strip():
                problem.append(f"text {data.strip()[:40]!r} outside any element")

        def declaration(prefix: str | None, uri: str) -> None:
            if depth >= 1:
                problem.append(f"it declares namespace {uri!r} itself; add it to namespaces")

        parser.StartElementHandler = start
        parser.EndElementHandler = end
        parser.CharacterDataHandler = characters
        parser.StartNamespaceDeclHandler = declaration
        parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
        try:
            parser.Parse(self.open + fragment + "</urlset>", True)
        except UnicodeEncodeError:
            raise FragmentError("it holds characters that are not valid Unicode") from None
        except expat.ExpatError as exc:
            raise FragmentError(
                f"not well-formed XML ({expat.errors.messages[exc.code]})"
            ) from None
        if problem:
            raise FragmentError(problem[0])
