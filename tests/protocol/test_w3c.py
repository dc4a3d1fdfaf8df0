"""Tests for django_sitemapkit._protocol.w3c: W3C Datetime values for ``<lastmod>``."""

from __future__ import annotations

import datetime
import os
import re
from zoneinfo import ZoneInfo

import pytest
from django.conf import settings
from hypothesis import given
from hypothesis import strategies as st

from django_sitemapkit._protocol.w3c import (
    format_datetime,
    format_lastmod,
    is_w3c_datetime,
    to_aware,
)

# These tests need no Django settings, but the suite's conftest has autouse
# fixtures that touch django.core.cache.  Under "-p no:django" nothing loads
# tests.settings, so Django's defaults (a local-memory cache) stand in.
if not settings.configured and not os.environ.get("DJANGO_SETTINGS_MODULE"):
    settings.configure()

UTC = datetime.UTC
PARIS = ZoneInfo("Europe/Paris")
NEW_YORK = ZoneInfo("America/New_York")
TOKYO = ZoneInfo("Asia/Tokyo")
HONOLULU = ZoneInfo("Pacific/Honolulu")
SAO_PAULO = ZoneInfo("America/Sao_Paulo")
PLUS_9 = datetime.timezone(datetime.timedelta(hours=9))
MINUS_3_30 = datetime.timezone(-datetime.timedelta(hours=3, minutes=30))

# The lexical space of xsd:dateTime and xsd:date (XML Schema 1.1 part 2,
# appendix D), which the sitemap XSD's tLastmod is a union of.
XSD_DATETIME = re.compile(
    r"-?([1-9][0-9]{3,}|0[0-9]{3})-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])"
    r"T(([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\.[0-9]+)?|(24:00:00(\.0+)?))"
    r"(Z|(\+|-)((0[0-9]|1[0-3]):[0-5][0-9]|14:00))?\Z"
)
XSD_DATE = re.compile(
    r"-?([1-9][0-9]{3,}|0[0-9]{3})-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])"
    r"(Z|(\+|-)((0[0-9]|1[0-3]):[0-5][0-9]|14:00))?\Z"
)
# The one shape this package writes: seconds, no fraction, numeric offset.
OUR_DATETIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d\Z")
OUR_DATE = re.compile(r"\d{4}-\d\d-\d\d\Z")


def assert_datetime_shape(text: str) -> None:
    assert OUR_DATETIME.match(text), text
    assert XSD_DATETIME.match(text), text


def instant(text: str) -> datetime.datetime:
    """The UTC instant a written value denotes."""
    return datetime.datetime.fromisoformat(text).astimezone(UTC)


# --------------------------------------------------------------------------- format_datetime


