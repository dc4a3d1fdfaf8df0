"""Incremental builds that splice re-rendered segments into the old page files.

The one property that matters: whatever happened to the rows, the published
pages after an incremental build are byte for byte the pages a full build
makes of the same rows -- plain and gzipped -- while a few edits re-render only
their segments.
"""

from __future__ import annotations

import datetime
import random
from pathlib import Path
from typing import Any

import pytest
from django.db import models

import django_sitemapkit as sitemapkit
from django_sitemapkit.building.splicing import sitemap_can_splice
from django_sitemapkit.engine.rows import reads_columns
from django_sitemapkit.publishing.selection import get_publisher
from django_sitemapkit.sites import site as default_site
from tests.building.builds import assert_same_as_full_build, page_files
from tests.perrow import PerRow
from tests.testapp.models import Article, Document, Event
from tests.utils import parse_index, parse_urlset, path_of

pytestmark = pytest.mark.django_db

T0 = datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC)
SECTION = "testapp-article"
# Pages of 2,500 rows: segments of 1,000, 1,000 and 500.
PAGE_ROWS = 2500


class TextKeyed(models.Model):
    code = models.CharField(max_length=10, primary_key=True)
    updated_at = models.DateTimeField()

    class Meta:
        app_label = "testapp"
        managed = False


@pytest.fixture
def build_dir(settings: Any, tmp_path: Path) -> Path:
    settings.SITEMAPKIT = {**settings.SITEMAPKIT, "BUILD_DIR": str(tmp_path / "incremental")}
    return tmp_path / "incremental"


@pytest.fixture(params=["fast", "absolute-url", "derived"])
def articles(request: Any, sitemaps: Any, build_dir: Path) -> Any:
    """6,000 published articles in three pages: on the fast path (named, or
    read from get_absolute_url()) or through instances."""

    class ArticleSitemap(sitemapkit.ModelSitemap):
        limit = PAGE_ROWS
        changefreq = "weekly"

        def get_queryset(self) -> Any:
            return Article.objects.filter(published=True)

    if request.param == "fast":
        ArticleSitemap.url_name = "article-detail"
        ArticleSitemap.url_kwargs = {"slug": "slug"}
    elif request.param == "absolute-url":
        ArticleSitemap = type("ArticleSitemap", (PerRow, ArticleSitemap), {})
    sitemapkit.register(Article, ArticleSitemap)
    assert reads_columns(sitemaps._registry["testapp-article"]) == (request.param != "absolute-url")
    Article.objects.bulk_create(
        (Article(slug=f"a{i}", updated_at=T0 + datetime.timedelta(seconds=i)) for i in range(6000)),
        batch_size=2000,
    )
    return sitemaps


def nth(*positions: int) -> list[int]:
    """The keys of the articles at these positions in key order (sequences differ by database)."""
    pks = list(Article.objects.order_by("pk").values_list("pk", flat=True))
    return [pks[position] for position in positions]


def edit(*pks: int, at: datetime.datetime) -> None:
    for pk in pks:
        article = Article.objects.get(pk=pk)
        article.title = "edited"
        article.updated_at = at
        article.save()


