"""The installation the README documents works: from a checkout, or from a wheel built from one.

The package is not on the public index yet, so no documented command may
install it by name from there.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# "pip install django-sitemapkit" (or with an extra): a name only an index can resolve.
INSTALL_BY_NAME = re.compile(r"pip install (?:-\S+ )*django-sitemapkit(?:\[[^\]]*\])?\s*(?:#|$)")


def shell_lines(markdown: str) -> list[str]:
    """The lines of the fenced ``sh`` blocks of a Markdown text."""
    blocks = re.findall(r"^```(?:sh|bash|console)\n(.*?)^```", markdown, re.M | re.S)
    return [line.strip() for block in blocks for line in block.splitlines()]


def test_no_documented_command_installs_the_package_from_an_index() -> None:
    lines = shell_lines((ROOT / "README.md").read_text(encoding="utf-8"))
    installs = [line for line in lines if "pip install" in line]
    assert installs, "the README shows how to install the package"
    assert not [line for line in installs if INSTALL_BY_NAME.search(line)]


@pytest.mark.slow
def test_the_wheel_holds_the_whole_package(tmp_path: Path) -> None:
    # Built from a copy: setuptools writes build/ into the source tree, which
    # parallel test runs (tox) would share.
    source = tmp_path / "source"
    shutil.copytree(
        ROOT / "django_sitemapkit",
        source / "django_sitemapkit",
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    for path in ROOT.iterdir():
        if path.is_file() and (path.suffix in (".toml", ".md") or path.name.startswith("LICENSE")):
            shutil.copy(path, source)
    wheels = tmp_path / "wheels"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", str(source), "-w", str(wheels)],
        check=True,
        capture_output=True,
        timeout=300,
    )
    [wheel] = wheels.glob("django_sitemapkit-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    package = {
        path.relative_to(ROOT).as_posix()
        for path in (ROOT / "django_sitemapkit").rglob("*")
        if path.is_file() and "__pycache__" not in path.parts
    }
    assert package <= names
    assert "django_sitemapkit/py.typed" in names
