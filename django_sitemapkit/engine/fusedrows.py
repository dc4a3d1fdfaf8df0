"""The per-row loop of column rows, fused for the common case.

A model section reading column rows (``url_name`` + ``url_kwargs``) whose
changefreq and priority are constants spends most of its time in generic
steps that, for ordinary rows, do nothing: filling a URL template, checking
the location, escaping, converting and formatting a datetime. For a row whose
URL values are plain (``[A-Za-z0-9_-]``, the characters every built-in string
converter accepts and nothing ever encodes or escapes) and whose lastmod is
already in the site's time zone, those steps reduce to string concatenation,
and this loop does exactly that. Every other row goes through EntryFactory,
the general path, so the bytes are the same either way (the tests compare
both paths on awkward values).
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from django.db.models import FileField
from django.urls.converters import PathConverter, SlugConverter, StringConverter

from django_sitemapkit.engine.entries import EntryFactory
from django_sitemapkit.engine.imagesources import plain_file_prefix, target_field
from django_sitemapkit.engine.rows import database_is_utc, url_values_unique
from django_sitemapkit.protocol.images import image_element, images_xml
from django_sitemapkit.protocol.locations import MAX_URL_LENGTH
from django_sitemapkit.protocol.w3c import Lastmod, is_w3c_datetime, later
from django_sitemapkit.protocol.writer import UrlsetWriter
from django_sitemapkit.sitemaps import ModelSitemap

# Accepted by the str, slug and path converters, unchanged by quote(), the
# location rules and XML escaping, and free of dot segments.
_PLAIN_VALUE = re.compile(r"[A-Za-z0-9_-]+").fullmatch
_PLAIN_PATH = re.compile(r"/[A-Za-z0-9_~/-]*").fullmatch
_IDENTITY_CONVERTERS = (StringConverter, SlugConverter, PathConverter)
# An image path or a local storage's file name that no step of the general path changes.
_PLAIN_IMAGE_PATH = re.compile(r"/(?!/)[A-Za-z0-9_~./-]*").fullmatch
_PLAIN_NAME = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9_./-]*").fullmatch
_IMAGE_OPEN, _IMAGE_CLOSE = image_element("\0").split("\0")
_ZERO = datetime.timedelta(0)


class FusedRows:
    """Renders column rows straight into a writer; see the module docstring."""

    def __init__(
        self,
        factory: EntryFactory,
        base_url: str,
        parts: list[str],
        tail: str,
        url_columns: int,
        lastmod_column: int | None,
        lastmod_text: Callable[[Any], str | None],
        unique_values: bool = False,
        images: Callable[[Any], str | None] | None = None,
    ) -> None:
        # Sequences of URL values longer than one go through the general path.
        self.factory = factory
        self.base_url = base_url
        self.parts = parts
        self.tail = tail
        self.url_columns = url_columns
        self.lastmod_column = lastmod_column
        self.lastmod_text = lastmod_text
        # The URL's one value is a unique column: rows written here cannot
        # repeat a location, so they are only checked once a row of the
        # general path, whose normalisation might meet one of theirs, came.
        self.unique_values = unique_values
        # A plain image column's value -> the row's tail (None: not plain).
        self.images = images

    @classmethod
    def prepare(cls, sitemap: ModelSitemap, factory: EntryFactory) -> FusedRows | None:
        """The fused loop for this file, or None when the general path must run."""
        access = factory.access
        template = access.url_template
        if (
            callable(access.changefreq)
            or callable(access.priority)
            or (factory.has_extra_xml and not factory.extensions.plain_column)
            or template is None
        ):
            return None
        if template.parts is None or not all(
            type(c) in _IDENTITY_CONVERTERS for c in template.converters
        ):
            return None
        # The static parts must pass the location rules untouched.
        probe = "x".join(template.parts)
        locations = factory.context.locations
        if not _PLAIN_PATH(probe) or locations.build(probe) != locations.base_url + probe:
            return None
        field = sitemap.get_lastmod_field()
        url_columns = len(template.parts) - 1
        return cls(
            factory,
            locations.base_url,
            template.parts,
            factory.changefreq_xml + factory.priority_xml + "</url>\n",
            url_columns,
            None if field is None else 1 + url_columns,
            _lastmod_text(factory, db_is_utc=database_is_utc(sitemap)),
            unique_values=url_values_unique(sitemap),
            images=plain_image_tail(sitemap, factory),
        )

    def render(
        self, rows: Iterable[Sequence[Any]], writer: UrlsetWriter
    ) -> tuple[Lastmod | None, Any]:
        """Write ``rows``; returns (newest lastmod, key of the first row that did not fit)."""
        factory = self.factory
        base = self.base_url
        first, second = self.parts[0], self.parts[-1]
        single = len(self.parts) == 2
        tail, images = self.tail, self.images
        column, lastmod_text = self.lastmod_column, self.lastmod_text
        add, locs = writer.add_xml, writer.locs
        tracking = not self.unique_values
        # The newest lastmod is tracked as the raw value of the rows written
        # here (all of one type) and, apart, as converted values of the rows
        # the general path wrote; the two meet once, at the end.
        newest_raw: Any = None
        newest_row: Sequence[Any] | None = None
        newest_general: Lastmod | None = None
        overflow_key = None
        for row in rows:
            xml = raw = None
            value = row[1]
            if single and value.__class__ is str and _PLAIN_VALUE(value):
                loc = base + first + value + second
                row_tail = tail if images is None else images(row[-1])
                if row_tail is not None and len(loc) <= MAX_URL_LENGTH:
                    if column is None or (raw := row[column]) is None:
                        xml = f"<url><loc>{loc}</loc>{row_tail}"
                    else:
                        text = lastmod_text(raw)
                        if text is not None:
                            xml = f"<url><loc>{loc}</loc><lastmod>{text}</lastmod>{row_tail}"
            general = xml is None
            if xml is None:
                # Anything unusual: the general path decides (and logs skips).
                xml = factory(row)
                if xml is None:
                    writer.skip()
                    continue
                loc = factory.last_loc
                if not tracking:
                    locs.update(writer.written_locs())
                    tracking = True
            if tracking and loc in locs:
                factory.skip_duplicate(row, loc)
                writer.skip()
                continue
            if not add(xml, row[0]):
                overflow_key = row[0]
                break
            if tracking:
                locs.add(loc)
            if general:
                newest_general = later(newest_general, factory.last_lastmod, factory.tz)
            elif raw is not None and (newest_raw is None or raw > newest_raw):
                newest_raw, newest_row = raw, row
        if newest_row is not None:
            newest_general = later(newest_general, factory.lastmod(newest_row), factory.tz)
        return newest_general, overflow_key


def _lastmod_text(factory: EntryFactory, *, db_is_utc: bool) -> Callable[[Any], str | None]:
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
