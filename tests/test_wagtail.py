"""The Wagtail tests (tests/wagtailsite/), run by the main suite in a pytest of their own.

They need Wagtail's apps and migrations, which the main settings leave out
to keep every other run lean: here they run under their own settings, on
the same database server (DATABASE_URL) in a database of their own.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from tests.conftest import WAGTAIL_SETTINGS

ROOT = Path(__file__).parent.parent


def test_wagtails_sitemap_lists_what_wagtails_views_list() -> None:
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": WAGTAIL_SETTINGS}
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
    result = subprocess.run(
        [*command, f"--ds={WAGTAIL_SETTINGS}", "tests/wagtailsite"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    report = result.stdout + result.stderr
    assert result.returncode == 0, report
    # Every test ran: nothing skipped, deselected or expected to fail (warnings may be).
    summary = r"\d+ passed(, \d+ warnings?)? in [\d.]+s( \(\S+\))?"
    assert re.fullmatch(summary, last_line(report)), report


def last_line(report: str) -> str:
    return report.strip().splitlines()[-1].strip("= ")