@pytest.mark.parametrize(
    ("value", "tz", "expected"),
    [
        # Aware values are converted to the site zone, same instant.
        (datetime.datetime(2024, 1, 1, 23, 30, tzinfo=PLUS_9), UTC, "2024-01-01T14:30:00+00:00"),
        (datetime.datetime(2024, 1, 1, 23, 30, tzinfo=PLUS_9), TOKYO, "2024-01-01T23:30:00+09:00"),
        (
            datetime.datetime(2024, 1, 1, 23, 30, tzinfo=PLUS_9),
            NEW_YORK,
            "2024-01-01T09:30:00-05:00",
        ),
        (datetime.datetime(2024, 1, 1, 20, 0, tzinfo=UTC), TOKYO, "2024-01-02T05:00:00+09:00"),
        (datetime.datetime(2024, 1, 1, 2, 0, tzinfo=UTC), NEW_YORK, "2023-12-31T21:00:00-05:00"),
        (datetime.datetime(2024, 7, 1, 12, 0, tzinfo=UTC), PARIS, "2024-07-01T14:00:00+02:00"),
        (datetime.datetime(2024, 1, 1, 12, 0, tzinfo=UTC), MINUS_3_30, "2024-01-01T08:30:00-03:30"),
        (
            datetime.datetime(2024, 1, 1, 12, 0, tzinfo=ZoneInfo("Asia/Kolkata")),
            UTC,
            "2024-01-01T06:30:00+00:00",
        ),
        (
            datetime.datetime(2024, 1, 1, 12, 0, tzinfo=UTC),
            ZoneInfo("Asia/Kathmandu"),
            "2024-01-01T17:45:00+05:45",
        ),
        # Naive values are wall-clock times in the site zone.
        (datetime.datetime(2024, 1, 15, 12, 0), PARIS, "2024-01-15T12:00:00+01:00"),
        (datetime.datetime(2024, 7, 15, 12, 0), PARIS, "2024-07-15T12:00:00+02:00"),
        (datetime.datetime(2024, 7, 15, 12, 0), NEW_YORK, "2024-07-15T12:00:00-04:00"),
        (datetime.datetime(2024, 7, 15, 12, 0), UTC, "2024-07-15T12:00:00+00:00"),
        (datetime.datetime(2024, 7, 15, 12, 0), MINUS_3_30, "2024-07-15T12:00:00-03:30"),
        # Early years keep four digits.
        (datetime.datetime(999, 1, 2, 3, 4, 5), UTC, "0999-01-02T03:04:05+00:00"),
        (datetime.datetime(1, 1, 1, 0, 0, tzinfo=UTC), UTC, "0001-01-01T00:00:00+00:00"),
    ],
)
def test_format_datetime(value: datetime.datetime, tz: datetime.tzinfo, expected: str) -> None:
    result = format_datetime(value, tz)
    assert result == expected
    assert_datetime_shape(result)


@pytest.mark.parametrize(
    "tz",
    [
        UTC,
        datetime.timezone(datetime.timedelta(0)),
        ZoneInfo("UTC"),
        ZoneInfo("Etc/UTC"),
        ZoneInfo("Europe/London"),
    ],
)
def test_utc_is_written_plus_zero(tz: datetime.tzinfo) -> None:
    result = format_datetime(datetime.datetime(2024, 1, 1, 12, 0, tzinfo=UTC), tz)
    assert result == "2024-01-01T12:00:00+00:00"
    assert "Z" not in result


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (datetime.datetime(2024, 1, 1, 12, 0, 0, 1), "2024-01-01T12:00:00+00:00"),
        (datetime.datetime(2024, 1, 1, 12, 0, 0, 500_000), "2024-01-01T12:00:00+00:00"),
        # Truncated, never rounded up into the next second, minute... or year.
        (datetime.datetime(2024, 12, 31, 23, 59, 59, 999_999), "2024-12-31T23:59:59+00:00"),
    ],
)
def test_fractional_seconds_are_truncated(value: datetime.datetime, expected: str) -> None:
    assert format_datetime(value, UTC) == expected
    assert format_datetime(value.replace(tzinfo=UTC), UTC) == expected


def test_fractional_seconds_in_other_zones() -> None:
    value = datetime.datetime(2024, 1, 1, 0, 0, 0, 999_999, tzinfo=UTC)
    assert format_datetime(value, NEW_YORK) == "2023-12-31T19:00:00-05:00"


# --------------------------------------------------------------------------- DST


def test_dst_transition_instants() -> None:
    # Europe/Paris springs forward at 01:00 UTC on 2024-03-31.
    before = datetime.datetime(2024, 3, 31, 0, 59, 59, tzinfo=UTC)
    after = datetime.datetime(2024, 3, 31, 1, 0, 0, tzinfo=UTC)
    assert format_datetime(before, PARIS) == "2024-03-31T01:59:59+01:00"
    assert format_datetime(after, PARIS) == "2024-03-31T03:00:00+02:00"
    # ... and falls back at 01:00 UTC on 2024-10-27: 02:30 happens twice.
    first = datetime.datetime(2024, 10, 27, 0, 30, tzinfo=UTC)
    second = datetime.datetime(2024, 10, 27, 1, 30, tzinfo=UTC)
    assert format_datetime(first, PARIS) == "2024-10-27T02:30:00+02:00"
    assert format_datetime(second, PARIS) == "2024-10-27T02:30:00+01:00"


