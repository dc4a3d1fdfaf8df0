from __future__ import annotations

import json

from django_sitemapkit.validation.findings import Report
from django_sitemapkit.validation.report import as_json, as_text


def reports() -> list[Report]:
    good = Report("https://a.example/sitemap.xml", files=3, urls=1200)
    bad = Report("/srv/sitemaps", files=2, urls=10)
    bad.add("sitemap-x-1.xml", "lastmod", "lastmod 2099-01-01 is in the future", "entry 7")
    return [good, bad.finish()]


def test_text() -> None:
    assert as_text(reports()) == (
        "https://a.example/sitemap.xml: 3 file(s), 1,200 URL(s) checked: valid.\n"
        "sitemap-x-1.xml: [lastmod] lastmod 2099-01-01 is in the future (entry 7)\n"
        "/srv/sitemaps: 2 file(s), 10 URL(s) checked: 1 problem(s).\n"
    )


def test_json() -> None:
    data = json.loads(as_json(reports()))
    assert data["ok"] is False
    assert [s["ok"] for s in data["sets"]] == [True, False]
    assert data["sets"][1]["findings"] == [
        {
            "file": "sitemap-x-1.xml",
            "rule": "lastmod",
            "message": "lastmod 2099-01-01 is in the future",
            "where": "entry 7",
        }
    ]
