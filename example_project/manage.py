#!/usr/bin/env python
"""Django's command-line utility for the django-sitemapkit example project."""

import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent  # example_project/
REPO_ROOT = HERE.parent  # repository root, holds the django_sitemapkit package

# Make ``django_sitemapkit`` importable without installing it, and ``demo`` /
# ``example_project`` importable from any working directory.  HERE goes first
# so ``example_project`` resolves to the settings package, not this directory.
for path in (str(REPO_ROOT), str(HERE)):
    if path in sys.path:
        sys.path.remove(path)
    sys.path.insert(0, path)


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "example_project.settings")
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
