from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management.base import CommandError

from django_sitemapkit._validation.xmlfile import load_schemas
from tests.validation.servers import ROOT
from tests.xsd import xsd_dir, xsd_dirs


def test_the_folder_comes_from_the_option_else_the_environment(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    folder = str(xsd_dir())  # read before the environment changes under it
    monkeypatch.delenv("SITEMAPKIT_XSD_DIR", raising=False)
    assert load_schemas(None) is None
    assert load_schemas(folder) is not None
    monkeypatch.setenv("SITEMAPKIT_XSD_DIR", folder)
    assert load_schemas(None) is not None
    with pytest.raises(CommandError, match=f"{tmp_path} has no sitemap"):
        load_schemas(str(tmp_path))


def test_an_unusable_folder(tmp_path: Path) -> None:
    with pytest.raises(CommandError, match=r"has no sitemap\.xsd"):
        load_schemas(str(tmp_path))
    (tmp_path / "sitemap.xsd").write_text("<not a schema")
    (tmp_path / "siteindex.xsd").write_text("<not a schema")
    with pytest.raises(CommandError, match="cannot read the schemas"):
        load_schemas(str(tmp_path))


def test_the_schemas_at_hand() -> None:
    # The project's own (tests/schemas/), and the official ones wherever present.
    for folder in xsd_dirs():
        schemas = load_schemas(str(folder))
        assert schemas is not None
        assert set(schemas) == {"urlset", "sitemapindex"}


# manage.py sitemapkit_validate, in a Python where lxml cannot be imported.
_WITHOUT_LXML = (
    "import runpy, sys; sys.modules['lxml'] = None; "
    "sys.argv = ['django', 'sitemapkit_validate', *sys.argv[1:]]; "
    "runpy.run_module('django', run_name='__main__')"
)


def test_xsd_dir_without_lxml_says_how_to_install_it(tmp_path: Path) -> None:
    """Issue #24, defect 11: the ``validate`` extra installs what ``--xsd-dir`` needs."""
    done = subprocess.run(
        [sys.executable, "-c", _WITHOUT_LXML, "--xsd-dir", str(tmp_path)],
        cwd=ROOT,
        env={**os.environ, "DJANGO_SETTINGS_MODULE": "tests.settings"},
        capture_output=True,
        text=True,
    )
    assert done.returncode == 1
    assert done.stdout == ""
    assert done.stderr == (
        f"CommandError: validating against the XSDs of {tmp_path} needs lxml, which is not "
        "installed: pip install lxml (the package's 'validate' extra installs it)\n"
    )