def test_naive_time_in_dst_gap_is_written_as_real_local_time() -> None:
    # 02:30 did not exist in Paris on 2024-03-31; with fold=0 it is read
    # with the pre-transition offset (+01:00), i.e. 01:30 UTC = 03:30+02:00.
    result = format_datetime(datetime.datetime(2024, 3, 31, 2, 30), PARIS)
    assert result == "2024-03-31T03:30:00+02:00"
    assert instant(result) == datetime.datetime(2024, 3, 31, 1, 30, tzinfo=UTC)
    result = format_datetime(datetime.datetime(2024, 3, 10, 2, 30), NEW_YORK)
    assert result == "2024-03-10T03:30:00-04:00"


def test_naive_ambiguous_time_uses_fold() -> None:
    ambiguous = datetime.datetime(2024, 10, 27, 2, 30)
    # fold=0 (the default): the first occurrence, still on summer time.
    assert format_datetime(ambiguous, PARIS) == "2024-10-27T02:30:00+02:00"
    assert format_datetime(ambiguous.replace(fold=1), PARIS) == "2024-10-27T02:30:00+01:00"
    # US: 01:30 on 2024-11-03 happens twice.
    assert format_datetime(datetime.datetime(2024, 11, 3, 1, 30), NEW_YORK) == (
        "2024-11-03T01:30:00-04:00"
    )


def test_aware_value_already_in_zone_is_kept() -> None:
    value = datetime.datetime(2024, 10, 27, 2, 30, fold=1, tzinfo=PARIS)
    assert format_datetime(value, PARIS) == "2024-10-27T02:30:00+01:00"


# --------------------------------------------------------------------------- odd offsets


def test_offset_with_seconds_keeps_the_instant() -> None:
    # Before 1911 Paris used local mean time, +00:09:21.
    value = datetime.datetime(1900, 1, 1, 12, 0, tzinfo=UTC)
    result = format_datetime(value, PARIS)
    assert result == "1900-01-01T12:09:00+00:09"
    assert instant(result) == value
    assert_datetime_shape(result)


def test_naive_value_in_lmt_zone() -> None:
    # 12:00 local mean time is 11:50:39 UTC, written in the rounded offset.
    result = format_datetime(datetime.datetime(1900, 1, 1, 12, 0), PARIS)
    assert result == "1900-01-01T11:59:39+00:09"
    assert instant(result) == datetime.datetime(1900, 1, 1, 11, 50, 39, tzinfo=UTC)


@pytest.mark.parametrize(
    ("offset", "written_offset"),
    [
        (datetime.timedelta(seconds=29), "+00:00"),
        (datetime.timedelta(seconds=30), "+00:01"),
        (datetime.timedelta(seconds=-29), "+00:00"),
        (datetime.timedelta(seconds=-30), "+00:00"),
        (datetime.timedelta(seconds=-31), "-00:01"),
        (-datetime.timedelta(hours=4, minutes=56, seconds=2), "-04:56"),
        (datetime.timedelta(hours=5, minutes=53, seconds=28), "+05:53"),
        (datetime.timedelta(minutes=1, microseconds=1), "+00:01"),
    ],
)
def test_offset_rounding(offset: datetime.timedelta, written_offset: str) -> None:
    tz = datetime.timezone(offset)
    value = datetime.datetime(2000, 6, 15, 12, 0, 0, 250_000, tzinfo=UTC)
    result = format_datetime(value, tz)
    assert result.endswith(written_offset)
    assert_datetime_shape(result)
    # Same instant, to the second (fraction truncated).
    assert instant(result) == value.replace(microsecond=0)


