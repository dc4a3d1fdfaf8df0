"""The values of Google's sitemap extensions: namespaces, text, URLs, dates, yes/no.

Shared by images.py, videos.py and news.py. Each function either returns the
text to write (escaped, ready for an element or attribute) or raises
ValueError saying what is wrong, so the caller drops that value and logs why.
"""

from __future__ import annotations

import datetime
import re

from django.utils.functional import Promise

from django_sitemapkit.protocol.hosts import DEFAULT_PORTS, normalise_authority
from django_sitemapkit.protocol.locations import MAX_URL_LENGTH
from django_sitemapkit.protocol.uripaths import (
    InvalidLocation,
    may_hold_dot_segment,
    percent_encode,
    remove_dot_segments,
    split_rest,
)
from django_sitemapkit.protocol.w3c import format_lastmod
from django_sitemapkit.protocol.writer import escape

IMAGE_NS = "http://www.google.com/schemas/sitemap-image/1.1"
VIDEO_NS = "http://www.google.com/schemas/sitemap-video/1.1"
NEWS_NS = "http://www.google.com/schemas/sitemap-news/0.9"
XHTML_NS = "http://www.w3.org/1999/xhtml"

# What XML 1.0 cannot hold at all (control characters, lone surrogates, U+FFFE/F).
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*):").match
_AUTHORITY_END = re.compile(r"[/?#]").search
_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}\Z").match
_DATETIME = re.compile(
    r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}(?::[0-9]{2}(?:\.[0-9]+)?)?(?:Z|[+-][0-9]{2}:[0-9]{2})\Z"
).match


def text(value: object, *, max_length: int | None = None, required: bool = True) -> str:
    """``value`` as escaped element text, without the characters XML cannot hold."""
    if isinstance(value, Promise):
        value = str(value)
    if not isinstance(value, str):
        raise ValueError(f"not a string but {type(value).__name__}")
    cleaned = _NOT_XML.sub("", value).strip()
    if required and not cleaned:
        raise ValueError("empty")
    if max_length is not None and len(cleaned) > max_length:
        raise ValueError(f"longer than {max_length:,} characters")
    return escape(cleaned)


def absolute_url(raw: object, base_url: str) -> str:
    """``raw`` as an absolute http(s) URI, escaped: a path is taken from ``base_url``.

    Unlike ``<loc>``, the host may be another one (images on a CDN).
    """
    if isinstance(raw, Promise):
        raw = str(raw)
    if not isinstance(raw, str):
        raise ValueError(f"not a string but {type(raw).__name__}")
    value = raw.strip()
    if _NOT_XML.search(value):
        raise ValueError("contains characters XML cannot hold")
    scheme = base_url.partition(":")[0]
    if value.startswith("/") and not value.startswith("//"):
        value = base_url + value
    elif value.startswith("//"):
        value = f"{scheme}:{value}"
    match = _SCHEME(value)
    if match is None or not value.startswith("//", match.end()):
        raise ValueError("not a URL: must start with '/' or 'http(s)://'")
    scheme = match.group(1).lower()
    if scheme not in DEFAULT_PORTS:
        raise ValueError(f"unsupported scheme {scheme!r}")
    rest = value[match.end() + 2 :]
    end = _AUTHORITY_END(rest)
    authority, rest = (rest[: end.start()], rest[end.start() :]) if end else (rest, "")
    try:
        netloc = normalise_authority(authority, scheme)
        path, query = split_rest(rest)
        path = percent_encode(path or "/")
        if may_hold_dot_segment(path):
            path = remove_dot_segments(path)
        url = f"{scheme}://{netloc}{path}"
        if query:
            url = f"{url}?{percent_encode(query)}"
    except (ValueError, InvalidLocation) as exc:
        raise ValueError(str(exc)) from None
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
