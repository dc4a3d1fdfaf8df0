from __future__ import annotations

from django_sitemapkit.validation.findings import MAX_PER_RULE, Finding, Report


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
