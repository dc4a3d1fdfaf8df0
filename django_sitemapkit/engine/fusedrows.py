"""The per-row loop of column rows, fused for the common case.

A model section reading column rows (it has a URL route, routes.py) whose
changefreq and priority are constants spends most of its time in generic
steps that, for ordinary rows, do nothing: filling a URL template, checking
the location, escaping, converting and formatting a datetime. For a row whose
URL values are plain (``[A-Za-z0-9_-]``, the characters every built-in string
converter accepts and nothing ever encodes or escapes, or a non-negative
integer) and whose lastmod is already in the site's time zone, those steps
reduce to string concatenation, and this loop does exactly that, a whole
segment at a time where it can. Every other row goes through EntryFactory,
the general path, so the bytes are the same either way (the tests compare
both paths on awkward values).
"""

from __future__ import annotations

import datetime
import itertools
import operator
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from django.urls.converters import IntConverter, PathConverter, SlugConverter, StringConverter

from django_sitemapkit.engine.entries import EntryFactory
from django_sitemapkit.engine.plainvalues import lastmod_text, plain_image_tail, plain_segment
from django_sitemapkit.engine.rows import database_is_utc, url_values_unique
from django_sitemapkit.protocol.locations import MAX_URL_LENGTH
from django_sitemapkit.protocol.w3c import Lastmod, later
from django_sitemapkit.protocol.writer import SEGMENT_ENTRIES, UrlsetWriter
from django_sitemapkit.sitemaps import ModelSitemap