def test_offset_beyond_fourteen_hours_is_written_in_utc() -> None:
    # Asia/Manila's local mean time before 1845 was -15:56:08, which XML
    # Schema cannot express; the instant is written in UTC.
    manila = ZoneInfo("Asia/Manila")
    value = datetime.datetime(1800, 1, 1, 12, 0, tzinfo=UTC)
    assert value.astimezone(manila).utcoffset() == -datetime.timedelta(
        hours=15, minutes=56, seconds=8
    )
    assert format_datetime(value, manila) == "1800-01-01T12:00:00+00:00"
    result = format_datetime(datetime.datetime(1800, 1, 1, 12, 0), manila)
    assert instant(result) == datetime.datetime(1800, 1, 2, 3, 56, 8, tzinfo=UTC)
    assert_datetime_shape(result)
    assert format_datetime(value, datetime.timezone(datetime.timedelta(hours=15))) == (
        "1800-01-01T12:00:00+00:00"
    )


@pytest.mark.parametrize(
    ("tz", "expected"),
    [
        (ZoneInfo("Pacific/Kiritimati"), "2024-01-02T02:00:00+14:00"),
        (ZoneInfo("Etc/GMT+12"), "2024-01-01T00:00:00-12:00"),
        (datetime.timezone(datetime.timedelta(hours=14)), "2024-01-02T02:00:00+14:00"),
        (datetime.timezone(-datetime.timedelta(hours=14)), "2023-12-31T22:00:00-14:00"),
    ],
)
def test_extreme_valid_offsets(tz: datetime.tzinfo, expected: str) -> None:
    result = format_datetime(datetime.datetime(2024, 1, 1, 12, 0, tzinfo=UTC), tz)
    assert result == expected
    assert_datetime_shape(result)


# --------------------------------------------------------------------------- is_w3c_datetime


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2024-01-02T03:04:05+00:00", True),
        ("2024-01-02T03:04:05-05:00", True),
        ("2024-01-02T03:04:05+14:00", True),
        ("2024-01-02T03:04:05-14:00", True),
        # Beyond the 14:00 XML Schema allows (local mean time before 1900).
        ("1800-01-01T12:00:00-15:56", False),
        ("1800-01-01T12:00:00+14:01", False),
        # An offset with seconds (local mean time: Paris before 1911).
        ("1900-01-01T12:00:00+00:09:21", False),
    ],
)
def test_is_w3c_datetime(text: str, expected: bool) -> None:
    assert is_w3c_datetime(text) is expected
    if expected:
        assert_datetime_shape(text)


@given(value=st.datetimes(timezones=st.timezones()))
def test_is_w3c_datetime_agrees_with_the_schema(value: datetime.datetime) -> None:
    # What isoformat() writes, written as is exactly when XML Schema accepts it.
    text = value.isoformat(timespec="seconds")
    assert is_w3c_datetime(text) == bool(XSD_DATETIME.match(text))


# --------------------------------------------------------------------------- dates


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (datetime.date(2024, 2, 29), "2024-02-29"),
        (datetime.date(2024, 12, 31), "2024-12-31"),
        (datetime.date(5, 1, 1), "0005-01-01"),
        # A datetime in the site's zone: its own calendar date.
        (datetime.datetime(2024, 1, 1, 23, 59, tzinfo=PLUS_9), "2024-01-01"),
    ],
)
def test_date_shape(value: datetime.date, expected: str) -> None:
    result = format_lastmod(value, PLUS_9, date_only=True)
    assert result == expected
    assert OUR_DATE.match(result)
    assert XSD_DATE.match(result)


# --------------------------------------------------------------------------- format_lastmod


@pytest.mark.parametrize("tz", [UTC, NEW_YORK, HONOLULU, TOKYO, MINUS_3_30, PLUS_9])
def test_date_only_never_shifts_a_date(tz: datetime.tzinfo) -> None:
    assert format_lastmod(datetime.date(2024, 1, 1), tz, date_only=True) == "2024-01-01"


