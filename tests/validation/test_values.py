from __future__ import annotations

import datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from django_sitemapkit._protocol.w3c import format_datetime
from django_sitemapkit._validation import xmlfile as values


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2026-01-02", datetime.datetime(2026, 1, 1, 10, tzinfo=datetime.UTC)),
        ("2026-01-02T03:04:05Z", datetime.datetime(2026, 1, 2, 3, 4, 5, tzinfo=datetime.UTC)),
        (
            "2026-01-02T03:04:05.25+02:00",
            datetime.datetime(2026, 1, 2, 1, 4, 5, tzinfo=datetime.UTC),
        ),
        ("2026-01-02T03:04:05-01:30", datetime.datetime(2026, 1, 2, 4, 34, 5, tzinfo=datetime.UTC)),
    ],
)
def test_lastmods_the_schema_allows(text: str, expected: datetime.datetime) -> None:
    assert values.parse_lastmod(text) == expected
    assert values.value_problem("lastmod", text) is None


@pytest.mark.parametrize(
    "text",
    ["2026", "2026-01", "2026-13-01", "2026-01-02T03:04", "2026-01-02 03:04:05", "yesterday"],
)
def test_lastmods_the_schema_refuses(text: str) -> None:
    assert values.parse_lastmod(text) is None
    assert (
        values.value_problem("lastmod", text)
        == f"<lastmod> {text!r} is not a W3C date or date-time"
    )


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("https://www.example.com/", None),
        ("/relative/path/x", "is not an absolute http(s) URL"),
        ("ftp://example.com/x", "is not an absolute http(s) URL"),
        ("http://a.b", "must be 12 to 2,048 characters long, not 10"),
        ("https://www.example.com/a b", "contains whitespace"),
        ("https://www.example.com/" + "a" * 2048, "must be 12 to 2,048 characters long"),
    ],
)
def test_locations(text: str, problem: str | None) -> None:
    found = values.loc_problem(text)
    assert found is None if problem is None else problem in (found or "")


def test_changefreq_and_priority() -> None:
    assert values.value_problem("changefreq", "weekly") is None
    assert values.value_problem("changefreq", "Weekly") is not None
    assert [
        values.value_problem("priority", v) is None for v in ["0", "0.5", "1.0", ".3", "+1"]
    ] == [True] * 5
    assert [
        values.value_problem("priority", v) is None for v in ["1.01", "-0.1", "x", "1e-1", ""]
    ] == [False] * 5


@given(st.text(max_size=40))
def test_any_text_is_judged_without_crashing(text: str) -> None:
    for field in ("loc", "lastmod", "changefreq", "priority"):
        problem = values.value_problem(field, text)
        assert problem is None or problem.startswith("<")


@given(st.datetimes(timezones=st.timezones()), st.timezones())
def test_every_lastmod_the_writer_writes_reads_back(
    value: datetime.datetime, tz: datetime.tzinfo
) -> None:
    text = format_datetime(value, tz)
    assert values.parse_lastmod(text) == datetime.datetime.fromisoformat(text)
