"""The fast loop: a model section's column rows written with string concatenation.

A section reading column rows (it has a URL route, routes.py) spends most of
its time in generic steps that, for ordinary rows, do nothing: filling a URL
template, checking the location, escaping, converting and formatting a
datetime. For a row whose one URL value is plain (``[A-Za-z0-9_-]``, which
every built-in string converter accepts and nothing ever encodes or escapes,
or a non-negative integer), whose lastmod is already in the site's time zone
and whose changefreq, priority and image columns hold values no step changes,
those steps reduce to concatenation, and this loop does exactly that. Every
other row goes through the EntryFactory, the general path, so the bytes are
the same either way (the tests compare both paths on awkward values).
"""

from __future__ import annotations

import contextlib
import datetime
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from django.db.models import FileField
from django.urls.converters import IntConverter, PathConverter, SlugConverter, StringConverter

from django_sitemapkit.engine.entries import EntryFactory
from django_sitemapkit.engine.extensions import plain_file_prefix, target_field
from django_sitemapkit.engine.rows import RowLayout, database_is_utc, url_values_unique
from django_sitemapkit.protocol.images import image_element, images_xml
from django_sitemapkit.protocol.locations import MAX_URL_LENGTH
from django_sitemapkit.protocol.w3c import Lastmod, is_w3c_datetime, later
from django_sitemapkit.protocol.writer import (
    CHANGEFREQS,
    UrlsetWriter,
    format_priority,
    priority_value,
    url_element,
)
from django_sitemapkit.sitemaps import ModelSitemap

# Accepted by the str, slug and path converters, unchanged by quote(), the
# location rules and XML escaping, and free of dot segments.
_PLAIN_VALUE = re.compile(r"[A-Za-z0-9_-]+").fullmatch
_PLAIN_PATH = re.compile(r"/[A-Za-z0-9_~/-]*").fullmatch
# An image path or a local storage's file name that no step of the general path changes.
_PLAIN_IMAGE_PATH = re.compile(r"/(?!/)[A-Za-z0-9_~./-]*").fullmatch
_PLAIN_NAME = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9_./-]*").fullmatch
_IDENTITY_CONVERTERS = (StringConverter, SlugConverter, PathConverter)
# A non-negative int is written as its digits by these and by the int converter.
_INT_CONVERTERS = (*_IDENTITY_CONVERTERS, IntConverter)
_IMAGE_OPEN, _IMAGE_CLOSE = image_element("\0").split("\0")
_ZERO = datetime.timedelta(0)

RowDetails = Callable[[Sequence[Any]], str | None]


@dataclass
class RowsRead:
    """What the rows a render read say, skipped ones included: how many, the newest lastmod,
    and whether one had none (its lastmod column was NULL)."""

    count: int = 0
    newest: Lastmod | None = None
    undated: bool = False


class FastLoop:
    """Writes column rows into a writer; see the module docstring."""

    def __init__(self, factory: EntryFactory, layout: RowLayout, parts: list[str]) -> None:
        self.factory = factory
        self.layout = layout
        base_url = factory.context.locations.base_url
        # A plain entry is head + value + middle + [<lastmod>] + details + end:
        # the one <url> assembler's element, cut around what varies.
        element = url_element(f"{base_url}{parts[0]}\0{parts[1]}", "\1", "\2")
        self.head, rest = element.split("\0")
        self.middle, rest = rest.split("\1")
        self.end = rest.removeprefix("\2")
        # The longest URL value a location may take.
        self.room = MAX_URL_LENGTH - len(base_url + "".join(parts))
        self.details = factory.changefreq_xml + factory.priority_xml
        self.row_details = row_details(factory, layout)
        sitemap: Any = factory.sitemap
        self.lastmod_text = lastmod_text(factory, db_is_utc=database_is_utc(sitemap))
        template = factory.access.url_template
        assert template is not None
        # Plain strings are written as they are (not for the int converter).
        self.text_values = all(type(c) in _IDENTITY_CONVERTERS for c in template.converters)
        # Rows whose URL's one value is a unique column cannot repeat a location:
        # locations are tracked only once a row of the general path came.
        self.tracking = not url_values_unique(sitemap)
        self.read = RowsRead()

    @classmethod
    def prepare(cls, sitemap: ModelSitemap, factory: EntryFactory) -> FastLoop | None:
        """The fast loop for this file, or None when the general path must run."""
        template, layout = factory.access.url_template, factory.access.layout
        if (
            template is None
            or layout is None
            or template.parts is None
            or len(template.parts) != 2
            or type(template.converters[0]) not in _INT_CONVERTERS
            or (factory.has_extra_xml and not factory.extensions.plain_column)
        ):
            return None
        # The static parts must pass the location rules untouched.
        probe = "x".join(template.parts)
        locations = factory.context.locations
        if not _PLAIN_PATH(probe) or locations.build(probe) != locations.base_url + probe:
            return None
        return cls(factory, layout, template.parts)

    def entry(self, row: Sequence[Any]) -> str | None:
        """The ``<url>`` of a plain row; None for a row the general path must write."""
        value = row[1]
        if value.__class__ is int and value >= 0:
            value = str(value)
        elif not (value.__class__ is str and self.text_values and _PLAIN_VALUE(value)):
            return None
        if len(value) > self.room:
            return None
        details = self.details if self.row_details is None else self.row_details(row)
        if details is None:
            return None
        column = self.layout.lastmod
        if column is None:
            return f"{self.head}{value}{self.middle}{details}{self.end}"
        raw = row[column]
        if raw is None:
            self.read.undated = True
            return f"{self.head}{value}{self.middle}{details}{self.end}"
        text = self.lastmod_text(raw)
        if text is None:
            return None
        return f"{self.head}{value}{self.middle}<lastmod>{text}</lastmod>{details}{self.end}"

    def render(
        self, rows: Iterable[Sequence[Any]], writer: UrlsetWriter
    ) -> tuple[Lastmod | None, Any]:
        """Write ``rows``; returns (newest lastmod written, key of the first row that did not
        fit). ``read`` then holds what the rows before that one said."""
        factory, entry, column, tz = self.factory, self.entry, self.layout.lastmod, self.factory.tz
        self.read = read = RowsRead()
        skipped = factory.skipped
        # The newest lastmod of the plain rows, compared as the database's raw
        # values (all of one type), and apart, of the general path's rows.
        newest_raw = newest_row = newest = overflow_key = None
        for row in rows:
            xml = entry(row)
            general = xml is None
            if general:
                xml = self._general(row, writer)
                if xml is None:
                    continue
            if self.tracking and self._repeated(row, xml, general, writer.locs):
                continue
            if not writer.add_xml(xml):
                overflow_key = row[0]
                break
            if general:
                newest = later(newest, factory.last_lastmod, tz)
            elif (
                column is not None
                and (raw := row[column]) is not None
                and (newest_raw is None or raw > newest_raw)
            ):
                newest_raw, newest_row = raw, row
        if newest_row is not None:
            newest = later(newest, factory.lastmod(newest_row), tz)
        read.count = writer.count + factory.skipped - skipped
        read.newest = later(read.newest, newest, tz)
        return newest, overflow_key

    def _general(self, row: Sequence[Any], writer: UrlsetWriter) -> str | None:
        """The row's entry by the general path; None (logged) when it is skipped."""
        xml = self.factory(row)
        column = self.layout.lastmod
        if column is not None and row[column] is None:
            self.read.undated = True
        if xml is None:
            self._read_skipped(row)
        elif not self.tracking:
            # Its location, normalised, might be one a plain row wrote.
            writer.locs.update(writer.written_locs())
            self.tracking = True
        return xml

    def _repeated(self, row: Sequence[Any], xml: str, general: bool, locs: set[str]) -> bool:
        """Whether the row's location is listed already (the row is skipped); else it is now."""
        loc = self.factory.last_loc if general else xml[_LOC_AT : xml.index("</loc>", _LOC_AT)]
        if loc in locs:
            self.factory.skip_duplicate(row, loc)
            self._read_skipped(row)
            return True
        locs.add(loc)
        return False

    def _read_skipped(self, row: Sequence[Any]) -> None:
        """Count a skipped row's lastmod among those read (see RowsRead)."""
        if self.layout.lastmod is None:
            return
        with contextlib.suppress(TypeError, ValueError):  # a lastmod the general path refused
            self.read.newest = later(self.read.newest, self.factory.lastmod(row), self.factory.tz)


