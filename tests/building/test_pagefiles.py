"""Page files: written only when their bytes changed, with the lastmod the index announces."""

from __future__ import annotations

import datetime
import gzip
from pathlib import Path
from typing import Any

import pytest

from django_sitemapkit._engine.rendering import render_index
from django_sitemapkit._publishing.selection import get_publisher
from django_sitemapkit._sites import site as default_site
from tests.building.builds import EDITED, T0, assert_same_as_full_build, build, published
from tests.testapp.models import Article
from tests.utils import parse_index, path_of

pytestmark = pytest.mark.django_db


def test_editing_one_object_rewrites_one_page_and_the_index(site: Any, build_dir: Path) -> None:
    build()
    index = dict(parse_index(published(build_dir)["sitemap.xml"]))
    article = Article.objects.get(slug="a15")
    article.updated_at = T0 + datetime.timedelta(days=100)
    article.save()
    result = build()
    assert sorted(result.written) == [
        "sitemap-testapp-article-2.xml",
        "sitemap-testapp-article-2.xml.gz",
        "sitemap.xml",
        "sitemap.xml.gz",
    ]
    index2 = dict(parse_index(published(build_dir)["sitemap.xml"]))
    changed = {loc for loc in index if index[loc] != index2[loc]}
    assert changed == {"https://www.example.com/sitemap-testapp-article-2.xml"}
    assert (
        index2["https://www.example.com/sitemap-testapp-article-2.xml"]
        == "2026-04-11T00:00:00+00:00"
    )


@pytest.mark.parametrize("full", [False, True], ids=["incremental", "full"])
@pytest.mark.parametrize("how", ["delete", "unpublish"])
def test_a_deletion_rewrites_its_page_dated_by_the_entries_left(
    site: Any, build_dir: Path, how: str, full: bool
) -> None:
    build()
    index = dict(parse_index(published(build_dir)["sitemap.xml"]))
    article = Article.objects.get(slug="a3")
    if how == "delete":
        article.delete()
    else:
        article.published = False
        article.save()
    builder = default_site.builder(full=full)
    result = builder.run()
    pages = {path_of(loc).lstrip("/") for loc in index}
    rewritten = pages if full else {"sitemap-testapp-article-1.xml"}
    assert {name.removesuffix(".gz") for name in result.written} == rewritten | {"sitemap.xml"}
    built = published(build_dir)["sitemap.xml"]
    assert built == render_index(base_url="https://www.example.com", sitemaps=default_site).content
    # a3 was not page 1's newest row (a9 is): the index dates the page as before.
    assert dict(parse_index(built)) == index
    # Its file's Last-Modified moves forward: a client holding the old bytes refetches them.
    manifest = get_publisher().manifest()
    assert manifest is not None
    record = manifest.record_for("sitemap-testapp-article-1.xml")
    assert record is not None
    assert record.lastmod == builder.started.isoformat()


def test_full_rewrites_everything(site: Any, build_dir: Path) -> None:
    build()
    before = published(build_dir)
    result = build(full=True)
    assert len(result.written) == 14 and result.published
    # The same bytes again: the index announces no page as changed.
    assert published(build_dir) == before


def test_unchanged_files_are_hard_links(site: Any, build_dir: Path) -> None:
    build()
    Article.objects.filter(slug="a0").update(slug="x", updated_at=EDITED)
    build()
    page = build_dir / "current" / "sitemap-testapp-article-3.xml"
    assert page.stat().st_nlink == 2


def test_every_gz_is_one_gzip_member_of_its_xml(site: Any, build_dir: Path) -> None:
    build()
    files = published(build_dir)
    for name, data in files.items():
        if name.endswith(".gz"):
            xml = files[name.removesuffix(".gz")]
            assert gzip.decompress(data) == xml
            assert data == gzip.compress(xml, compresslevel=6, mtime=0)


def test_incremental_builds_publish_what_a_full_build_would(
    site: Any, build_dir: Path, settings: Any, tmp_path: Path
) -> None:
    build()
    Article.objects.filter(slug="a4").update(updated_at=EDITED)
    Article.objects.filter(slug="a21").delete()
    Article.objects.filter(slug="a30").update(published=False, updated_at=EDITED)
    Article.objects.bulk_create(
        Article(slug=f"n{i}", updated_at=T0 + datetime.timedelta(days=i)) for i in range(12)
    )
    build()
    assert_same_as_full_build(build_dir, settings, tmp_path, "edits")


def test_a_dry_run_counts_what_a_build_writes(site: Any, build_dir: Path) -> None:
    build()
    Article.objects.filter(slug="a12").update(updated_at=EDITED)
    dry = build(dry_run=True)
    assert not dry.published
    result = build()
    assert (dry.written, dry.unchanged, dry.urls, dry.bytes, dry.bytes_written) == (
        result.written,
        result.unchanged,
        result.urls,
        result.bytes,
        result.bytes_written,
    )
