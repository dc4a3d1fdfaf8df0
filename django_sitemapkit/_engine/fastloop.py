"""The fast loop: column rows no general-path step would change (plain URL value and details, a
lastmod in the site's zone) are concatenated; others take the EntryFactory: same bytes, tested."""

from __future__ import annotations

import datetime
import re
from collections.abc import Callable, Iterable, Sequence
from itertools import islice
from typing import Any

from django.db.models import FileField
from django.urls.converters import IntConverter, PathConverter, SlugConverter, StringConverter

from django_sitemapkit._engine.entries import EntryFactory
from django_sitemapkit._engine.extensions import plain_file_prefix, target_field
from django_sitemapkit._engine.rows import RowLayout, database_is_utc, url_values_unique
from django_sitemapkit._protocol.extensionxml import image_element, images_xml
from django_sitemapkit._protocol.locations import MAX_URL_LENGTH
from django_sitemapkit._protocol.w3c import Lastmod, is_w3c_datetime, later
from django_sitemapkit._protocol.writer import (
    CHANGEFREQS,
    UrlsetWriter,
    format_priority,
    priority_value,
    url_element,
)

# Passed by str/slug/path converters, quote(), location rules, escaping unchanged; no dot segments.
_PLAIN_VALUE = re.compile(r"[A-Za-z0-9_-]+").fullmatch
_PLAIN_PATH = re.compile(r"/[A-Za-z0-9_~/-]*").fullmatch
# An image path or a local storage's file name that no step of the general path changes.
_PLAIN_IMAGE_PATH = re.compile(r"/(?!/)[A-Za-z0-9_~./-]*").fullmatch
_PLAIN_NAME = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9_./-]*").fullmatch
# One a line: the database's UTC datetime text (SQLite, MySQL: 0 or 6 fraction digits; PG: "+00").
_PLAIN_VALUES = re.compile(r"[A-Za-z0-9_-]+(?:\n[A-Za-z0-9_-]+)*").fullmatch
_UTC_TEXT = r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d{6}|(?:\.\d{1,6})?\+00)?"
_UTC_TEXTS = re.compile(rf"{_UTC_TEXT}(?:\n{_UTC_TEXT})*").fullmatch
_IDENTITY_CONVERTERS = (StringConverter, SlugConverter, PathConverter)
_INT_CONVERTERS = (*_IDENTITY_CONVERTERS, IntConverter)  # each writes an int >= 0 as its digits
_IMAGE_OPEN, _IMAGE_CLOSE = image_element("\0").split("\0")
_ZERO = datetime.timedelta(0)
_CHUNK = 2000

RowDetails = Callable[[Sequence[Any]], str | None]


