"""The report of ``sitemapkit_validate``: one line per finding, or JSON."""

from __future__ import annotations

import json
from collections.abc import Sequence

from django_sitemapkit.validation.findings import Report


def as_text(reports: Sequence[Report]) -> str:
    """A line per finding ("file: [rule] what (where)"), then a summary line per set."""
    lines: list[str] = []
    for report in reports:
        lines += [finding.line() for finding in report.findings]
        verdict = "valid" if report.ok else f"{len(report.findings):,} problem(s)"
        lines.append(
            f"{report.target}: {report.files:,} file(s), {report.urls:,} URL(s) checked: {verdict}."
        )
    return "\n".join(lines) + "\n"


def as_json(reports: Sequence[Report]) -> str:
    """``{"ok": bool, "sets": [{"target", "ok", "files", "urls", "findings": [...]}]}``."""
    sets = [
        {
            "target": report.target,
            "ok": report.ok,
            "files": report.files,
            "urls": report.urls,
            "findings": [
                {"file": f.file, "rule": f.rule, "message": f.message, "where": f.where}
                for f in report.findings
            ],
        }
        for report in reports
    ]
    return json.dumps({"ok": all(r.ok for r in reports), "sets": sets}, indent=2) + "\n"