def test_a_few_edits_re_render_only_their_segments(
    articles: Any, build_dir: Path, settings: Any, tmp_path: Path, renders: list[Any]
) -> None:
    default_site.builder().run()
    renders.clear()
    # The 10th row is in page 1, segment 1 of 3; the 4,999th in page 2, segment 3.
    edit(*nth(9, 4998), at=T0 + datetime.timedelta(days=30))
    result = default_site.builder().run()

    assert [(number, span is not None) for number, span in sorted(renders)] == [
        (1, True),
        (2, True),
    ]
    assert sorted(result.written) == [
        f"sitemap-{SECTION}-1.xml",
        f"sitemap-{SECTION}-1.xml.gz",
        f"sitemap-{SECTION}-2.xml",
        f"sitemap-{SECTION}-2.xml.gz",
        "sitemap.xml",
        "sitemap.xml.gz",
    ]
    # The edited rows carry their new lastmod; the index announces it for both pages.
    files = page_files(build_dir)
    urls = {url.loc: url.lastmod for url in parse_urlset(files[f"sitemap-{SECTION}-1.xml"])}
    assert urls["https://www.example.com/articles/a9/"] == "2026-01-31T00:00:00+00:00"
    assert urls["https://www.example.com/articles/a8/"] == "2026-01-01T00:00:08+00:00"
    index = dict(parse_index((build_dir / "current" / "sitemap.xml").read_bytes()))
    lastmods = {path_of(loc): lastmod for loc, lastmod in index.items()}
    assert lastmods[f"/sitemap-{SECTION}-1.xml"] == "2026-01-31T00:00:00+00:00"
    assert lastmods[f"/sitemap-{SECTION}-2.xml"] == "2026-01-31T00:00:00+00:00"
    assert lastmods[f"/sitemap-{SECTION}-3.xml"] == "2026-01-01T01:39:59+00:00"
    assert_same_as_full_build(build_dir, settings, tmp_path, "edits")


def test_any_history_of_edits_deletions_and_insertions_matches_a_full_build(
    articles: Any, build_dir: Path, settings: Any, tmp_path: Path, renders: list[Any]
) -> None:
    rng = random.Random(20261122)
    default_site.builder().run()
    spliced = whole = 0
    for round_number in range(8):
        at = T0 + datetime.timedelta(days=round_number + 1)
        pks = list(Article.objects.values_list("pk", flat=True))
        operation = ["edit", "edit", "edit", "delete", "insert", "unpublish", "bad-url", "same"][
            round_number
        ]
        if operation == "edit":
            edit(*rng.sample(pks, rng.randrange(1, 6)), at=at)
        elif operation == "delete":
            Article.objects.filter(pk=rng.choice(pks)).delete()
            edit(rng.choice(pks[-3000:]), at=at)
        elif operation == "insert":
            Article.objects.bulk_create(
                Article(slug=f"new{round_number}-{i}", updated_at=at) for i in range(700)
            )
        elif operation == "unpublish":
            Article.objects.filter(pk=rng.choice(pks)).update(published=False, updated_at=at)
        elif operation == "bad-url":
            # A slug no URL pattern accepts: the row is skipped (and logged).
            Article.objects.filter(pk=rng.choice(pks)).update(slug="a/b", updated_at=at)
        else:
            # Edited within the same second: new lastmod, identical bytes.
            Article.objects.filter(pk=pks[0]).update(
                updated_at=Article.objects.get(pk=pks[0]).updated_at
                + datetime.timedelta(microseconds=1)
            )
        renders.clear()
        default_site.builder().run()
        spliced += sum(1 for _, span in renders if span is not None)
        whole += sum(1 for _, span in renders if span is None)
        assert_same_as_full_build(build_dir, settings, tmp_path, str(round_number))
    # Both ways were taken: edits spliced, row count changes rendered whole.
    assert spliced > 0
    assert whole > 0


def test_a_page_whose_old_file_is_not_what_the_manifest_says_is_rendered_whole(
    articles: Any, build_dir: Path, settings: Any, tmp_path: Path, renders: list[Any]
) -> None:
    default_site.builder().run()
    manifest = get_publisher().manifest()
    assert manifest is not None
    generation = build_dir / "generations" / manifest.generation
    page = generation / f"sitemap-{SECTION}-1.xml"
    data = page.read_bytes()
    page.unlink()  # a new file: the other generations' hard links stay intact
    page.write_bytes(data + b"\n")
    edit(*nth(4), at=T0 + datetime.timedelta(days=3))
    renders.clear()
    default_site.builder().run()
    assert renders == [(1, None)]
    assert_same_as_full_build(build_dir, settings, tmp_path, "tampered")