class FastLoop:
    def __init__(self, factory: EntryFactory, layout: RowLayout, parts: list[str]) -> None:
        self.factory = factory
        self.layout = layout
        base_url = factory.context.locations.base_url
        # A plain entry is head + value + middle + [<lastmod>] + details + end.
        element = url_element(f"{base_url}{parts[0]}\0{parts[1]}", "\1", "\2")
        self.head, rest = element.split("\0")
        self.middle, rest = rest.split("\1")
        self.end = rest.removeprefix("\2")
        self.room = MAX_URL_LENGTH - len(base_url + "".join(parts))
        self.details = factory.constant_details
        self.row_details = row_details(factory, layout)
        sitemap: Any = factory.sitemap
        db_is_utc = database_is_utc(sitemap)
        self.lastmod_text = lastmod_text(factory, db_is_utc=db_is_utc)
        template = factory.access.url_template
        assert template is not None
        self.text_values = all(type(c) in _IDENTITY_CONVERTERS for c in template.converters)
        # A unique URL column cannot repeat a location: tracked only once a general-path row came.
        self.tracking = not url_values_unique(sitemap, layout)
        self.newest: Lastmod | None = None
        self.utc_text = db_is_utc and factory.tz is datetime.UTC and factory.date_only is False
        self.newest_raw: Any = None
        self.newest_row: Sequence[Any] | None = None
        self.entry = plain_entries(self)

    @classmethod
    def prepare(cls, factory: EntryFactory) -> FastLoop | None:
        template, layout = factory.access.url_template, factory.access.layout
        if (
            template is None
            or layout is None
            or template.parts is None
            or len(template.parts) != 2
            or type(template.converters[0]) not in _INT_CONVERTERS
            or (factory.extensions.active and not factory.extensions.plain_column)
        ):
            return None
        probe = "x".join(template.parts)  # the static parts must pass the location rules untouched
        locations = factory.context.locations
        if not _PLAIN_PATH(probe) or locations.build(probe) != locations.base_url + probe:
            return None
        # Plain entries are counted a byte a character.
        return cls(factory, layout, template.parts) if locations.base_url.isascii() else None

    def render(
        self, rows: Iterable[Sequence[Any]], writer: UrlsetWriter
    ) -> tuple[Lastmod | None, Any]:
        """Write ``rows``: (newest lastmod written, key of the first row that did not fit)."""
        rows, overflow_key = iter(rows), None
        while overflow_key is None and (chunk := list(islice(rows, _CHUNK))):
            if not self._all_plain(chunk, writer):  # all-plain: one comprehension (1/3 of the time)
                overflow_key = self._each(chunk, writer)
        if self.newest_row is None:
            return self.newest, overflow_key
        factory = self.factory
        return later(self.newest, factory.lastmod(self.newest_row), factory.tz), overflow_key

    def _all_plain(self, chunk: list[Sequence[Any]], writer: UrlsetWriter) -> bool:
        """Write ``chunk`` at once if every row is plain, UTC-text dated, unrepeatable and fits."""
        column = self.layout.lastmod
        if self.row_details is not None or self.tracking or not self.utc_text or column is None:
            return False
        columns = _plain_chunk(chunk, column, self.room)
        if columns is None:
            return False
        head, middle = self.head, f"{self.middle}<lastmod>"
        end = f"+00:00</lastmod>{self.details}{self.end}"
        xmls = [f"{head}{v}{middle}{t[:10]}T{t[11:19]}{end}" for v, t in zip(*columns, strict=True)]
        if not writer.add_entries(xmls, sum(map(len, xmls))):
            return False
        newest = max(columns[1])
        if self.newest_raw is None or newest > self.newest_raw:
            self.newest_raw, self.newest_row = newest, chunk[columns[1].index(newest)]
        return True

    def _each(self, rows: list[Sequence[Any]], writer: UrlsetWriter) -> Any:
        column, entry = self.layout.lastmod, self.entry
        batch: list[str] = []  # added at once: a writer's call per row costs more than the row
        size, room, space = 0, writer.max_entries - writer.count, writer.max_bytes - writer.size
        newest_raw, newest_row, overflow_key = self.newest_raw, self.newest_row, None
        for row in rows:
            xml = entry(row)
            if xml is None:
                writer.add_entries(batch, size)
                batch, size = [], 0
                if not self._general(row, writer):
                    overflow_key = row[0]
                    break
                room, space = writer.max_entries - writer.count, writer.max_bytes - writer.size
                continue
            if self.tracking:  # a location listed already is skipped
                loc = xml[_LOC_AT : xml.index("</loc>", _LOC_AT)]
                if loc in writer.locs:
                    self.factory.skip_duplicate(row, loc)
                    continue
                writer.locs.add(loc)
            if len(batch) >= room or size + len(xml) > space:
                overflow_key = row[0]
                break
            batch.append(xml)
            size += len(xml)
            if (
                column is not None
                and (raw := row[column]) is not None
                and (newest_raw is None or raw > newest_raw)
            ):
                newest_raw, newest_row = raw, row
        writer.add_entries(batch, size)
        self.newest_raw, self.newest_row = newest_raw, newest_row
        return overflow_key

    def _general(self, row: Sequence[Any], writer: UrlsetWriter) -> bool:
        """Write the row by the general path (or skip it, logged); False when it did not fit."""
        factory = self.factory
        xml = factory(row)
        if xml is None:
            return True
        if not self.tracking:  # its location, normalised, might be one a plain row wrote
            writer.locs.update(writer.written_locs())
            self.tracking = True
        loc = factory.last_loc
        if loc in writer.locs:
            factory.skip_duplicate(row, loc)
            return True
        if not writer.add_xml(xml):
            return False
        writer.locs.add(loc)
        self.newest = later(self.newest, factory.last_lastmod, factory.tz)
        return True