@pytest.mark.parametrize(
    ("tz", "expected"),
    [
        (UTC, "2024-01-01T00:00:00+00:00"),
        (NEW_YORK, "2024-01-01T00:00:00-05:00"),
        (HONOLULU, "2024-01-01T00:00:00-10:00"),
        (TOKYO, "2024-01-01T00:00:00+09:00"),
        (MINUS_3_30, "2024-01-01T00:00:00-03:30"),
    ],
)
def test_date_as_datetime_is_local_midnight(tz: datetime.tzinfo, expected: str) -> None:
    # Midnight of that day in the site zone, not UTC midnight moved back to
    # the previous evening.
    result = format_lastmod(datetime.date(2024, 1, 1), tz, date_only=False)
    assert result == expected
    assert_datetime_shape(result)


def test_date_in_lmt_zone_keeps_its_day() -> None:
    # Midnight at +00:09:21 is written 00:00:00+00:09, not 23:59:39+00:09
    # the previous day: for a date the day matters, not the second.
    assert format_lastmod(datetime.date(1900, 1, 1), PARIS, date_only=False) == (
        "1900-01-01T00:00:00+00:09"
    )
    manila = ZoneInfo("Asia/Manila")
    assert format_lastmod(datetime.date(1800, 1, 1), manila, date_only=False) == (
        "1800-01-01T00:00:00+00:00"
    )


def test_date_whose_midnight_does_not_exist() -> None:
    # Sao Paulo skipped 00:00-01:00 on 2018-11-04: the day is kept.
    assert format_lastmod(datetime.date(2018, 11, 4), SAO_PAULO, date_only=False) == (
        "2018-11-04T01:00:00-02:00"
    )
    assert to_aware(datetime.date(2018, 11, 4), SAO_PAULO).date() == datetime.date(2018, 11, 4)


@pytest.mark.parametrize(
    ("value", "tz", "expected"),
    [
        # The local date in the site zone...
        (datetime.datetime(2024, 1, 1, 23, 30, tzinfo=PLUS_9), TOKYO, "2024-01-01"),
        (datetime.datetime(2024, 1, 1, 8, 0, tzinfo=PLUS_9), TOKYO, "2024-01-01"),
        (datetime.datetime(2024, 1, 1, 8, 0, tzinfo=PLUS_9), UTC, "2023-12-31"),
        (datetime.datetime(2024, 1, 1, 0, 0, tzinfo=UTC), UTC, "2024-01-01"),
        (datetime.datetime(2024, 1, 1, 0, 0, tzinfo=UTC), NEW_YORK, "2023-12-31"),
        (datetime.datetime(2024, 1, 1, 4, 59, 59, 999_999, tzinfo=UTC), NEW_YORK, "2023-12-31"),
        (datetime.datetime(2024, 1, 1, 5, 0, tzinfo=UTC), NEW_YORK, "2024-01-01"),
        # ...and a naive datetime already is one.
        (datetime.datetime(2024, 1, 1, 0, 0), NEW_YORK, "2024-01-01"),
        (datetime.datetime(2024, 1, 1, 23, 59, 59), HONOLULU, "2024-01-01"),
    ],
)
def test_date_only_datetimes(value: datetime.datetime, tz: datetime.tzinfo, expected: str) -> None:
    assert format_lastmod(value, tz, date_only=True) == expected


def test_lastmod_datetime_matches_format_datetime() -> None:
    value = datetime.datetime(2024, 5, 1, 12, 0, 1, 5, tzinfo=UTC)
    assert format_lastmod(value, PARIS, date_only=False) == format_datetime(value, PARIS)
    assert format_lastmod(value, PARIS, date_only=False) == "2024-05-01T14:00:01+02:00"


# --------------------------------------------------------------------------- to_aware


def test_to_aware() -> None:
    day = to_aware(datetime.date(2024, 1, 1), NEW_YORK)
    assert day == datetime.datetime(2024, 1, 1, 5, 0, tzinfo=UTC)
    assert day.tzinfo is NEW_YORK
    assert day.date() == datetime.date(2024, 1, 1)

    naive = to_aware(datetime.datetime(2024, 1, 1, 12, 0), TOKYO)
    assert naive == datetime.datetime(2024, 1, 1, 3, 0, tzinfo=UTC)
    assert naive.tzinfo is TOKYO

    aware = datetime.datetime(2024, 1, 1, 12, 0, tzinfo=PLUS_9)
    assert to_aware(aware, UTC) is aware