def test_without_gzip_the_plain_files_are_spliced(
    articles: Any, build_dir: Path, settings: Any, tmp_path: Path, renders: list[Any]
) -> None:
    settings.SITEMAPKIT = {**settings.SITEMAPKIT, "GZIP": False}
    default_site.builder().run()
    edit(*nth(2600), at=T0 + datetime.timedelta(days=3))
    renders.clear()
    result = default_site.builder().run()
    assert [(number, span is not None) for number, span in renders] == [(2, True)]
    assert sorted(result.written) == [f"sitemap-{SECTION}-2.xml", "sitemap.xml"]
    assert_same_as_full_build(build_dir, settings, tmp_path, "plain")


def test_uuid_keys_are_not_spliced_but_pages_stay_right(
    sitemaps: Any, build_dir: Path, settings: Any, tmp_path: Path, renders: list[Any]
) -> None:
    # MariaDB's uuid type sorts by the last group first: Python cannot say
    # which segment holds a key, so the page is rendered whole.
    @sitemapkit.register(Document)
    class DocumentSitemap(sitemapkit.ModelSitemap):
        limit = PAGE_ROWS

    Document.objects.bulk_create(
        Document(updated_at=T0 + datetime.timedelta(minutes=i)) for i in range(3000)
    )
    default_site.builder().run()
    document = Document.objects.order_by("pk")[1200]
    document.updated_at = T0 + datetime.timedelta(days=40)
    document.save()
    renders.clear()
    default_site.builder().run()
    assert renders == [(1, None)]
    assert_same_as_full_build(build_dir, settings, tmp_path, "uuid")


def test_which_sections_can_be_spliced(sitemaps: Any) -> None:
    class Articles(sitemapkit.ModelSitemap):
        model = Article

    class Events(sitemapkit.ModelSitemap):
        model = Event
        lastmod_field = "modified"  # a DateField: edits of one day look alike

    class TextKeys(sitemapkit.ModelSitemap):
        model = TextKeyed  # text keys sort by the database's collation

    class Documents(sitemapkit.ModelSitemap):
        model = Document

    assert sitemap_can_splice(Articles())
    assert not sitemap_can_splice(Documents())
    assert not sitemap_can_splice(Events())
    assert not sitemap_can_splice(TextKeys())


def test_naive_datetimes_without_use_tz(
    sitemaps: Any, build_dir: Path, settings: Any, tmp_path: Path, renders: list[Any]
) -> None:
    settings.USE_TZ = False

    @sitemapkit.register(Article)
    class ArticleSitemap(sitemapkit.ModelSitemap):
        limit = PAGE_ROWS
        url_name = "article-detail"
        url_kwargs = {"slug": "slug"}

    naive = T0.replace(tzinfo=None)
    Article.objects.bulk_create(
        Article(slug=f"a{i}", updated_at=naive + datetime.timedelta(seconds=i)) for i in range(3000)
    )
    default_site.builder().run()
    edit(*nth(1500), at=naive + datetime.timedelta(days=2))
    renders.clear()
    default_site.builder().run()
    assert [(number, span is not None) for number, span in renders] == [(1, True)]
    assert_same_as_full_build(build_dir, settings, tmp_path, "naive")


