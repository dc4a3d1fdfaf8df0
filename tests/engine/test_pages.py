"""Page design: stable under edits, growth and deletions; dense for sparse querysets."""

from __future__ import annotations

import datetime
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

import django_sitemapkit as sitemapkit
from django_sitemapkit._engine import rows
from django_sitemapkit._engine.pages import KeysetPages, Page, PageManager, PageNotFound, Recording
from django_sitemapkit._engine.rendering import render_index, render_page
from django_sitemapkit._engine.sections import PROBE_ROWS
from django_sitemapkit._serving.cache import file_cache, section_tokens
from django_sitemapkit._sites import SitemapSite, site
from django_sitemapkit._sites import site as default_site
from django_sitemapkit.models import SitemapPage
from tests.testapp.models import Article, Document
from tests.utils import parse_index, parse_urlset

pytestmark = pytest.mark.django_db

BASE = "https://www.example.com"
T0 = datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC)


def make_articles(count: int, *, start: int = 0, published: Any = True) -> None:
    Article.objects.bulk_create(
        Article(
            slug=f"a{i}",
            published=published(i) if callable(published) else published,
            updated_at=T0 + datetime.timedelta(minutes=i),
        )
        for i in range(start, start + count)
    )


def register_articles(limit: int = 10) -> None:
    @sitemapkit.register(Article)
    class ArticleSitemap(sitemapkit.ModelSitemap):
        def get_queryset(self) -> Any:
            return Article.objects.filter(published=True)

    ArticleSitemap.limit = limit


def snapshot() -> tuple[dict[str, str | None], dict[int, bytes]]:
    """The index as {loc: lastmod} and every page's bytes."""
    index = dict(parse_index(render_index(base_url=BASE, sitemaps=site).content))
    pages = {}
    for loc in index:
        number = int(loc.rsplit("-", 1)[1].split(".")[0])
        pages[number] = render_page("testapp-article", number, base_url=BASE, sitemaps=site).content
    return index, pages


def changed(before: dict[Any, Any], after: dict[Any, Any]) -> set[Any]:
    return {key for key in before.keys() | after.keys() if before.get(key) != after.get(key)}


def test_sparse_queryset_gives_full_pages(sitemaps: Any) -> None:
    # 1 % of the table kept: pages are cut by count, not by key range.
    make_articles(5000, published=lambda i: i % 100 == 0)
    register_articles(limit=10)
    _index, pages = snapshot()
    assert len(pages) == 5
    counts = [len(parse_urlset(content)) for content in pages.values()]
    assert counts == [10, 10, 10, 10, 10]


def test_editing_one_object_changes_one_page_and_one_index_entry(sitemaps: Any) -> None:
    make_articles(45)
    register_articles()
    index, pages = snapshot()
    article = Article.objects.get(slug="a23")
    article.updated_at = T0 + datetime.timedelta(days=30)
    article.save()
    index2, pages2 = snapshot()
    assert changed(pages, pages2) == {3}
    assert len(changed(index, index2)) == 1
    assert index2[f"{BASE}/sitemap-testapp-article-3.xml"] == "2026-01-31T00:00:00+00:00"


def test_adding_objects_changes_only_the_last_page_or_adds_pages(sitemaps: Any) -> None:
    make_articles(45)
    register_articles()
    _index, pages = snapshot()
    make_articles(3, start=45)
    _index2, pages2 = snapshot()
    assert changed(pages, pages2) == {5}
    make_articles(20, start=48)
    _index3, pages3 = snapshot()
    assert changed(pages, pages3) == {5, 6, 7}
    assert [len(parse_urlset(pages3[n])) for n in sorted(pages3)] == [10, 10, 10, 10, 10, 10, 8]


@pytest.mark.parametrize("how", ["delete", "unpublish"])
def test_removing_one_object_changes_at_most_its_own_page(sitemaps: Any, how: str) -> None:
    make_articles(45)
    register_articles()
    _index, pages = snapshot()
    article = Article.objects.get(slug="a12")
    if how == "delete":
        article.delete()
    else:
        article.published = False
        article.save()
    _index2, pages2 = snapshot()
    assert changed(pages, pages2) == {2}
    assert len(parse_urlset(pages2[2])) == 9


def test_overfull_middle_page_is_split_without_touching_the_others(sitemaps: Any) -> None:
    make_articles(40, published=lambda i: i != 15)
    register_articles()
    _index, pages = snapshot()  # pages of 10: a0-a9, a10-a20 (a15 unpublished), ...
    Article.objects.filter(slug="a15").update(published=True)
    _index2, pages2 = snapshot()
    assert changed(pages, pages2) == {2, 5}
    assert len(parse_urlset(pages2[2])) + len(parse_urlset(pages2[5])) == 11
    locs = [u.loc for n in sorted(pages2) for u in parse_urlset(pages2[n])]
    assert len(locs) == len(set(locs)) == 40


