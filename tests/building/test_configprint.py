"""A changed sitemap class re-renders its section, and only it, on the ordinary build."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command

from django_sitemapkit._building.builder import config_fingerprint
from django_sitemapkit._sites import site as default_site
from tests.building.builds import build
from tests.utils import parse_urlset

pytestmark = pytest.mark.django_db


def run() -> list[str]:
    out = io.StringIO()
    call_command("sitemapkit_build", stdout=out, stderr=io.StringIO())
    return out.getvalue().splitlines()


def stats(build_dir: Path) -> dict[str, tuple[int, int]]:
    current = build_dir / "current"
    return {p.name: (p.stat().st_ino, p.stat().st_mtime_ns) for p in current.iterdir()}


def test_changing_changefreq_re_renders_that_section_only(site: Any, build_dir: Path) -> None:
    build()
    before = stats(build_dir)
    type(default_site["testapp-tag"]).changefreq = "daily"
    try:
        lines = run()
        result = build()
    finally:
        del type(default_site["testapp-tag"]).changefreq
    assert lines[0] == (
        "Re-rendered section 'testapp-tag' (its sitemap class, URL patterns or output "
        "settings changed)."
    )
    assert lines[1].startswith("3 sections built: ")
    tag = (build_dir / "current" / "sitemap-testapp-tag-1.xml").read_bytes()
    assert [url.changefreq for url in parse_urlset(tag)] == ["daily"]
    after = stats(build_dir)
    for name in before:
        if name.startswith(("sitemap-testapp-article-", "sitemap-pages-")):
            assert after[name] == before[name], name
    # The next ordinary build keeps everything: the new fingerprint is published.
    assert result.written == [] and result.reconfigured == []


def test_fingerprint_follows_class_and_patterns(site: Any, settings: Any) -> None:
    tag = default_site["testapp-tag"]
    first = config_fingerprint(tag)
    assert config_fingerprint(tag) == first
    settings.SITEMAPKIT = {**settings.SITEMAPKIT, "STRIP_QUERY_PARAMS": ["ref"]}
    assert config_fingerprint(tag) != first