def test_to_aware_gap_is_resolved() -> None:
    value = to_aware(datetime.datetime(2024, 3, 31, 2, 30), PARIS)
    assert value.astimezone(UTC) == datetime.datetime(2024, 3, 31, 1, 30, tzinfo=UTC)
    assert (value.hour, value.minute) == (3, 30)


def test_max_of_mixed_lastmods() -> None:
    values: list[datetime.date | datetime.datetime] = [
        datetime.date(2024, 1, 2),  # midnight in New York = 05:00 UTC
        datetime.datetime(2024, 1, 2, 4, 0, tzinfo=UTC),
        datetime.datetime(2024, 1, 1, 23, 30),  # naive, New York = 04:30 UTC on the 2nd
        datetime.datetime(2024, 1, 2, 14, 0, tzinfo=PLUS_9),  # 05:00 UTC + 0
    ]
    latest = max(values, key=lambda v: to_aware(v, NEW_YORK))
    assert to_aware(latest, NEW_YORK) == datetime.datetime(2024, 1, 2, 5, 0, tzinfo=UTC)
    assert format_lastmod(latest, NEW_YORK, date_only=False) == "2024-01-02T00:00:00-05:00"


# --------------------------------------------------------------------------- XSD & properties


def test_values_validate_against_xsd_types() -> None:
    etree = pytest.importorskip("lxml.etree")
    schema = etree.XMLSchema(
        etree.XML(
            b'<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema">'
            b'<xs:element name="v"><xs:simpleType><xs:union memberTypes="xs:date xs:dateTime"/>'
            b"</xs:simpleType></xs:element></xs:schema>"
        )
    )
    values = [
        format_datetime(datetime.datetime(2024, 1, 1, 23, 30, tzinfo=PLUS_9), NEW_YORK),
        format_datetime(datetime.datetime(1900, 1, 1), PARIS),
        format_datetime(datetime.datetime(2024, 3, 31, 2, 30), PARIS),
        format_lastmod(datetime.date(2024, 1, 1), HONOLULU, date_only=False),
        format_lastmod(datetime.date(2024, 1, 1), HONOLULU, date_only=True),
        format_lastmod(datetime.date(5, 1, 1), UTC, date_only=True),
    ]
    for value in values:
        assert schema.validate(etree.XML(f"<v>{value}</v>".encode())), value


datetimes = st.datetimes(
    min_value=datetime.datetime(1800, 1, 1), max_value=datetime.datetime(2200, 12, 31)
)
zones = st.one_of(
    st.timezones(),
    st.integers(min_value=-86_399, max_value=86_399).map(
        lambda s: datetime.timezone(datetime.timedelta(seconds=s))
    ),
)


@given(value=datetimes, source=zones, target=zones)
def test_aware_values_keep_their_instant(
    value: datetime.datetime, source: datetime.tzinfo, target: datetime.tzinfo
) -> None:
    aware = value.replace(tzinfo=source)
    result = format_datetime(aware, target)
    assert_datetime_shape(result)
    # Offsets are whole seconds here, so truncating the local fraction
    # truncates the instant.
    assert instant(result) == aware.astimezone(UTC).replace(microsecond=0)


@given(value=datetimes, tz=zones)
def test_naive_values_are_read_in_the_zone(value: datetime.datetime, tz: datetime.tzinfo) -> None:
    result = format_datetime(value, tz)
    assert_datetime_shape(result)
    assert instant(result) == value.replace(tzinfo=tz).astimezone(UTC).replace(microsecond=0)
    if value.replace(tzinfo=tz).utcoffset() == value.replace(tzinfo=tz, fold=1).utcoffset():
        # Not in a gap or fold, and a whole-minute offset XML Schema allows:
        # the wall clock is written unchanged.
        offset = value.replace(tzinfo=tz).utcoffset()
        assert offset is not None
        if offset % datetime.timedelta(minutes=1) == datetime.timedelta(0) and abs(
            offset
        ) <= datetime.timedelta(hours=14):
            assert result.startswith(value.replace(microsecond=0).isoformat())


