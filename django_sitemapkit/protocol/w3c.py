"""W3C Datetime (https://www.w3.org/TR/NOTE-datetime) values for ``<lastmod>``.

Two shapes are written, and only two, so that consumers and tests see one
format everywhere:

* ``YYYY-MM-DD`` for dates;
* ``YYYY-MM-DDThh:mm:ss+hh:mm`` for datetimes, always with seconds, never
  with fractional seconds (truncated: a page is not "modified" in the future
  because of rounding) and never with ``Z`` (UTC is ``+00:00``).

Time-zone rules (``tz`` is the site's zone, normally Django's TIME_ZONE):

* aware datetimes are converted to ``tz``; the instant is unchanged;
* naive datetimes are wall-clock times in ``tz``, resolved with PEP 495
  semantics.  Their ``fold`` attribute is 0 unless the caller set it, so an
  ambiguous time (the repeated hour when clocks go back) means its first
  occurrence, and a time that does not exist (the skipped hour when clocks go
  forward) takes the offset in force before the change; it is then written
  as the real local time of that instant (Europe/Paris 2024-03-31 02:30 ->
  ``03:30:00+02:00``), so the output never shows a time clocks did not show;
* offsets that are not whole minutes (local mean time in old tzdata
  entries, e.g. Europe/Paris before 1911 is +00:09:21) cannot be written in
  ``+hh:mm``.  The offset is rounded to the nearest minute (half a minute
  rounds up) and the *same instant* is expressed in that offset, so the
  written instant is exact to the second; only the wall-clock reading moves
  by up to 30 seconds.  Dates written as datetimes are the exception: their
  ``T00:00:00`` is kept and the instant moves, so the day never changes;
* offsets beyond the +-14:00 XML Schema accepts (only local mean time of a
  few zones before 1900, e.g. Asia/Manila at -15:56) are written in UTC,
  again the same instant.

These functions run once per URL, so they lean on ``datetime.isoformat()``
(implemented in C) rather than strftime or string building in Python.
"""

from __future__ import annotations

import datetime

__all__ = [
    "W3C_DATETIME_LENGTH",
    "Lastmod",
    "format_datetime",
    "format_lastmod",
    "is_w3c_datetime",
    "later",
    "to_aware",
]

# What a lastmod may be: a date, or a datetime (naive ones are read in the site's zone).
Lastmod = datetime.datetime | datetime.date

_UTC = datetime.UTC
_MINUTE_US = 60_000_000
#: Length of "YYYY-MM-DDThh:mm:ss+hh:mm": any other length needs the general formatter.
W3C_DATETIME_LENGTH = 25
# The largest offset XML Schema (hence the sitemap XSD) accepts.
_MAX_OFFSET = datetime.timedelta(hours=14)
# The ends of what a datetime can hold in UTC.
_EARLIEST = datetime.datetime.min.replace(tzinfo=_UTC)
_LATEST = datetime.datetime.max.replace(tzinfo=_UTC)


def _localize(value: datetime.datetime, tz: datetime.tzinfo) -> datetime.datetime:
    """Read ``value``'s wall-clock time in ``tz``, moving it out of a DST gap.

    Any tzinfo already on ``value`` is replaced (callers pass naive values).
    """
    aware = value.replace(tzinfo=tz)
    if isinstance(tz, datetime.timezone):
        # Fixed offsets have no gaps: nothing to resolve.
        return aware
    # A UTC round trip maps a nonexistent wall time (in a DST gap) to the
    # wall time of the same instant, and is a no-op for every other time
    # (fold included).  Measured, it is cheaper than first testing whether
    # the offset depends on ``fold``, which needs another replace().
    return aware.astimezone(_UTC).astimezone(tz)


def _in_zone(value: datetime.datetime, tz: datetime.tzinfo) -> datetime.datetime:
    """``value`` as an aware datetime in ``tz`` (see the module docstring)."""
    tzinfo = value.tzinfo
    if tzinfo is tz:
        # Already in the zone; this also keeps a caller's fold untouched.
        return value
    if tzinfo is None or value.utcoffset() is None:
        # utcoffset() None means naive even with a tzinfo (Python's rule);
        # astimezone() would wrongly read such values as system local time.
        return _localize(value, tz)
    return value.astimezone(tz)


