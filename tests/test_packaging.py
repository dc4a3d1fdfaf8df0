"""The installation the README documents works: from a checkout, or from a wheel built from one.

The package is not on the public index yet, so no documented command may
install it by name from there.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tarfile
import tomllib
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


# "django-sitemapkit[extra]" not after a path: the name with an extra, which only an index resolves.
EXTRA_BY_NAME = re.compile(r"(?<![/\w.-])django-sitemapkit\[")


def test_no_page_or_message_installs_an_extra_from_an_index() -> None:
    # The docs and the package's own messages (a CommandError's advice) name an extra
    # as installed from a checkout or a wheel, or name the library it brings.
    texts = [ROOT / "README.md", *(ROOT / "docs").glob("*.md")]
    texts += (ROOT / "django_sitemapkit").rglob("*.py")
    named = [path.name for path in texts if EXTRA_BY_NAME.search(path.read_text(encoding="utf-8"))]
    assert named == []


def markdown_links(markdown: str) -> list[str]:
    """The targets of the inline links of a Markdown text."""
    return re.findall(r"\]\(([^)\s]+)\)", markdown)


def test_the_project_urls_and_the_readme_links() -> None:
    # The README is the long description of a package index page, where a
    # relative link leads nowhere: every link is absolute, into Source for its files.
    urls = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["urls"]
    assert {"Homepage", "Documentation", "Source", "Changelog", "Issues"} <= set(urls)
    source = urls["Source"]
    assert all(url.startswith(source) for url in urls.values())
    links = markdown_links((ROOT / "README.md").read_text(encoding="utf-8"))
    assert [link for link in links if not link.startswith(("https://", "http://"))] == []
    into_repository = [link for link in links if link.startswith(f"{source}/blob/main/")]
    for link in into_repository:
        path = link.removeprefix(f"{source}/blob/main/").partition("#")[0]
        assert (ROOT / path).is_file(), f"the README links to {path}, which does not exist"
    assert f"{source}/blob/main/CHANGELOG.md" in into_repository
    assert f"{source}/blob/main/docs/index.md" in into_repository


@pytest.fixture(scope="module")
def dists(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sdist and, built from it, the wheel, as ``python -m build`` makes a release."""
    # Built from a copy: setuptools writes build/ and *.egg-info into the source tree,
    # which parallel test runs (tox) would share.
    source = tmp_path_factory.mktemp("source")
    for path in ROOT.iterdir():
        if path.is_file():
            shutil.copy(path, source)
        elif path.name in FOLDERS:
            shutil.copytree(path, source / path.name, ignore=shutil.ignore_patterns(*LOCAL))
    (source / "benchmarks").mkdir()
    shutil.copy(ROOT / "benchmarks" / "README.md", source / "benchmarks")
    out = tmp_path_factory.mktemp("dist")
    subprocess.run(
        [sys.executable, "-m", "build", "--outdir", str(out), str(source)],
        check=True,
        capture_output=True,
        timeout=600,
    )
    return out


# The folders of the working copy a release draws from, without what only a
# working copy holds (see .gitignore); benchmarks/ gives its README.md only.
FOLDERS = ("django_sitemapkit", "tests", "docs", "example_project", "scripts")
LOCAL = ("__pycache__", ".*_cache", ".hypothesis", "sitemaps", "*.sqlite3", "robots.txt")


@pytest.mark.slow
def test_the_wheel_holds_the_whole_package(dists: Path) -> None:
    [wheel] = dists.glob("django_sitemapkit-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    package = {
        path.relative_to(ROOT).as_posix()
        for path in (ROOT / "django_sitemapkit").rglob("*")
        if path.is_file() and "__pycache__" not in path.parts
    }
    assert package <= names
    assert "django_sitemapkit/py.typed" in names


@pytest.mark.slow
def test_the_sdist_holds_the_tests_the_docs_and_the_changelog(dists: Path) -> None:
    # Enough to run the suite and build the docs from the unpacked archive
    # (CI does both: .ci/run).
    [sdist] = dists.glob("django_sitemapkit-*.tar.gz")
    with tarfile.open(sdist) as archive:
        names = {name.partition("/")[2] for name in archive.getnames()}
    shipped = {
        name
        for name in source_files("tests", "docs", "example_project")
        if Path(name).suffix in (".py", ".md", ".xsd", ".html", ".txt")
    }
    assert shipped - names == set()
    assert {"tests/conftest.py", "tests/settings.py", "docs/conf.py", "CHANGELOG.md"} <= names
    assert {"benchmarks/README.md", "scripts/test.sh", "tox.ini", "LICENSE"} <= names
    assert not [name for name in names if "__pycache__" in name or name.endswith(".pyc")]


def source_files(*folders: str) -> list[str]:
    """The files of ``folders``: those git tracks in a checkout (not what running the example
    or building the docs left there), every one in an unpacked sdist."""
    if (ROOT / ".git").exists():
        listed = subprocess.run(
            ["git", "ls-files", "--", *folders],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        )
        return listed.stdout.splitlines()
    return [
        path.relative_to(ROOT).as_posix()
        for folder in folders
        for path in (ROOT / folder).rglob("*")
        if path.is_file() and "__pycache__" not in path.parts
    ]
