"""Helpers of the build tests: builds of the default site, and the files they publish."""

from __future__ import annotations

import datetime
import gzip
import hashlib
import json
from pathlib import Path
from typing import Any

from django_sitemapkit._sites import site as default_site

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
        # The stylesheet beside them is no sitemap: test_builder.py and test_stylesheet.py check it.
        if p.name.startswith(("sitemap.", "sitemap-")) and p.suffix not in (".css", ".xsl")
    }


def page_files(folder: Path) -> dict[str, bytes]:
    """The page files of a published set (not the index, whose lastmods have a history)."""
    return {
        path.name: path.read_bytes()
        for path in (folder / "current").iterdir()
        if path.name.startswith("sitemap-")
    }


def full_build_files(settings: Any, folder: Path) -> dict[str, bytes]:
    """The pages a full build makes of the rows as they are now, in a folder of its own."""
    saved = settings.SITEMAPKIT
    settings.SITEMAPKIT = {**saved, "BUILD_DIR": str(folder)}
    try:
        default_site.builder(full=True).run()
    finally:
        settings.SITEMAPKIT = saved
    return page_files(folder)


def assert_same_as_full_build(build_dir: Path, settings: Any, tmp_path: Path, label: str) -> None:
    """The pages published in ``build_dir`` are byte for byte a full build's of the rows now."""
    incremental = page_files(build_dir)
    # The manifest's digests (worked out in a background thread for spliced
    # pages) are those of the files.
    manifest = json.loads((build_dir / "current" / "sitemapkit-manifest.json").read_bytes())
    digests = {f"sitemap-{p['section']}-{p['number']}.xml": p["sha256"] for p in manifest["pages"]}
    assert digests == {
        name: hashlib.sha256(data).hexdigest()
        for name, data in incremental.items()
        if name.endswith(".xml")
    }
    full = full_build_files(settings, tmp_path / f"full-{label}")
    assert incremental.keys() == full.keys()
    for name, data in incremental.items():
        assert data == full[name], name
        if name.endswith(".gz"):
            assert gzip.decompress(data) == incremental[name.removesuffix(".gz")]