def _representable(value: datetime.datetime, *, keep_wall_clock: bool) -> datetime.datetime:
    """``value`` in an offset that ``+hh:mm`` can write validly.

    By default the instant is kept and the wall-clock reading adjusted; with
    ``keep_wall_clock`` (used for dates, whose day matters more than their
    instant) the reading is kept and the instant moves instead.
    """
    offset = value.utcoffset()
    if offset is None:  # pragma: no cover - callers pass aware values
        return value
    total_us = (offset.days * 86_400 + offset.seconds) * 1_000_000 + offset.microseconds
    # Round half up on whole minutes; floor division keeps negative offsets right.
    rounded = datetime.timedelta(
        microseconds=(total_us + _MINUTE_US // 2) // _MINUTE_US * _MINUTE_US
    )
    if abs(rounded) > _MAX_OFFSET:
        # XML Schema only allows offsets up to 14:00; a few zones' local
        # mean time before 1900 went beyond (Asia/Manila was -15:56).  UTC
        # is always valid.
        if keep_wall_clock:
            return value.replace(tzinfo=_UTC)
        return value.astimezone(_UTC)
    if keep_wall_clock:
        return value.replace(tzinfo=datetime.timezone(rounded))
    wall = value.replace(tzinfo=None) - offset + rounded
    return wall.replace(tzinfo=datetime.timezone(rounded))


def is_w3c_datetime(text: str) -> bool:
    """Whether ``isoformat(timespec="seconds")`` of an aware datetime can be written as it is.

    Years always have four digits, so any other length means an offset with
    seconds ("+00:09:21").  Comparing the "hh:mm" text checks the 14:00 limit
    without another utcoffset() call.
    """
    return len(text) == W3C_DATETIME_LENGTH and text[20:] <= "14:00"


def _isoformat(value: datetime.datetime, *, keep_wall_clock: bool = False) -> str:
    # isoformat(timespec="seconds") truncates microseconds and writes the
    # offset as +hh:mm, never "Z".  It is the fastest formatter measured
    # (C code; faster than strftime or an f-string of the fields).
    text = value.isoformat(timespec="seconds")
    if is_w3c_datetime(text):
        return text
    return _representable(value, keep_wall_clock=keep_wall_clock).isoformat(timespec="seconds")


def format_datetime(value: datetime.datetime, tz: datetime.tzinfo) -> str:
    """``'YYYY-MM-DDThh:mm:ss+hh:mm'`` in time zone ``tz``.

    Aware values are converted to ``tz`` (same instant), naive values are
    taken to be in ``tz``.  Fractional seconds are truncated; UTC is written
    ``+00:00``.  Offsets with seconds are rounded to the minute and the
    instant re-expressed in the rounded offset, keeping it exact to the
    second; offsets beyond XML Schema's 14:00 are written in UTC instead.
    """
    return _isoformat(_in_zone(value, tz))


def format_lastmod(
    value: datetime.date | datetime.datetime, tz: datetime.tzinfo, *, date_only: bool
) -> str:
    """Format a ``lastmod`` value as a date or a datetime.

    Raises OverflowError or ValueError when the value cannot be expressed in
    ``tz`` (its local reading would fall before year 1 or after year 9999).

    ``date_only=True``: a datetime is converted to ``tz`` and its local date
    written (a change at 23:30 in Tokyo is dated in Tokyo, not on the UTC
    day); a date is written as is.  ``date_only=False``: a date becomes
    midnight of that day in ``tz`` (the day itself is kept), a datetime is
    written as :func:`format_datetime` does.
    """
    if isinstance(value, datetime.datetime):
        if date_only:
            return _in_zone(value, tz).date().isoformat()
        return format_datetime(value, tz)
    if date_only:
        return value.isoformat()
    # Midnight is already in tz; keeping its wall clock when the offset needs
    # rounding stops 00:00+00:09:21 from becoming 23:59:39 the day before.
    return _isoformat(_midnight(value, tz), keep_wall_clock=True)


def _midnight(value: datetime.date, tz: datetime.tzinfo) -> datetime.datetime:
    # Where a DST change happens at midnight (e.g. America/Havana), 00:00
    # does not exist; _localize moves it to 01:00 of the same day.
    return _localize(datetime.datetime(value.year, value.month, value.day), tz)


def to_aware(value: datetime.date | datetime.datetime, tz: datetime.tzinfo) -> datetime.datetime:
    """An aware datetime for comparisons (e.g. the max of several lastmods).

    A date becomes midnight of that day in ``tz``; a naive datetime is taken
    to be in ``tz``; an aware datetime is returned unchanged. A value whose
    instant lies outside what ``datetime`` holds in UTC (``0001-01-01 00:00``
    in a zone ahead of UTC, ``9999-12-31 23:59`` in one behind) becomes the
    nearest end of that range instead, so that it can still be compared,
    stored as a timestamp and sent as an HTTP date.

    Note that Python compares two datetimes sharing the *same* tzinfo object
    by wall-clock time, ignoring ``fold``; only values inside a repeated DST
    hour can compare differently from their instants.
    """
    try:
        if isinstance(value, datetime.datetime):
            aware = value if value.utcoffset() is not None else _localize(value, tz)
        else:
            aware = _midnight(value, tz)
        if aware.year in (1, 9999):
            aware.astimezone(_UTC)  # raises where the instant is out of range
    except (OverflowError, ValueError):
        return _EARLIEST if value.year == 1 else _LATEST
    return aware


def later(
    newest: datetime.date | datetime.datetime | None,
    value: datetime.date | datetime.datetime | None,
    tz: datetime.tzinfo,
) -> datetime.date | datetime.datetime | None:
    """The later of two lastmods (None ignored), compared as they are when their types allow.

    Comparing the values directly is the cheap common case; a date against a
    datetime, or naive against aware, is compared as aware datetimes in ``tz``.
    """
    if value is None:
        return newest
    if newest is None:
        return value
    try:
        return value if value > newest else newest
    except TypeError:
        return value if to_aware(value, tz) > to_aware(newest, tz) else newest
