"""The values the fast loop writes as they are: a lastmod's text and a plain image.

Each returns the text the general path would write, or None where only the
general path can tell (the row then goes through it).
"""

from __future__ import annotations

import datetime
import zoneinfo
from typing import Any

import pytest

import django_sitemapkit as sitemapkit
from django_sitemapkit._engine.entries import EntryFactory, entry_factory
from django_sitemapkit._engine.fastloop import image_xml, lastmod_text
from django_sitemapkit._engine.rendering import make_context
from django_sitemapkit._protocol.w3c import format_lastmod
from django_sitemapkit._sites import site
from tests.testapp.models import Article, Event, Gallery

BASE = "https://www.example.com"
PARIS = zoneinfo.ZoneInfo("Europe/Paris")
AT = datetime.datetime(2026, 1, 2, 3, 4, 5, 123456)


def factory_of(model: type, **attributes: Any) -> EntryFactory:
    class Section(sitemapkit.ModelSitemap):
        url_name = "article-detail"
        url_kwargs = {"slug": "slug"}

    for name, value in attributes.items():
        setattr(Section, name, value)
    sitemapkit.register(model, Section)
    return entry_factory(next(iter(site._registry.values())), make_context(BASE))


@pytest.fixture
def datetimes(sitemaps: Any) -> EntryFactory:
    """A section whose lastmod is a datetime, in a UTC site."""
    return factory_of(Article)


# --------------------------------------------------------------------------- lastmod_text


@pytest.mark.parametrize(
    ("raw", "text"),
    [
        # SQLite and MySQL: six fractional digits or none.
        ("2026-01-02 03:04:05", "2026-01-02T03:04:05+00:00"),
        ("2026-01-02 03:04:05.123456", "2026-01-02T03:04:05+00:00"),
        # PostgreSQL in a UTC session: any number of digits, and "+00".
        ("2026-01-02 03:04:05+00", "2026-01-02T03:04:05+00:00"),
        ("2026-01-02 03:04:05.5+00", "2026-01-02T03:04:05+00:00"),
        ("2026-01-02 03:04:05.1234567+00", "2026-01-02T03:04:05+00:00"),
    ],
)
def test_a_utc_databases_text_is_sliced(datetimes: EntryFactory, raw: str, text: str) -> None:
    assert lastmod_text(datetimes, db_is_utc=True)(raw) == text


@pytest.mark.parametrize(
    "raw",
    [
        "2025-01-01T00:00:00",  # a "T", not the database's space
        "2026-01-02 03:04:05.1234567",  # 27 characters, no zone
        "2026-01-02 03:04:05.123",  # 23 characters, no zone
        "2026-01-02 03:04:05+01",  # another offset
        "2026-01-02 03:04:05.5+01:00",
        "2026-01-02",
        "2026-01-02 03:04",
        "",
    ],
)
def test_other_text_goes_to_the_general_path(datetimes: EntryFactory, raw: str) -> None:
    assert lastmod_text(datetimes, db_is_utc=True)(raw) is None


def test_text_of_a_database_not_in_utc_goes_to_the_general_path(datetimes: EntryFactory) -> None:
    assert lastmod_text(datetimes, db_is_utc=False)("2026-01-02 03:04:05") is None


@pytest.mark.parametrize(
    "zone", [datetime.UTC, zoneinfo.ZoneInfo("UTC"), datetime.timezone(datetime.timedelta(0))]
)
@pytest.mark.parametrize("db_is_utc", [True, False])
def test_a_datetime_at_offset_zero_is_written_as_the_general_path_writes_it(
    datetimes: EntryFactory, zone: datetime.tzinfo, db_is_utc: bool
) -> None:
    value = AT.replace(tzinfo=zone)
    text = lastmod_text(datetimes, db_is_utc=db_is_utc)(value)
    assert text == "2026-01-02T03:04:05+00:00"
    assert text == format_lastmod(value, datetimes.tz, date_only=False)


@pytest.mark.parametrize(
    "raw",
    [
        None,
        AT,  # naive
        AT.replace(tzinfo=PARIS),
        AT.replace(tzinfo=datetime.timezone(datetime.timedelta(hours=1))),
        AT.date(),
        1767323045,
    ],
)
def test_other_values_go_to_the_general_path(datetimes: EntryFactory, raw: Any) -> None:
    assert lastmod_text(datetimes, db_is_utc=True)(raw) is None


def test_in_another_site_zone_only_that_zones_datetimes_are_written(
    sitemaps: Any, settings: Any
) -> None:
    settings.TIME_ZONE = "Europe/Paris"
    factory = factory_of(Article)
    assert factory.tz is not datetime.UTC
    text = lastmod_text(factory, db_is_utc=True)
    local = AT.replace(tzinfo=factory.tz)
    assert text(local) == "2026-01-02T03:04:05+01:00"
    assert text(local) == format_lastmod(local, factory.tz, date_only=False)
    assert text(AT.replace(tzinfo=datetime.UTC)) is None
    assert text("2026-01-02 03:04:05") is None


def test_a_date_only_section_goes_to_the_general_path(sitemaps: Any) -> None:
    factory = factory_of(Event, url_kwargs={"slug": "url"}, lastmod_field="modified")
    assert factory.date_only is True
    text = lastmod_text(factory, db_is_utc=True)
    assert text("2026-01-02 03:04:05") is None
    assert text(AT.replace(tzinfo=datetime.UTC)) is None
    assert text(datetime.date(2026, 1, 2)) is None


# --------------------------------------------------------------------------- image_xml

IMAGE = "<image:image><image:loc>{}</image:loc></image:image>"


def image_tail(field: str) -> Any:
    return image_xml(factory_of(Gallery, images_field=field, priority=0.5))


@pytest.mark.parametrize(
    ("field", "value", "path"),
    [
        ("cover", "/media/p/1_a-b~c.jpg", "/media/p/1_a-b~c.jpg"),
        ("picture", "p/1_a-b.jpg", "/media/p/1_a-b.jpg"),
    ],
)
def test_a_plain_image_is_written_as_the_general_path_writes_it(
    sitemaps: Any, settings: Any, field: str, value: str, path: str
) -> None:
    settings.MEDIA_URL = "/media/"
    tail = image_tail(field)
    assert tail is not None
    url = BASE + path
    assert tail(value) == IMAGE.format(url)
    assert tail(None) == tail("") == ""


@pytest.mark.parametrize(
    "value",
    [
        "/media/a b.jpg",
        "/media/../up.jpg",
        "/media/./dot.jpg",
        "//cdn.example.net/x.jpg",
        "https://cdn.example.net/x.jpg",
        "/media/é.jpg",
        "/media/a&b.jpg",
        "relative.jpg",
        "/" + "x" * 2100,
        7,
    ],
)
def test_an_image_url_column_value_that_a_step_changes_goes_to_the_general_path(
    sitemaps: Any, value: Any
) -> None:
    tail = image_tail("cover")
    assert tail is not None
    assert tail(value) is None


@pytest.mark.parametrize(
    "value", ["/abs.jpg", ".hidden.jpg", "a/../b.jpg", "a//b.jpg", "a b.jpg", "é.jpg"]
)
def test_a_file_name_that_a_step_changes_goes_to_the_general_path(
    sitemaps: Any, settings: Any, value: str
) -> None:
    settings.MEDIA_URL = "/media/"
    tail = image_tail("picture")
    assert tail is not None
    assert tail(value) is None


def test_a_section_without_an_image_column_has_no_image_tail(sitemaps: Any) -> None:
    assert image_xml(factory_of(Gallery)) is None
