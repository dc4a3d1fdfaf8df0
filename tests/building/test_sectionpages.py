"""Which pages a build keeps without rendering them, and which it renders again."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from django_sitemapkit._engine import sections
from django_sitemapkit._publishing.selection import get_publisher
from tests.building.builds import EDITED, build, published
from tests.testapp.models import Article

pytestmark = pytest.mark.django_db


def test_unchanged_pages_are_not_rendered_again(
    site: Any, build_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    build()
    rendered: list[tuple[str, int]] = []
    real = sections.render_sitemap_page

    def spy(sitemap: Any, number: int, context: Any) -> Any:
        rendered.append((sitemap.name, number))
        return real(sitemap, number, context)

    monkeypatch.setattr(sections, "render_sitemap_page", spy)
    article = Article.objects.get(slug="a25")
    article.updated_at = EDITED
    article.save()
    result = build()
    # Only the edited page of the model section; the static pages are a list
    # and always rendered (cheaply).
    assert sorted(rendered) == [("pages", 1), ("testapp-article", 3)]
    assert sorted(result.written) == [
        "sitemap-testapp-article-3.xml",
        "sitemap-testapp-article-3.xml.gz",
        "sitemap.xml",
        "sitemap.xml.gz",
    ]


def test_rerender_catches_changes_no_lastmod_shows(site: Any, build_dir: Path) -> None:
    build()
    Article.objects.filter(slug="a0").update(slug="renamed-quietly")
    assert build().written == []
    result = build(rerender=True)
    assert sorted(result.written)[:2] == [
        "sitemap-testapp-article-1.xml",
        "sitemap-testapp-article-1.xml.gz",
    ]
    assert b"/articles/renamed-quietly/" in published(build_dir)["sitemap-testapp-article-1.xml"]


def test_progress_counts_every_page_kept_or_rendered(site: Any, build_dir: Path) -> None:
    calls: list[tuple[int, int]] = []
    build(progress=lambda done, total: calls.append((done, total)))
    # Four pages of articles, one of tags, one of static pages.
    assert calls == [(done, 6) for done in range(1, 7)]
    Article.objects.filter(slug="a25").update(updated_at=EDITED)
    calls.clear()
    result = build(progress=lambda done, total: calls.append((done, total)))
    assert len(result.written) == 4
    assert calls == [(done, 6) for done in range(1, 7)]


def test_a_page_split_while_others_are_kept_lists_each_page_once(
    site: Any, build_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    build()
    monkeypatch.setattr("django_sitemapkit._engine.entries.MAX_BYTES_PER_FILE", 2500)
    for i in range(10, 20):  # page 2 grows past the byte limit: split while 1, 3 and 4 are kept
        Article.objects.filter(slug=f"a{i}").update(slug=f"a{i}-" + "x" * 300, updated_at=EDITED)
    result = build()
    manifest = get_publisher().manifest()
    assert manifest is not None
    articles = [r.number for r in manifest.pages if r.section == "testapp-article"]
    assert articles == [1, 2, 3, 4, 5]
    assert sorted(result.written) == [
        "sitemap-testapp-article-2.xml",
        "sitemap-testapp-article-2.xml.gz",
        "sitemap-testapp-article-5.xml",
        "sitemap-testapp-article-5.xml.gz",
        "sitemap.xml",
        "sitemap.xml.gz",
    ]