def test_page_render_splits_a_grown_last_page(sitemaps: Any) -> None:
    make_articles(10)
    register_articles()
    snapshot()
    make_articles(5, start=10)
    # The page is rendered before the index noticed the growth: it stays full
    # and the rest moves to a new page that the next index lists.
    assert (
        len(parse_urlset(render_page("testapp-article", 1, base_url=BASE, sitemaps=site).content))
        == 10
    )
    _index, pages = snapshot()
    assert sorted(pages) == [1, 2]
    assert len(parse_urlset(pages[2])) == 5


def test_byte_limit_splits_pages(sitemaps: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("django_sitemapkit._engine.entries.MAX_BYTES_PER_FILE", 4000)
    Article.objects.bulk_create(Article(slug=f"{i}-" + "x" * 300, updated_at=T0) for i in range(30))
    register_articles(limit=50)
    # Rendering page 1 stops at the byte limit and cuts the page there.
    content = render_page("testapp-article", 1, base_url=BASE, sitemaps=site).content
    assert len(content) <= 4000
    first = len(parse_urlset(content))
    assert 0 < first < 30
    # Each render may cut again; the set settles once every page fits.
    pages: dict[int, bytes] = {}
    for _ in range(10):
        _index, latest = snapshot()
        if latest == pages:
            break
        pages = latest
    assert len(pages) > 2
    assert all(len(c) <= 4000 for c in pages.values())
    locs = [u.loc for n in sorted(pages) for u in parse_urlset(pages[n])]
    assert len(locs) == len(set(locs)) == 30


def test_the_index_costs_one_small_probe_query_a_page(sitemaps: Any) -> None:
    """Three queries a section, then one small keyset query a page (for its first entry)."""
    make_articles(30)
    register_articles()
    snapshot()
    with CaptureQueriesContext(connection) as small:
        render_index(base_url=BASE, sitemaps=site)
    make_articles(300, start=30)
    snapshot()
    with CaptureQueriesContext(connection) as large:
        render_index(base_url=BASE, sitemaps=site)
    # Page boundaries, one UNION ALL of aggregates, the recorded pages; a probe a page.
    assert (len(small), len(large)) == (3 + 3, 3 + 33)
    for query in [*small.captured_queries[3:], *large.captured_queries[3:]]:
        sql = query["sql"].upper()
        limit = re.search(r"LIMIT (\d+)", sql)
        assert limit is not None and int(limit.group(1)) <= PROBE_ROWS, sql
        assert "OFFSET" not in sql and "TESTAPP_ARTICLE" in sql


def test_page_queries_use_no_offset_and_a_fixed_count(sitemaps: Any) -> None:
    make_articles(100)
    register_articles()
    snapshot()
    for number in (1, 10):
        with CaptureQueriesContext(connection) as queries:
            render_page("testapp-article", number, base_url=BASE, sitemaps=site)
        assert len(queries) == 2
        assert not any("OFFSET" in q["sql"].upper() for q in queries)


def test_uuid_keys(sitemaps: Any) -> None:
    Document.objects.bulk_create(Document(updated_at=T0) for _ in range(35))

    @sitemapkit.register(Document)
    class DocumentSitemap(sitemapkit.ModelSitemap):
        limit = 10

    index = parse_index(render_index(base_url=BASE, sitemaps=site).content)
    assert len(index) == 4
    locs = []
    for loc, _ in index:
        number = int(loc.rsplit("-", 1)[1].split(".")[0])
        locs += [
            u.loc
            for u in parse_urlset(
                render_page("testapp-document", number, base_url=BASE, sitemaps=site).content
            )
        ]
    assert sorted(locs) == sorted(f"{BASE}/documents/{d.id}/" for d in Document.objects.all())


def test_unknown_pages(sitemaps: Any) -> None:
    make_articles(5)
    register_articles()
    snapshot()
    with pytest.raises(PageNotFound):
        render_page("testapp-article", 2, base_url=BASE, sitemaps=site)
    with pytest.raises(PageNotFound):
        render_page("testapp-article", 0, base_url=BASE, sitemaps=site)
    # Nothing is recorded for a section that was never cut.
    assert not SitemapPage.objects.filter(section="testapp-article").exists()


# -- where pages are recorded -------------------------------------------------


@contextmanager
def read_only() -> Iterator[None]:
    """As a process whose database refuses writes to the page table."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(PageManager, "writable", lambda self: False)
        yield


def article_pages(sitemaps: SitemapSite) -> KeysetPages:
    sitemap = sitemaps.get("testapp-article")
    assert isinstance(sitemap, sitemapkit.ModelSitemap)
    return rows.keyset_pages(sitemap)


def recorded() -> list[Page]:
    return SitemapPage.objects.pages("testapp-article")


def key(slug: str) -> int:
    return Article.objects.get(slug=slug).pk


def test_pages_cut_in_memory_are_the_pages_recorded(sitemaps: SitemapSite) -> None:
    make_articles(25)
    register_articles()
    with read_only():
        in_memory = article_pages(sitemaps).pages()
        served = snapshot()
    assert not recorded()
    assert [page.number for page in in_memory] == [1, 2, 3]
    assert article_pages(sitemaps).pages() == recorded() == in_memory
    assert snapshot() == served


def test_recorded_pages_are_cut_in_memory_as_they_would_be_recorded(
    sitemaps: SitemapSite,
) -> None:
    make_articles(40, published=lambda i: i != 15)
    register_articles()
    snapshot()
    before = recorded()
    Article.objects.filter(slug="a15").update(published=True)  # page 2 holds 11 rows
    make_articles(25, start=40)  # the last page 34
    with read_only():
        in_memory = article_pages(sitemaps).pages()
        served = snapshot()
    assert recorded() == before
    assert [page.number for page in in_memory] == [1, 2, 3, 4, 5, 6, 7, 8]
    assert in_memory[4] == Page(5, str(key("a20")), str(key("a21")))
    assert article_pages(sitemaps).pages() == recorded() == in_memory
    assert snapshot() == served


def test_a_build_records_the_pages(sitemaps: SitemapSite, settings: Any, tmp_path: Path) -> None:
    settings.SITEMAPKIT = {**settings.SITEMAPKIT, "BUILD_DIR": str(tmp_path / "sitemaps")}
    make_articles(25)
    register_articles()
    with read_only():
        in_memory = article_pages(sitemaps).pages()
    default_site.builder().run()
    assert recorded() == in_memory


def test_a_recording_fails_whole_where_another_process_changed_the_pages() -> None:
    table = SitemapPage.objects
    first_cut = [Page(1, None, "10"), Page(2, "10", None)]
    assert table.record("s", [], first_cut) is Recording.RECORDED
    # Read before that cut, and cut elsewhere: page 1 is taken.
    assert table.record("s", [], [Page(1, None, "12"), Page(2, "12", None)]) is Recording.CONFLICT
    second_cut = [*first_cut[:1], Page(2, "10", "20"), Page(3, "20", None)]
    assert table.record("s", first_cut, second_cut) is Recording.RECORDED
    # Read before the second cut: page 2 no longer ends where it was read.
    other_cut = [*first_cut[:1], Page(2, "10", "30"), Page(3, "30", None)]
    assert table.record("s", first_cut, other_cut) is Recording.CONFLICT
    assert table.pages("s") == second_cut


def test_the_index_adopts_cuts_another_process_recorded_meanwhile(
    sitemaps: SitemapSite, monkeypatch: pytest.MonkeyPatch
) -> None:
    make_articles(25)
    register_articles()
    # Recorded by another process after this one read the table (empty).
    cut = str(key("a5"))
    SitemapPage.objects.record("testapp-article", [], [Page(1, None, cut), Page(2, cut, None)])
    read = PageManager.pages
    reads: list[str] = []

    def stale_first_read(table: PageManager, section: str) -> list[Page]:
        reads.append(section)
        return [] if len(reads) == 1 else read(table, section)

    monkeypatch.setattr(PageManager, "pages", stale_first_read)
    pages = article_pages(sitemaps).pages()
    monkeypatch.undo()
    assert pages == recorded()
    assert pages == [
        Page(1, None, cut),
        Page(2, cut, str(key("a15"))),
        Page(3, str(key("a15")), None),
    ]


def test_a_page_split_meanwhile_is_not_split_again(sitemaps: SitemapSite) -> None:
    make_articles(30)
    register_articles()
    snapshot()
    pages = article_pages(sitemaps)
    assert pages.split(1, key("a5"))
    after = recorded()
    assert after[0] == Page(1, None, str(key("a5")))
    assert after[-1] == Page(4, str(key("a5")), str(key("a10")))
    # Renders that read page 1 before that split: at the same key, or above.
    assert pages.split(1, key("a5"))
    assert pages.split(1, key("a8"))
    assert recorded() == after
    with read_only():
        assert not pages.split(2, key("a15"))
    assert recorded() == after


def test_a_read_only_process_keeps_its_cache_when_a_page_does_not_fit(
    sitemaps: SitemapSite, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("django_sitemapkit._engine.entries.MAX_BYTES_PER_FILE", 4000)
    Article.objects.bulk_create(Article(slug=f"{i}-" + "x" * 300, updated_at=T0) for i in range(30))
    register_articles(limit=50)
    cache = file_cache()
    assert cache is not None
    tokens = section_tokens(cache, ["testapp-article"])
    with read_only():
        content = render_page("testapp-article", 1, base_url=BASE, sitemaps=site).content
    # Dropping the cached files would not list the rest: every render would drop them.
    assert section_tokens(cache, ["testapp-article"]) == tokens
    assert not recorded()
    # A process that can write records the cut, and the index must list the new page.
    assert render_page("testapp-article", 1, base_url=BASE, sitemaps=site).content == content
    assert section_tokens(cache, ["testapp-article"]) != tokens
    assert [page.number for page in recorded()] == [1, 2]
