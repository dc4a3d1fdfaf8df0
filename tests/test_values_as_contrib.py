"""Every value contrib accepts, with contrib's meaning; a truly invalid one dropped, said why."""

from __future__ import annotations

import datetime
import logging
from decimal import Decimal
from typing import Any

import pytest
from django.contrib import sitemaps as contrib
from django.test import Client
from django.test.utils import override_settings

import django_sitemapkit as sitemapkit
from tests.contribviews import HOST, entries

pytestmark = pytest.mark.django_db

CONF = {"BASE_URL": "https://www.example.com", "CACHE_TIMEOUT": 0}
VALUES: dict[str, tuple[Any, Any, Any]] = {
    # path: (priority, changefreq, lastmod)
    "/a/": ("0.6", "Daily", datetime.date(2024, 3, 1)),
    "/b/": (Decimal("0.6"), " weekly", datetime.datetime(2024, 3, 1, 12, 0)),
    "/c/": (0.6, "MONTHLY", datetime.datetime(2024, 3, 1, 12, 0, tzinfo=datetime.UTC)),
    "/d/": ("high", "sometimes", None),
    "/e/": (1.5, None, None),
}


class Values(contrib.Sitemap):
    def items(self) -> list[str]:
        return list(VALUES)

    def location(self, item: str) -> str:
        return item

    def priority(self, item: str) -> Any:
        return VALUES[item][0]

    def changefreq(self, item: str) -> Any:
        return VALUES[item][1]

    def lastmod(self, item: str) -> Any:
        return VALUES[item][2]


class ConstantText(contrib.Sitemap):
    priority = "0.6"
    changefreq = "Never"

    def items(self) -> list[str]:
        return ["/f/"]

    def location(self, item: str) -> str:
        return item


def test_priorities_changefreqs_and_lastmods_as_contrib_takes_them(
    sitemaps: Any, client: Client, caplog: Any
) -> None:
    sitemapkit.register_sitemaps({"values": Values, "constant": ConstantText})
    with override_settings(SITEMAPKIT=CONF), caplog.at_level(logging.WARNING):
        listed = entries(client.get("/sitemap-values-1.xml", **HOST).content)
        constant = entries(client.get("/sitemap-constant-1.xml", **HOST).content)
    got = {entry.loc.rsplit(".com", 1)[1]: entry for entry in listed}
    assert [(got[p].priority, got[p].changefreq) for p in ["/a/", "/b/", "/c/"]] == [
        ("0.6", "daily"),
        ("0.6", "weekly"),
        ("0.6", "monthly"),
    ]
    assert [got[p].lastmod for p in ["/a/", "/b/", "/c/"]] == [
        "2024-03-01",
        "2024-03-01",
        "2024-03-01",
    ]
    assert (got["/d/"].priority, got["/d/"].changefreq, got["/e/"].priority) == (None, None, None)
    assert [(e.priority, e.changefreq) for e in constant] == [("0.6", "never")]
    messages = [record.getMessage() for record in caplog.records]
    assert any("priority of '/d/': 'high' is not a number" in m for m in messages)
    assert any("priority of '/e/': 1.5 is not from 0.0 to 1.0" in m for m in messages)
    assert any("changefreq of '/d/': 'sometimes' is not one of" in m for m in messages)