def test_without_kernel_copies_the_pieces_are_written(
    articles: Any,
    build_dir: Path,
    settings: Any,
    tmp_path: Path,
    renders: list[Any],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import errno
    import os

    def refuse(*args: Any) -> int:
        raise OSError(errno.EXDEV, "Invalid cross-device link")

    default_site.builder().run()
    monkeypatch.setattr(os, "copy_file_range", refuse)
    edit(*nth(1500), at=T0 + datetime.timedelta(days=3))
    renders.clear()
    default_site.builder().run()
    assert [(number, span is not None) for number, span in renders] == [(1, True)]
    assert_same_as_full_build(build_dir, settings, tmp_path, "no-copy")


def test_a_page_split_below_its_old_segments_is_rendered_whole(
    sitemaps: Any, build_dir: Path, settings: Any, tmp_path: Path, renders: list[Any]
) -> None:
    @sitemapkit.register(Article)
    class ArticleSitemap(sitemapkit.ModelSitemap):
        limit = PAGE_ROWS
        url_name = "article-detail"
        url_kwargs = {"slug": "slug"}

    # Keys 2, 4, ..., 5000: one full page, cut after keys 2000 and 4000.
    Article.objects.bulk_create(
        Article(id=2 * i, slug=f"e{i}", updated_at=T0 + datetime.timedelta(seconds=i))
        for i in range(1, 2501)
    )
    default_site.builder().run()
    # 1,500 rows imported between them with old timestamps: the page holds
    # 4,000 rows and splits at key 3501, below its old cut at key 4000; its
    # row count is 2,500 again, and an edit in its first segment makes it a
    # candidate for splicing.
    Article.objects.bulk_create(
        Article(id=2001 + 2 * i, slug=f"o{i}", updated_at=T0) for i in range(1500)
    )
    edit(2, at=T0 + datetime.timedelta(days=5))
    renders.clear()
    default_site.builder().run()
    assert all(span is None for _, span in renders), renders
    assert_same_as_full_build(build_dir, settings, tmp_path, "split")
    files = page_files(build_dir)
    listed = [
        url.loc
        for name, data in files.items()
        if name.endswith(".xml")
        for url in parse_urlset(data)
    ]
    assert len(listed) == len(set(listed)) == 4000


def test_rows_that_came_and_went_in_unedited_segments_make_the_page_render_whole(
    articles: Any, build_dir: Path, settings: Any, tmp_path: Path, renders: list[Any]
) -> None:
    # Position 1,500 starts unpublished: page 1 holds positions 0-2,500 without it.
    hidden, shown, edited = nth(1500, 100, 2200)
    Article.objects.filter(pk=hidden).update(published=False)
    default_site.builder().run()
    # Without touching updated_at, one row leaves segment 1 and another joins
    # segment 2: the page keeps its row count, and only an edit in segment 3
    # moves its newest lastmod. Re-rendering segment 3 alone would keep the
    # unpublished row and miss the published one.
    Article.objects.filter(pk=shown).update(published=False)
    Article.objects.filter(pk=hidden).update(published=True)
    edit(edited, at=T0 + datetime.timedelta(days=9))
    renders.clear()
    default_site.builder().run()
    assert renders == [(1, None)]
    assert_same_as_full_build(build_dir, settings, tmp_path, "came-and-went")
    listed = {url.loc for url in parse_urlset(page_files(build_dir)[f"sitemap-{SECTION}-1.xml"])}
    assert "https://www.example.com/articles/a1500/" in listed
    assert "https://www.example.com/articles/a100/" not in listed


def retitle(pk: int, slug: str, at: datetime.datetime) -> None:
    article = Article.objects.get(pk=pk)
    article.slug = slug
    article.updated_at = at
    article.save()


def test_an_edit_that_repeats_or_frees_a_url_renders_the_page_whole(
    articles: Any, build_dir: Path, settings: Any, tmp_path: Path, renders: list[Any]
) -> None:
    # Rows 10 and 1,500: page 1, segments 1 and 2.
    first, second = nth(10, 1500)
    repeated = "https://www.example.com/articles/a10/"
    default_site.builder().run()

    # The second row takes the first one's URL: the page lists it once.
    renders.clear()
    retitle(second, "a10", T0 + datetime.timedelta(days=30))
    default_site.builder().run()
    assert (1, None) in renders
    locs = [u.loc for u in parse_urlset(page_files(build_dir)[f"sitemap-{SECTION}-1.xml"])]
    assert locs.count(repeated) == 1
    assert "https://www.example.com/articles/a1500/" not in locs
    assert_same_as_full_build(build_dir, settings, tmp_path, "repeated")

    # The first row moves to another URL: the second one, skipped so far, is listed.
    retitle(first, "moved", T0 + datetime.timedelta(days=31))
    default_site.builder().run()
    locs = [u.loc for u in parse_urlset(page_files(build_dir)[f"sitemap-{SECTION}-1.xml"])]
    assert locs.count(repeated) == 1
    assert "https://www.example.com/articles/moved/" in locs
    assert_same_as_full_build(build_dir, settings, tmp_path, "freed")