# Where a plain entry's location starts: url_element() writes "<url><loc>" first.
_LOC_AT = len("<url><loc>")


def row_details(factory: EntryFactory, layout: RowLayout) -> RowDetails | None:
    """A row's changefreq, priority and image from its columns, or None when none comes from
    a column; the function answers None for a value the general path must judge (and log)."""
    if layout.changefreq is None and layout.priority is None and layout.image is None:
        return None
    changefreq_at, priority_at, image_at = layout.changefreq, layout.priority, layout.image
    changefreqs: dict[Any, str] = {c: f"<changefreq>{c}</changefreq>" for c in CHANGEFREQS}
    changefreqs[None] = ""
    priorities: dict[Any, str] = {None: ""}
    images = None if image_at is None else image_xml(factory)
    if image_at is not None and images is None:
        return lambda row: None  # images the general path makes of every value

    def priority(raw: Any) -> str | None:
        xml = priorities.get(raw) if raw.__class__ is not bool else None
        if xml is None:
            try:
                xml = f"<priority>{format_priority(priority_value(raw))}</priority>"
            except ValueError:
                return None
            priorities[raw] = xml
        return xml

    def details(row: Sequence[Any]) -> str | None:
        changefreq = (
            factory.changefreq_xml if changefreq_at is None else changefreqs.get(row[changefreq_at])
        )
        priority_xml = factory.priority_xml if priority_at is None else priority(row[priority_at])
        image = "" if images is None else images(row[image_at])  # type: ignore[index]
        if changefreq is None or priority_xml is None or image is None:
            return None
        return changefreq + priority_xml + image

    return details


def lastmod_text(factory: EntryFactory, *, db_is_utc: bool) -> Callable[[Any], str | None]:
    """Format a raw database lastmod (not None) cheaply, or return None to defer to the general
    path."""
    tz = factory.tz
    text_ok = db_is_utc and tz is datetime.UTC
    date_only = factory.date_only

    def text(raw: Any) -> str | None:
        if date_only:
            return None
        if raw.__class__ is str:
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
        if raw.__class__ is datetime.datetime and (
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


def image_xml(factory: EntryFactory) -> Callable[[Any], str | None] | None:
    """For a plain image column: its value -> the entry's image element ("" for none), or
    None for the general path; None when the column's values are never plain.

    A plain value is a path (or a local storage's file name) of characters no
    step changes, so prefixing what the general path makes of a probe's
    directory is all it would do.
    """
    if not factory.extensions.plain_column:
        return None
    field = target_field(factory.sitemap)  # type: ignore[arg-type]
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

    def image(value: Any) -> str | None:
        if value is None or value == "":
            return ""
        if value.__class__ is str and plain(value) and "/." not in value and "//" not in value:
            url = prefix + value
            if len(url) <= MAX_URL_LENGTH:
                return f"{_IMAGE_OPEN}{url}{_IMAGE_CLOSE}"
        return None

    return image