# Accepted by the str, slug and path converters, unchanged by quote(), the
# location rules and XML escaping, and free of dot segments.
_PLAIN_VALUE = re.compile(r"[A-Za-z0-9_-]+").fullmatch
_PLAIN_PATH = re.compile(r"/[A-Za-z0-9_~/-]*").fullmatch
_IDENTITY_CONVERTERS = (StringConverter, SlugConverter, PathConverter)
# A non-negative int is written as its digits by these and by the int converter.
_INT_CONVERTERS = (*_IDENTITY_CONVERTERS, IntConverter)
_KEY = operator.itemgetter(0)


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
        text_values: bool = True,
        utc_text: bool = False,
    ) -> None:
        # Sequences of URL values longer than one go through the general path.
        self.factory = factory
        self.base_url = base_url
        self.parts = parts
        # A plain entry up to its URL value; the longest value its location may take.
        self.head = f"<url><loc>{base_url}{parts[0]}"
        self.room = MAX_URL_LENGTH - len(base_url + "".join(parts))
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
        # Plain strings are written as they are (not for the int converter).
        self.text_values = text_values
        # lastmod is written as the database's UTC text, sliced.
        self.utc_text = utc_text

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
            type(c) in _INT_CONVERTERS for c in template.converters
        ):
            return None
        # The static parts must pass the location rules untouched.
        probe = "x".join(template.parts)
        locations = factory.context.locations
        if not _PLAIN_PATH(probe) or locations.build(probe) != locations.base_url + probe:
            return None
        field = sitemap.get_lastmod_field()
        url_columns = len(template.parts) - 1
        db_is_utc = database_is_utc(sitemap)
        return cls(
            factory,
            locations.base_url,
            template.parts,
            factory.changefreq_xml + factory.priority_xml + "</url>\n",
            url_columns,
            None if field is None else 1 + url_columns,
            lastmod_text(factory, db_is_utc=db_is_utc),
            unique_values=url_values_unique(sitemap),
            images=plain_image_tail(sitemap, factory),
            text_values=all(type(c) in _IDENTITY_CONVERTERS for c in template.converters),
            utc_text=db_is_utc and factory.tz is datetime.UTC and factory.date_only is False,
        )

    def render(
        self, rows: Iterable[Sequence[Any]], writer: UrlsetWriter
    ) -> tuple[Lastmod | None, Any]:
        """Write ``rows``; returns (newest lastmod, key of the first row that did not fit)."""
        state = _State(tracking=not self.unique_values)
        rows = iter(rows)
        if not state.tracking and self._runs_plain():
            rows = self._plain_runs(rows, writer, state)
        if state.overflow_key is None:
            for row in rows:
                if not self._write_row(row, writer, state):
                    break
        newest = state.newest_general
        if state.newest_row is not None:
            factory = self.factory
            newest = later(newest, factory.lastmod(state.newest_row), factory.tz)
        return newest, state.overflow_key

    def _runs_plain(self) -> bool:
        """Whether plain rows can be written in runs: one value, no images, lastmod as text."""
        return (
            len(self.parts) == 2
            and self.images is None
            and (self.lastmod_column is None or self.utc_text)
        )

    def _plain_runs(
        self, rows: Iterator[Sequence[Any]], writer: UrlsetWriter, state: _State
    ) -> Iterator[Sequence[Any]]:
        """Write rows a segment at a time while no location is tracked; the rows left.

        A segment whose every row is plain is checked at once and written by
        one comprehension; any other is written row by row.
        """
        while batch := list(itertools.islice(rows, SEGMENT_ENTRIES)):
            column = self.lastmod_column if self.text_values else None
            elements = plain_segment(batch, self.head, self.parts[1], self.tail, column, self.room)
            if elements is None:
                left = iter(batch)
                if not self._plain_run(left, writer, state):
                    return itertools.chain(left, rows)
            elif not self._flush(elements, batch, writer, state):
                break
        return rows

    def _plain_run(
        self, rows: Iterator[Sequence[Any]], writer: UrlsetWriter, state: _State
    ) -> bool:
        """Write rows while no location is tracked, plain ones a segment at a time; False when
        the rows left are for the caller (a location is tracked now, or a row did not fit)."""
        head = self.head
        middle = f"{self.parts[1]}</loc>"
        tail = self.tail
        room = self.room
        column, text_values = self.lastmod_column, self.text_values
        elements: list[str] = []
        pending: list[Sequence[Any]] = []
        add_element, add_row, plain = elements.append, pending.append, _PLAIN_VALUE
        for row in rows:
            value = row[1]
            xml = None
            if value.__class__ is str:
                if not (text_values and plain(value)):
                    value = None
            elif value.__class__ is int and value >= 0:
                value = str(value)
            else:
                value = None
            if value is not None and len(value) <= room:
                raw = None if column is None else row[column]
                if raw is None:
                    xml = f"{head}{value}{middle}{tail}"
                elif (
                    raw.__class__ is str
                    and len(raw) >= 19
                    and raw[10] == " "
                    and (len(raw) in (19, 26) or raw.endswith("+00"))
                ):
                    # The database's text of a UTC datetime, as lastmod_text() reads it.
                    xml = f"{head}{value}{middle}<lastmod>{raw[:10]}T{raw[11:19]}+00:00</lastmod>{tail}"
            if xml is not None:
                add_element(xml)
                add_row(row)
                if len(elements) < SEGMENT_ENTRIES:
                    continue
            if not self._flush(elements, pending, writer, state) or (
                xml is None and (not self._write_row(row, writer, state) or state.tracking)
            ):
                return False
        return self._flush(elements, pending, writer, state)

    def _flush(
        self,
        elements: list[str],
        pending: list[Sequence[Any]],
        writer: UrlsetWriter,
        state: _State,
    ) -> bool:
        """Add the pending plain elements; False (and the overflow key) when not all fit."""
        if not elements:
            return True
        taken = writer.add_entries(elements, list(map(_KEY, pending)))
        column = self.lastmod_column
        if column is not None:
            dated = [row for row in pending[:taken] if row[column] is not None]
            if dated:
                row = max(dated, key=operator.itemgetter(column))
                if state.newest_raw is None or row[column] > state.newest_raw:
                    state.newest_raw, state.newest_row = row[column], row
        fits = taken == len(elements)
        if not fits:
            state.overflow_key = pending[taken][0]
        elements.clear()
        pending.clear()
        return fits

    def _write_row(self, row: Sequence[Any], writer: UrlsetWriter, state: _State) -> bool:
        """Write one row (through the general path unless plain); False when it did not fit."""
        factory = self.factory
        xml = raw = None
        value = row[1]
        if len(self.parts) == 2 and (
            (value.__class__ is str and self.text_values and _PLAIN_VALUE(value))
            or (value.__class__ is int and value >= 0 and (value := str(value)))
        ):
            loc = self.base_url + self.parts[0] + value + self.parts[1]
            row_tail = self.tail if self.images is None else self.images(row[-1])
            if row_tail is not None and len(loc) <= MAX_URL_LENGTH:
                column = self.lastmod_column
                if column is None or (raw := row[column]) is None:
                    xml = f"<url><loc>{loc}</loc>{row_tail}"
                elif (text := self.lastmod_text(raw)) is not None:
                    xml = f"<url><loc>{loc}</loc><lastmod>{text}</lastmod>{row_tail}"
        general = xml is None
        if xml is None:
            # Anything unusual: the general path decides (and logs skips).
            xml = factory(row)
            if xml is None:
                writer.skip()
                return True
            loc = factory.last_loc
            if not state.tracking:
                writer.locs.update(writer.written_locs())
                state.tracking = True
        if state.tracking and loc in writer.locs:
            factory.skip_duplicate(row, loc)
            writer.skip()
            return True
        if not writer.add_xml(xml, row[0]):
            state.overflow_key = row[0]
            return False
        if state.tracking:
            writer.locs.add(loc)
        if general:
            state.newest_general = later(state.newest_general, factory.last_lastmod, factory.tz)
        elif raw is not None and (state.newest_raw is None or raw > state.newest_raw):
            state.newest_raw, state.newest_row = raw, row
        return True


@dataclass
class _State:
    """What rendering one file's rows has found so far."""

    # Whether written locations are kept to catch repeats (see FusedRows.unique_values).
    tracking: bool
    # The newest lastmod is tracked as the raw value of the rows written
    # here (all of one type) and, apart, as converted values of the rows
    # the general path wrote; the two meet once, at the end.
    newest_raw: Any = None
    newest_row: Sequence[Any] | None = None
    newest_general: Lastmod | None = None
    overflow_key: Any = None
