"""Values the fused loop (fusedrows.py) writes without the general path's steps.

A lastmod already in the site's time zone and an image path that no step
changes are written as they are; anything else returns None, and the row
goes through the general path.
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Callable, Sequence
from typing import Any

from django.db.models import FileField

from django_sitemapkit.engine.entries import EntryFactory
from django_sitemapkit.engine.imagesources import plain_file_prefix, target_field
from django_sitemapkit.protocol.extensionxml import image_element, images_xml
from django_sitemapkit.protocol.locations import MAX_URL_LENGTH
from django_sitemapkit.protocol.w3c import is_w3c_datetime
from django_sitemapkit.sitemaps import ModelSitemap

# An image path or a local storage's file name that no step of the general path changes.
_PLAIN_IMAGE_PATH = re.compile(r"/(?!/)[A-Za-z0-9_~./-]*").fullmatch
_PLAIN_NAME = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9_./-]*").fullmatch
# Plain URL values, and the database's text of UTC datetimes, one a line: a segment's
# at once. (SQLite and MySQL give six fraction digits or none, PostgreSQL "+00"
# after up to six.)
_PLAIN_VALUES = re.compile(r"[A-Za-z0-9_-]+(?:\n[A-Za-z0-9_-]+)*").fullmatch
_UTC_TEXT = r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d{6}|(?:\.\d{1,6})?\+00)?"
_UTC_TEXTS = re.compile(rf"{_UTC_TEXT}(?:\n{_UTC_TEXT})*").fullmatch
_IMAGE_OPEN, _IMAGE_CLOSE = image_element("\0").split("\0")
_ZERO = datetime.timedelta(0)


def lastmod_text(factory: EntryFactory, *, db_is_utc: bool) -> Callable[[Any], str | None]:
    """Format a raw database lastmod cheaply, or return None to defer to the general path."""
    tz = factory.tz
    text_ok = db_is_utc and tz is datetime.UTC
    date_only = factory.date_only

    def text(raw: Any) -> str | None:
        if raw is None or date_only:
            return None
        cls = raw.__class__
        if cls is str:
            # The database's text of a UTC datetime: "YYYY-MM-DD HH:MM:SS"
            # with six fractional digits or none (SQLite, MySQL), or any number
            # of them and "+00" (PostgreSQL in a UTC session).
            if (
                text_ok
                and len(raw) >= 19
                and raw[10] == " "
                and (len(raw) in (19, 26) or raw.endswith("+00"))
            ):
                return f"{raw[:10]}T{raw[11:19]}+00:00"
            return None
        if cls is datetime.datetime and (
            raw.tzinfo is tz
            # Any zone at offset zero writes the same text as UTC itself
            # (psycopg hands out ZoneInfo("UTC"), not datetime.UTC).
            or (tz is datetime.UTC and raw.tzinfo is not None and raw.utcoffset() == _ZERO)
        ):
            formatted: str = raw.isoformat(timespec="seconds")
            if is_w3c_datetime(formatted):
                return formatted
        return None

    return text


def plain_image_tail(
    sitemap: ModelSitemap, factory: EntryFactory
) -> Callable[[Any], str | None] | None:
    """For a plain image column: its value -> the entry's tail, or None for the general path.

    A plain value is a path (or a local storage's file name) of characters no
    step changes, so prefixing what the general path makes of a probe's
    directory is all it would do.
    """
    if not factory.extensions.plain_column:
        return None
    field = target_field(sitemap)
    to_url: Callable[[str], Any] = str
    plain, probe = _PLAIN_IMAGE_PATH, "/x/y.jpg"
    if isinstance(field, FileField):
        if plain_file_prefix(field) is None:
            return None
        plain, probe, to_url = _PLAIN_NAME, "x/y.jpg", field.storage.url
    made = images_xml([to_url(probe)], factory.context.locations.base_url).xml
    end = probe + _IMAGE_CLOSE
    if not made.startswith(_IMAGE_OPEN) or not made.endswith(end):
        return None
    prefix = made[len(_IMAGE_OPEN) : -len(end)]
    const = factory.changefreq_xml + factory.priority_xml
    empty = const + "</url>\n"

    def image_tail(value: Any) -> str | None:
        if value is None or value == "":
            return empty
        if value.__class__ is str and plain(value) and "/." not in value and "//" not in value:
            url = prefix + value
            if len(url) <= MAX_URL_LENGTH:
                return f"{const}{_IMAGE_OPEN}{url}{_IMAGE_CLOSE}</url>\n"
        return None

    return image_tail


def _alike_utc_texts(texts: str, count: int) -> bool:
    """Whether ``count`` lines of ``texts`` (newlines counted already) all have the one length
    of the database's UTC text, 19 or 26 characters, or end in "+00", with a space at 10: what
    the row-by-row loop slices. Checked by slicing the joined text, column by column."""
    width = texts.find("\n") if count > 1 else len(texts)
    step = width + 1
    if (
        width < 19
        or len(texts) != count * step - 1
        or texts[width::step] != "\n" * (count - 1)
        or texts[10::step] != " " * count
    ):
        return False
    if width in (19, 26):
        return True
    return texts[width - 3 :: step] + texts[width - 2 :: step] + texts[width - 1 :: step] == (
        "+" * count + "0" * (2 * count)
    )


def plain_segment(
    rows: list[Sequence[Any]],
    head: str,
    after_value: str,
    tail: str,
    column: int | None,
    room: int,
) -> list[str] | None:
    """The entries of a segment's ``rows`` if every one is plain, else None (row by row, then).

    Plain: a URL value of ``[A-Za-z0-9_-]`` at most ``room`` long, and a
    lastmod in the database's text of a UTC datetime (column ``column``).
    Checked for the whole segment at once: the values (and lastmods) joined
    by newlines, which none of them may hold, match one pattern. The entry
    is what the row-by-row loop writes for such a row: the text sliced.
    """
    if column is None:
        return None
    values = [row[1] for row in rows]
    try:
        joined, texts = "\n".join(values), "\n".join([row[column] for row in rows])
    except TypeError:  # a value or lastmod that is not text
        return None
    lines = len(rows) - 1
    if not (
        _PLAIN_VALUES(joined)
        and joined.count("\n") == lines
        and texts.count("\n") == lines
        and (_alike_utc_texts(texts, len(rows)) or _UTC_TEXTS(texts))
        and max(map(len, values)) <= room
    ):
        return None
    middle = f"{after_value}</loc><lastmod>"
    end = f"+00:00</lastmod>{tail}"
    return [f"{head}{row[1]}{middle}{row[column][:10]}T{row[column][11:19]}{end}" for row in rows]
