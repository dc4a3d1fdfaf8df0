"""Helpers of the build tests: builds of the default site, and the files they publish."""

from __future__ import annotations

import datetime
from pathlib import Path
from typing import Any

from django_sitemapkit.sites import site as default_site

T0 = datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC)
# An edit as the ORM makes it: updated_at moves with the row.
EDITED = datetime.datetime(2026, 6, 1, tzinfo=datetime.UTC)


def build(sections: list[str] | None = None, **kwargs: Any) -> Any:
    return default_site.builder(**kwargs).run(sections)


def published(build_dir: Path) -> dict[str, bytes]:
    current = build_dir / "current"
    return {
        p.name: p.read_bytes()
        for p in current.iterdir()
        # The stylesheet beside them is no sitemap: test_stylesheet.py checks it.
        if p.name.startswith(("sitemap.", "sitemap-")) and p.suffix != ".xsl"
    }
