"""W3C Datetime values for ``<lastmod>``: ``YYYY-MM-DD`` or ``YYYY-MM-DDThh:mm:ss+hh:mm`` (seconds
truncated, so rounding never dates a page in the future), in ``tz``, the site's zone. Naive
datetimes are wall-clock times in ``tz`` (PEP 495); one in a DST gap is written as the real local
time of that instant (Paris 2024-03-31 02:30 -> ``03:30:00+02:00``). Offsets of no whole minutes are
rounded, the same instant written (a date keeps its ``T00:00:00``); offsets beyond XML Schema's
+-14:00 are written in UTC. Run once per URL, they lean on C ``isoformat()``."""

from __future__ import annotations

import datetime

Lastmod = datetime.datetime | datetime.date

_UTC = datetime.UTC
_MINUTE = datetime.timedelta(minutes=1)
_MAX_OFFSET = datetime.timedelta(hours=14)
_EARLIEST = datetime.datetime.min.replace(tzinfo=_UTC)
_LATEST = datetime.datetime.max.replace(tzinfo=_UTC)


def _localize(value: datetime.datetime, tz: datetime.tzinfo) -> datetime.datetime:
    """Read ``value``'s wall-clock time in ``tz``, moving it out of a DST gap."""
    aware = value.replace(tzinfo=tz)
    if isinstance(tz, datetime.timezone):  # fixed offsets have no gaps
        return aware
    # A UTC round trip moves only a time in a DST gap; cheaper than testing ``fold``.
    return aware.astimezone(_UTC).astimezone(tz)


def _in_zone(value: datetime.datetime, tz: datetime.tzinfo) -> datetime.datetime:
    """``value`` as an aware datetime in ``tz`` (see the module docstring)."""
    if value.tzinfo is tz:  # keeps a caller's fold untouched
        return value
    if value.tzinfo is None or value.utcoffset() is None:
        # Naive even with a tzinfo: astimezone() would read it as system local time.
        return _localize(value, tz)
    return value.astimezone(tz)


def is_w3c_datetime(text: str) -> bool:
    """Whether an aware ``isoformat(timespec="seconds")`` is W3C (other lengths: offset seconds)."""
    return len(text) == 25 and text[20:] <= "14:00"


def _isoformat(value: datetime.datetime, *, keep_wall_clock: bool = False) -> str:
    """W3C text of ``value``. An offset ``+hh:mm`` cannot hold is rounded, the same instant
    written (``keep_wall_clock``: the same reading); beyond +-14:00, UTC."""
    text = value.isoformat(timespec="seconds")
    offset = None if is_w3c_datetime(text) else value.utcoffset()
    if offset is None:
        return text
    # Round half up on whole minutes; floor division keeps negative offsets right.
    rounded = (offset + _MINUTE / 2) // _MINUTE * _MINUTE
    if abs(rounded) > _MAX_OFFSET:
        value = value.replace(tzinfo=_UTC) if keep_wall_clock else value.astimezone(_UTC)
    elif keep_wall_clock:
        value = value.replace(tzinfo=datetime.timezone(rounded))
    else:
        value = value.replace(tzinfo=None) - offset + rounded
        value = value.replace(tzinfo=datetime.timezone(rounded))
    return value.isoformat(timespec="seconds")


def format_datetime(value: datetime.datetime, tz: datetime.tzinfo) -> str:
    """``'YYYY-MM-DDThh:mm:ss+hh:mm'`` in time zone ``tz`` (see the module docstring)."""
    return _isoformat(_in_zone(value, tz))


def format_lastmod(value: Lastmod, tz: datetime.tzinfo, *, date_only: bool) -> str:
    """A ``lastmod`` as a date (a datetime's local date in ``tz``) or a datetime (a date's
    midnight in ``tz``); OverflowError or ValueError outside years 1 to 9999 in ``tz``."""
    if isinstance(value, datetime.datetime):
        if date_only:
            return _in_zone(value, tz).date().isoformat()
        return format_datetime(value, tz)
    if date_only:
        return value.isoformat()
    # Keeping midnight's wall clock stops 00:00+00:09:21 becoming 23:59:39 the day before.
    return _isoformat(_midnight(value, tz), keep_wall_clock=True)


def _midnight(value: datetime.date, tz: datetime.tzinfo) -> datetime.datetime:
    # Where DST starts at midnight (America/Havana) 00:00 does not exist: _localize makes it 01:00.
    return _localize(datetime.datetime(value.year, value.month, value.day), tz)


def to_aware(value: Lastmod, tz: datetime.tzinfo) -> datetime.datetime:
    """An aware datetime to compare: a date is its midnight in ``tz``, a naive datetime is
    read in ``tz``. An instant that UTC cannot hold becomes the nearest end of the range."""
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


def later(newest: Lastmod | None, value: Lastmod | None, tz: datetime.tzinfo) -> Lastmod | None:
    """The later of two lastmods (None ignored); mixed kinds are compared as aware in ``tz``."""
    if value is None:
        return newest
    if newest is None:
        return value
    try:
        return value if value > newest else newest
    except TypeError:
        return value if to_aware(value, tz) > to_aware(newest, tz) else newest