@given(value=st.dates(), tz=zones)
def test_dates_are_never_shifted(value: datetime.date, tz: datetime.tzinfo) -> None:
    assert format_lastmod(value, tz, date_only=True) == value.isoformat()
    if datetime.date(1800, 1, 1) <= value <= datetime.date(2200, 12, 31):
        written = format_lastmod(value, tz, date_only=False)
        assert_datetime_shape(written)
        assert written.startswith(value.isoformat())
        assert to_aware(value, tz).date() == value


# --------------------------------------------------------------------------- range ends

CHICAGO = ZoneInfo("America/Chicago")
TOKYO = ZoneInfo("Asia/Tokyo")
EARLIEST = datetime.datetime.min.replace(tzinfo=datetime.UTC)
LATEST = datetime.datetime.max.replace(tzinfo=datetime.UTC)


@pytest.mark.parametrize(
    ("value", "tz"),
    [
        # Before year 1 once read in a zone behind UTC.
        (datetime.datetime(1, 1, 1, tzinfo=datetime.UTC), CHICAGO),
        (datetime.datetime(1, 1, 1, 5, 50, 35, tzinfo=datetime.UTC), CHICAGO),
        # Naive year 1 in a zone ahead of UTC, and its date.
        (datetime.datetime(1, 1, 1), TOKYO),
        (datetime.date(1, 1, 1), TOKYO),
        # After year 9999 in a zone ahead of UTC, and naive in one behind.
        (datetime.datetime(9999, 12, 31, 23, 59, 59, 999999, tzinfo=datetime.UTC), TOKYO),
        (datetime.datetime(9999, 12, 31, 23, 59, 59, 999999), CHICAGO),
    ],
)
def test_a_value_the_zone_cannot_hold_raises_rather_than_writes(
    value: datetime.date, tz: datetime.tzinfo
) -> None:
    # Callers drop such a lastmod (and log it); it must never be written wrong.
    with pytest.raises((OverflowError, ValueError)):
        format_lastmod(value, tz, date_only=False)


@pytest.mark.parametrize(
    ("value", "tz", "expected"),
    [
        (datetime.datetime(1, 1, 1), TOKYO, EARLIEST),
        (datetime.date(1, 1, 1), TOKYO, EARLIEST),
        (datetime.datetime(9999, 12, 31, 23, 59, 59, 999999), CHICAGO, LATEST),
        (datetime.date(9999, 12, 31), TOKYO, datetime.datetime(9999, 12, 31, tzinfo=TOKYO)),
        (datetime.datetime(1, 1, 1, tzinfo=datetime.UTC), CHICAGO, EARLIEST),
    ],
)
def test_to_aware_keeps_the_ends_of_the_range(
    value: datetime.date, tz: datetime.tzinfo, expected: datetime.datetime
) -> None:
    aware = to_aware(value, tz)
    assert aware == expected
    # Comparable, and convertible to UTC (as HTTP dates and caches need).
    assert EARLIEST <= aware <= LATEST
    aware.astimezone(datetime.UTC)


@given(
    value=st.datetimes(
        min_value=datetime.datetime(1, 1, 1),
        max_value=datetime.datetime(9999, 12, 31, 23, 59, 59, 999999),
        timezones=st.one_of(st.none(), st.just(datetime.UTC), st.timezones()),
    ),
    tz=st.sampled_from([datetime.UTC, CHICAGO, TOKYO, ZoneInfo("Pacific/Kiritimati")]),
)
def test_every_datetime_is_written_validly_or_refused(
    value: datetime.datetime, tz: datetime.tzinfo
) -> None:
    try:
        text = format_lastmod(value, tz, date_only=False)
    except (OverflowError, ValueError):
        pass
    else:
        assert_datetime_shape(text)
    aware = to_aware(value, tz)
    assert EARLIEST <= aware <= LATEST
