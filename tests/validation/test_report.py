"""The report: a line per finding, a few per rule and file, or JSON."""

from __future__ import annotations

import json

from django_sitemapkit._validation.rules import MAX_PER_RULE, Finding, Report, as_json, as_text


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


def test_a_finding_is_one_line() -> None:
    assert Finding("a.xml", "scope", "x is not on y", "entry 3").line() == (
        "a.xml: [scope] x is not on y (entry 3)"
    )
    assert (
        Finding("robots.txt", "robots", "has no line").line() == "robots.txt: [robots] has no line"
    )


def test_each_rule_lists_a_few_findings_per_file_then_counts() -> None:
    report = Report("t")
    for i in range(MAX_PER_RULE + 5):
        report.add("a.xml", "duplicate", f"u{i}", f"entry {i}")
    report.add("b.xml", "duplicate", "u")
    report.finish()
    lines = [f.line() for f in report.findings]
    assert len(lines) == MAX_PER_RULE + 2
    assert lines[-1] == "a.xml: [duplicate] ... and 5 more like these"
    assert not report.ok
    assert Report("t").finish().ok
