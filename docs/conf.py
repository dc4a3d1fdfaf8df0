"""Sphinx configuration of the documentation.

Build it as CI does, where every warning is an error::

    sphinx-build -W --keep-going -b html docs docs/_build/html
"""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# The version is read from pyproject.toml, not from the installed package, so
# the docs build from a checkout whatever is installed.
with (ROOT / "pyproject.toml").open("rb") as file:
    release = tomllib.load(file)["project"]["version"]

project = "django-sitemapkit"
author = "the django-sitemapkit authors"
copyright = author
version = release

extensions = ["myst_parser"]
source_suffix = {".md": "markdown"}
exclude_patterns = ["_build"]
# Anchors for headings down to ####, so pages link to one setting or check
# as `settings.md#base_url`, the way they also work when read on a Git host.
myst_heading_anchors = 4

html_theme = "furo"
html_title = f"django-sitemapkit {release}"