def _plain_chunk(
    rows: list[Sequence[Any]], column: int, room: int
) -> tuple[list[str], list[str]] | None:
    """The rows' URL values and lastmods if all are plain (values ``room`` long at most, lastmods
    UTC text), else None: checked at once on them joined by newlines, which none may hold."""
    values, lastmods = [row[1] for row in rows], [row[column] for row in rows]
    try:
        joined, texts = "\n".join(values), "\n".join(lastmods)
    except TypeError:  # a value or lastmod that is not text
        return None
    lines = len(rows) - 1
    plain = (
        _PLAIN_VALUES(joined)
        and joined.count("\n") == lines
        and texts.count("\n") == lines
        and (_alike_utc_texts(texts, len(rows)) or _UTC_TEXTS(texts))
        and max(map(len, values)) <= room
    )
    return (values, lastmods) if plain else None


def _alike_utc_texts(texts: str, count: int) -> bool:
    """Whether ``texts``' lines share a length, 19, 26 or ending "+00", space at 10 (by slicing)."""
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


def plain_entries(loop: FastLoop) -> Callable[[Sequence[Any]], str | None]:
    """``loop``'s entry of a plain row (None: the general path's), everything bound as it runs per
    row; UTC text of SQLite's and MySQL's lengths is sliced here, else by lastmod_text()."""
    head, middle, end, room = loop.head, loop.middle, loop.end, loop.room
    column, constant, row_details = loop.layout.lastmod, loop.details, loop.row_details
    text_of, text_values, plain = loop.lastmod_text, loop.text_values, _PLAIN_VALUE
    sliced = frozenset({19, 26} if loop.utc_text else ())

    def entry(row: Sequence[Any]) -> str | None:
        value = row[1]
        if value.__class__ is int and value >= 0:
            value = str(value)
        elif not (value.__class__ is str and text_values and plain(value)):
            return None
        details = constant if row_details is None else row_details(row)
        if len(value) > room or details is None:
            return None
        raw = None if column is None else row[column]
        text: str | None
        if raw.__class__ is str and len(raw) in sliced and raw[10] == " ":
            text = f"{raw[:10]}T{raw[11:19]}+00:00"
        elif raw is None:
            return f"{head}{value}{middle}{details}{end}"
        elif (text := text_of(raw)) is None:
            return None
        return f"{head}{value}{middle}<lastmod>{text}</lastmod>{details}{end}"

    return entry


_LOC_AT = len("<url><loc>")  # where url_element() starts a location


def row_details(factory: EntryFactory, layout: RowLayout) -> RowDetails | None:
    """A row's column details (None: no column has any); None per value the general path judges."""
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
    """Format a raw database lastmod (not None) cheaply; None defers to the general path."""
    tz = factory.tz
    text_ok = db_is_utc and tz is datetime.UTC
    date_only = factory.date_only

    def text(raw: Any) -> str | None:
        if date_only:
            return None
        if raw.__class__ is str:
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
            # Any zone at offset zero writes as UTC (psycopg hands out ZoneInfo("UTC")).
            or (tz is datetime.UTC and raw.tzinfo is not None and raw.utcoffset() == _ZERO)
        ):
            formatted: str = raw.isoformat(timespec="seconds")
            if is_w3c_datetime(formatted):
                return formatted
        return None

    return text


def image_xml(factory: EntryFactory) -> Callable[[Any], str | None] | None:
    """A plain image column's value -> its image element ("", None: the general path's); None when
    no value is plain. A plain value needs only the prefix the general path gives a probe."""
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
    if not prefix.isascii():
        return None

    def image(value: Any) -> str | None:
        if value is None or value == "":
            return ""
        if value.__class__ is str and plain(value) and "/." not in value and "//" not in value:
            url = prefix + value
            if len(url) <= MAX_URL_LENGTH:
                return f"{_IMAGE_OPEN}{url}{_IMAGE_CLOSE}"
        return None

    return image
