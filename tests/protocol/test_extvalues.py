from __future__ import annotations

import datetime

import pytest

from django_sitemapkit._protocol.extensionxml import (
    absolute_url,
    text,
    w3c_date,
    whole_number,
    yes_no,
)

BASE = "https://www.example.com"


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("/media/a.jpg", "https://www.example.com/media/a.jpg"),
        ("https://cdn.example.net/a b.jpg", "https://cdn.example.net/a%20b.jpg"),
        ("//CDN.example.net/x?a=1&b=2", "https://cdn.example.net/x?a=1&amp;b=2"),
        ("/photos/café.jpg", "https://www.example.com/photos/caf%C3%A9.jpg"),
        ("https://bücher.example/a/../b.png", "https://xn--bcher-kva.example/b.png"),
    ],
)
def test_absolute_url_allows_other_hosts_and_encodes(raw: str, expected: str) -> None:
    assert absolute_url(raw, BASE) == expected


@pytest.mark.parametrize(
    "raw", ["", "a.jpg", "javascript:alert(1)", "ftp://x/a", 3, "/" + "a" * 2100]
)
def test_absolute_url_refuses(raw: object) -> None:
    with pytest.raises(ValueError):  # noqa: PT011
        absolute_url(raw, BASE)


def test_text_drops_what_xml_cannot_hold_and_escapes() -> None:
    assert text(" a\x00<b>\ud800 & c ") == "a&lt;b&gt; &amp; c"
    with pytest.raises(ValueError, match="empty"):
        text("\x01 ")
    with pytest.raises(ValueError, match="longer"):
        text("abc", max_length=2)


def test_dates_and_words() -> None:
    tz = datetime.UTC
    assert w3c_date(datetime.date(2026, 1, 2), tz) == "2026-01-02"
    assert w3c_date(datetime.datetime(2026, 1, 2, 3, 4, 5, tzinfo=tz), tz) == (
        "2026-01-02T03:04:05+00:00"
    )
    assert w3c_date("2026-01-02T03:04Z", tz) == "2026-01-02T03:04Z"
    for bad in ("2026-13-01", "yesterday", 5):
        with pytest.raises(ValueError):  # noqa: PT011
            w3c_date(bad, tz)
    assert yes_no(True) == "yes"
    assert yes_no(" NO ") == "no"
    with pytest.raises(ValueError):  # noqa: PT011
        yes_no("maybe")
    assert whole_number(28800, 1, 28800) == "28800"
    for bad in (0, True, 1.5):
        with pytest.raises(ValueError):  # noqa: PT011
            whole_number(bad, 1, 28800)
