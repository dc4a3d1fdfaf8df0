"""``manage.py check`` sees sections registered in urls.py, from any working directory."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

PROJECT = Path(__file__).parent / "checkproject"
REPO = Path(__file__).parent.parent


@pytest.mark.parametrize("cwd", [PROJECT, REPO.parent])
@pytest.mark.parametrize("args", [[], ["--deploy"], ["--tag", "sitemapkit"]])
def test_check_reports_the_error_of_a_section_registered_in_urls_py(
    cwd: Path, args: list[str]
) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    env.pop("DJANGO_SETTINGS_MODULE", None)
    result = subprocess.run(
        [sys.executable, str(PROJECT / "manage.py"), "check", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 1, result.stdout + result.stderr
    assert "sitemapkit.E004" in result.stderr
    assert "Sitemap section 'pages' (PagesSitemap): priority 2.0" in result.stderr
