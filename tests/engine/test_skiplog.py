"""Skip warnings: once per render, at most MAX_PER_SECTION per section, then a count."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from django.test import Client

import django_sitemapkit as sitemapkit
from django_sitemapkit._engine import skiplog
from django_sitemapkit._engine.rendering import render_index
from django_sitemapkit._engine.skiplog import MAX_PER_SECTION
from tests.testapp.models import Tag


def remembered() -> int:
    """How many skips the current render holds, to be logged once."""
    log = skiplog._current.get()
    return 0 if log is None else sum(map(len, log.seen.values()))


def register_list(items: list[str]) -> None:
    @sitemapkit.register(section="pages")
    class Pages(sitemapkit.Sitemap):
        def items(self) -> list[str]:
            return items

        def location(self, item: str) -> str:
            if item.startswith("bad"):
                raise ValueError(f"no page for {item}")
            return f"/{item}/"


def skip_lines(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if "skipped" in r.getMessage()]


@pytest.mark.django_db
def test_each_skip_is_logged_once_per_render(
    sitemaps: Any, client: Client, caplog: pytest.LogCaptureFixture
) -> None:
    register_list(["a", "bad-1", "b", "bad-2"])
    with caplog.at_level(logging.WARNING, "django_sitemapkit"):
        assert client.get("/sitemap-pages-1.xml").status_code == 200
    # The page is measured, then written: two passes, one warning per skipped item.
    lines = skip_lines(caplog)
    assert len(lines) == 2, lines
    assert "'bad-1'" in lines[0] and "no page for bad-1" in lines[0]
    assert "'bad-2'" in lines[1]
    caplog.clear()
    with caplog.at_level(logging.WARNING, "django_sitemapkit"):
        assert client.get("/sitemap.xml").status_code == 200
    assert len(skip_lines(caplog)) == 2  # another render: logged again, once


@pytest.mark.django_db
def test_skip_warnings_are_capped_per_section_with_a_count(
    sitemaps: Any, client: Client, caplog: pytest.LogCaptureFixture
) -> None:
    register_list(["a", *(f"bad-{n}" for n in range(MAX_PER_SECTION + 15))])
    with caplog.at_level(logging.WARNING, "django_sitemapkit"):
        assert client.get("/sitemap-pages-1.xml").status_code == 200
    lines = skip_lines(caplog)
    assert len(lines) == MAX_PER_SECTION + 1, lines
    assert [f"'bad-{n}'" in line for n, line in enumerate(lines[:-1])] == [True] * MAX_PER_SECTION
    assert lines[-1] == "Sitemap section 'pages': ... and 15 more skipped."


@pytest.mark.django_db
def test_a_build_logs_each_skip_once_and_caps_them(
    sitemaps: Any, caplog: pytest.LogCaptureFixture, tmp_path: Any, settings: Any
) -> None:
    settings.SITEMAPKIT = {**settings.SITEMAPKIT, "BUILD_DIR": str(tmp_path)}
    register_list(["a", *(f"bad-{n}" for n in range(MAX_PER_SECTION + 3))])
    with caplog.at_level(logging.WARNING, "django_sitemapkit"):
        result = sitemapkit.build()
    assert result.skipped == MAX_PER_SECTION + 3
    lines = skip_lines(caplog)
    assert len(lines) == MAX_PER_SECTION + 1, lines
    assert lines[-1] == "Sitemap section 'pages': ... and 3 more skipped."


@pytest.mark.django_db
@pytest.mark.parametrize("render", ["build", "index"])
def test_what_a_render_remembers_of_skips_does_not_grow_with_its_pages(
    sitemaps: Any, caplog: pytest.LogCaptureFixture, tmp_path: Any, settings: Any, render: str
) -> None:
    """A model section's skips are remembered for the page being read, not the whole render:
    a build (or the index probing each page) of 2,000 skipped rows holds one page's."""
    settings.SITEMAPKIT = {**settings.SITEMAPKIT, "BUILD_DIR": str(tmp_path)}
    held: list[int] = []

    @sitemapkit.register(Tag)
    class TagSitemap(sitemapkit.ModelSitemap):
        limit = 50

        def location(self, item: Tag) -> str:
            held.append(remembered())
            return "mailto:x@example.com" if item.slug.startswith("bad") else f"/t/{item.slug}/"

    Tag.objects.bulk_create(Tag(slug=f"bad-{n:04}") for n in range(2000))
    Tag.objects.create(slug="ok")
    with caplog.at_level(logging.WARNING, "django_sitemapkit"):
        if render == "build":
            assert sitemapkit.build().skipped == 2000
        else:
            render_index(base_url="https://www.example.com", sitemaps=sitemapkit.site)
    assert len(held) >= 2000  # every row was read
    assert max(held) <= TagSitemap.limit
    # Deduplicated per page, the count is still exact: each skip counted once.
    lines = skip_lines(caplog)
    assert len(lines) == MAX_PER_SECTION + 1
    assert (
        lines[-1]
        == f"Sitemap section 'testapp-tag': ... and {2000 - MAX_PER_SECTION} more skipped."
    )
