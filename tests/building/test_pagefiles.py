"""Page files: written only when their bytes changed, with the lastmod the index announces."""

from __future__ import annotations

import dataclasses
import datetime
import gzip
from pathlib import Path
from typing import Any

import pytest

from django_sitemapkit.building.pagefiles import BackgroundWork, PageFiles, sha256
from django_sitemapkit.building.result import BuildResult
from django_sitemapkit.engine.rendering import render_index
from django_sitemapkit.engine.sections import RenderedPage
from django_sitemapkit.publishing.manifest import FileRecord
from django_sitemapkit.publishing.selection import get_publisher
from django_sitemapkit.sites import site as default_site
from tests.building.builds import EDITED, T0, build, published
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
def test_a_deletion_rewrites_that_page_dated_as_the_live_index_dates_it(
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
    live = render_index(base_url="https://www.example.com", sitemaps=default_site).content
    assert built == live
    index2 = dict(parse_index(built))
    # The page's newest remaining row dates it; no other page moves.
    assert {loc for loc in index if index[loc] != index2[loc]} <= {
        "https://www.example.com/sitemap-testapp-article-1.xml"
    }
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


def rendered(*pieces: bytes, lastmod: datetime.datetime | None = None) -> RenderedPage:
    return RenderedPage(b"".join(pieces), 1, 0, lastmod)


def test_background_digests_are_filled_in_by_wait() -> None:
    records = [FileRecord("s", number, "", 0, 0, None) for number in (1, 2)]
    with BackgroundWork() as background:
        background.fill_in(records[0], [b"<head>", b"one"])
        background.fill_in(records[1], [memoryview(b"two")])
        background.wait()
    assert [record.sha256 for record in records] == [sha256(b"<head>one"), sha256(b"two")]


DATED_URL = b"<url><lastmod>1</lastmod></url>"


def test_a_dry_run_counts_written_and_kept_files() -> None:
    result = BuildResult(dry_run=True)
    started = datetime.datetime(2027, 1, 1, tzinfo=datetime.UTC)
    with BackgroundWork() as background:
        files = PageFiles(
            None, result, background, full=False, gzip=True, old_gzip=True, started=started
        )
        page = rendered(b"<urlset>", DATED_URL, b"</urlset>", lastmod=EDITED)
        new = files.record("s", 1, page, before=None, figures=None)
        same = files.record("s", 2, page, before=dataclasses.replace(new, number=2), figures=None)
        # Other bytes, and no row newer than before: a deletion.
        edited = rendered(
            b"<urlset>", b"<url><lastmod>0</lastmod></url>", b"</urlset>", lastmod=EDITED
        )
        deleted = files.record(
            "s", 3, edited, before=dataclasses.replace(new, number=3), figures=None
        )
        files.settle()
    assert result.written == [
        "sitemap-s-1.xml",
        "sitemap-s-1.xml.gz",
        "sitemap-s-3.xml",
        "sitemap-s-3.xml.gz",
    ]
    assert result.unchanged == 2
    assert (result.urls, result.bytes) == (3, 48 + 48 + 48)
    assert new.lastmod == same.lastmod == EDITED.isoformat()
    assert deleted.lastmod == started.isoformat()
    assert new.sha256 == same.sha256 == sha256(b"<urlset>" + DATED_URL + b"</urlset>")


class Recording:
    """A transaction that keeps the bytes of every file written, in order."""

    def __init__(self) -> None:
        self.files: dict[str, bytes] = {}

    def write(self, name: str, data: Any, reuse: Any = None) -> None:
        self.files[name] = data if isinstance(data, bytes) else b"".join(map(bytes, data))

    def keep(self, name: str) -> None:
        raise AssertionError(f"{name} kept: every page here is new")


def many_pages() -> list[RenderedPage]:
    """Pages of several segments, one of them empty and one of non-ASCII text."""
    head, tail = b'<?xml version="1.0"?>\n<urlset>\n', b"</urlset>\n"
    segment = b"".join(b"<url><loc>https://x.test/%d</loc></url>\n" % n for n in range(400))
    return [
        rendered(head, segment, segment[::-1], tail),
        rendered(head, tail),
        rendered(head, "<url><loc>https://x.test/é€</loc></url>\n".encode() * 50, tail),
        rendered(head, *[segment] * 5, tail),
    ]


def record_all(transaction: Recording | None) -> tuple[BuildResult, list[FileRecord]]:
    result = BuildResult(dry_run=transaction is None)
    started = datetime.datetime(2027, 1, 1, tzinfo=datetime.UTC)
    with BackgroundWork() as background:
        files = PageFiles(
            transaction, result, background, full=True, gzip=True, old_gzip=True, started=started
        )
        records = [
            files.record("s", number, page, before=None, figures=None)
            for number, page in enumerate(many_pages(), start=1)
        ]
        files.settle()
    return result, records


def test_every_gz_is_its_pages_bytes() -> None:
    transaction = Recording()
    result, records = record_all(transaction)
    names = [f"sitemap-s-{number}.xml" for number in range(1, 5)]
    # In page order, each page's .gz right after it.
    assert list(transaction.files) == result.written
    assert result.written == [file for name in names for file in (name, name + ".gz")]
    for name, page, record in zip(names, many_pages(), records, strict=True):
        xml, gz = transaction.files[name], transaction.files[name + ".gz"]
        assert xml == page.content
        assert gzip.decompress(gz) == xml
        assert record.sha256 == sha256(xml)
    assert result.bytes_written == sum(map(len, transaction.files.values()))


def test_settle_writes_the_last_pages_gz() -> None:
    transaction = Recording()
    result = BuildResult(dry_run=False)
    started = datetime.datetime(2027, 1, 1, tzinfo=datetime.UTC)
    with BackgroundWork() as background:
        files = PageFiles(
            transaction, result, background, full=True, gzip=True, old_gzip=True, started=started
        )
        files.record("s", 1, many_pages()[0], before=None, figures=None)
        files.settle()
        assert list(transaction.files) == ["sitemap-s-1.xml", "sitemap-s-1.xml.gz"]
        files.settle()  # nothing left to write
    assert len(result.written) == 2


def test_a_dry_run_counts_the_files_a_build_writes() -> None:
    built, built_records = record_all(Recording())
    dry, dry_records = record_all(None)
    assert dry.written == built.written
    assert (dry.urls, dry.bytes, dry.bytes_written) == (
        built.urls,
        built.bytes,
        built.bytes_written,
    )
    assert [r.urls for r in dry_records] == [r.urls for r in built_records]
