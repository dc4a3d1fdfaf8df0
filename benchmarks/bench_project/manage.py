#!/usr/bin/env python
"""manage.py of the benchmark project (settings: benchsite.settings)."""

import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
# The bench project and the checkout's django_sitemapkit (or the tree named by
# BENCH_SITEMAPKIT_SRC), importable from anywhere.
SRC = os.environ.get("BENCH_SITEMAPKIT_SRC") or str(HERE.parent.parent)
sys.path[:0] = [str(HERE), SRC]

if __name__ == "__main__":
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "benchsite.settings")
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)
