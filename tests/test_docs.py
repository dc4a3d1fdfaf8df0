"""The README and the reference pages name every setting and every system check, in one
URLconf spelling: what a reader of either finds is all there is."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from django_sitemapkit._conf import DEFAULTS

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "django_sitemapkit"
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def first_column(markdown: str, header: str) -> list[str]:
    """The first cells of the table under ``header`` (its first row), links and code unwrapped."""
    lines = markdown.splitlines()
    start = lines.index(header) + 2
    cells = []
    for line in lines[start:]:
        if not line.startswith("|"):
            break
        cell = line.split("|")[1].strip()
        cells.append(re.sub(r"\[`?([^`\]]+)`?\]\([^)]*\)|`([^`]+)`", r"\1\2", cell))
    return cells


def check_ids() -> set[str]:
    """Every check id the package can raise, from its source."""
    return {
        match
        for path in PACKAGE.rglob("*.py")
        for match in re.findall(r"sitemapkit\.[EWI]\d{3}", path.read_text(encoding="utf-8"))
    }


@pytest.mark.parametrize("page", ["README.md", "docs/settings.md"])
def test_every_setting_is_in_the_table(page: str) -> None:
    text = (ROOT / page).read_text(encoding="utf-8")
    assert sorted(first_column(text, "| setting | default | |")) == sorted(DEFAULTS)


@pytest.mark.parametrize("page", ["README.md", "docs/checks.md"])
def test_every_check_is_in_the_table(page: str) -> None:
    text = (ROOT / page).read_text(encoding="utf-8")
    assert sorted(first_column(text, "| id | when |")) == sorted(check_ids())


def test_every_check_has_its_section() -> None:
    text = (ROOT / "docs" / "checks.md").read_text(encoding="utf-8")
    assert set(re.findall(r"^### (sitemapkit\.[EWI]\d{3})$", text, re.M)) == check_ids()


@pytest.mark.parametrize("page", PAGES, ids=lambda path: path.name)
def test_one_urlconf_spelling(page: Path) -> None:
    # sitemapkit.site.urls (site.urls for another site), never include("django_sitemapkit.urls").
    text = page.read_text(encoding="utf-8")
    assert "django_sitemapkit.urls" not in text
    assert not re.search(r"include\(\.\.\.\)", text)
