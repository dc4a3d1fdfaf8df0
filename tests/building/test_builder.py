"""The build engine: same bytes as the views, atomic generations, incremental writes."""

from __future__ import annotations

import datetime
import gzip
import os
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client

import django_sitemapkit as sitemapkit
from django_sitemapkit._building.builder import BuildError
from django_sitemapkit._protocol.files import STYLESHEETS
from django_sitemapkit._publishing.base import PublishError
from django_sitemapkit._publishing.localfolder import LOCK_NAME
from django_sitemapkit._publishing.selection import get_publisher, published_file
from tests.building.builds import EDITED, T0, build, published
from tests.testapp.models import Article, Tag
from tests.utils import parse_index, parse_urlset, path_of

pytestmark = pytest.mark.django_db


def served(client: Client, settings: Any) -> dict[str, bytes]:
    """What the views render from the database (the build not consulted)."""
    settings.SITEMAPKIT = {**settings.SITEMAPKIT, "SERVE_BUILT_FILES": False}
    files = {"sitemap.xml": client.get("/sitemap.xml").content}
    for loc, _ in parse_index(files["sitemap.xml"]):
        name = path_of(loc).lstrip("/")
        files[name] = client.get("/" + name).content
    for name in list(files):
        files[name + ".gz"] = client.get("/" + name + ".gz").content
    settings.SITEMAPKIT = {**settings.SITEMAPKIT, "SERVE_BUILT_FILES": True}
    return files


def test_build_writes_exactly_what_the_views_serve(
    site: Any, build_dir: Path, client: Client, settings: Any
) -> None:
    result = build()
    files = published(build_dir)
    assert files == served(client, settings)
    assert sorted(files) == sorted(
        [f"sitemap-testapp-article-{n}.xml{gz}" for n in (1, 2, 3, 4) for gz in ("", ".gz")]
        + [f"sitemap-{s}-1.xml{gz}" for s in ("testapp-tag", "pages") for gz in ("", ".gz")]
        + ["sitemap.xml", "sitemap.xml.gz"]
    )
    for name, content in files.items():
        xml = gzip.decompress(content) if name.endswith(".gz") else content
        if name.startswith("sitemap.xml"):
            assert all(path_of(loc).lstrip("/") in files for loc, _ in parse_index(xml))
        else:
            parse_urlset(xml)
    assert result.urls == 38 and result.published
    assert len(result.written) == len(files)


def test_views_serve_the_build(site: Any, build_dir: Path, client: Client) -> None:
    build()
    before = client.get("/sitemap-testapp-article-1.xml").content
    Article.objects.filter(slug="a0").update(slug="changed", updated_at=EDITED)
    assert client.get("/sitemap-testapp-article-1.xml").content == before
    response = client.get("/sitemap-testapp-article-1.xml.gz")
    assert gzip.decompress(response.content) == before
    assert response["Content-Type"] == "application/gzip"
    assert (
        client.get(
            "/sitemap-testapp-article-1.xml", headers={"if-none-match": response["ETag"]}
        ).status_code
        == 200
    )
    etag = client.get("/sitemap-testapp-article-1.xml")["ETag"]
    assert (
        client.get("/sitemap-testapp-article-1.xml", headers={"if-none-match": etag}).status_code
        == 304
    )
    assert client.get("/sitemap-testapp-article-9.xml").status_code == 404
    build()
    assert b"/articles/changed/" in client.get("/sitemap-testapp-article-1.xml").content


def test_second_build_changes_nothing(site: Any, build_dir: Path) -> None:
    build()
    generation = os.readlink(build_dir / "current")
    result = build()
    assert result.written == [] and result.removed == [] and not result.published
    assert os.readlink(build_dir / "current") == generation


def test_removed_sections_and_pages_disappear(site: Any, build_dir: Path) -> None:
    build()
    site.unregister(Tag)
    Article.objects.filter(slug__in=[f"a{i}" for i in range(30, 35)]).delete()
    result = build(force=True)  # a section dropped: past the shrink guard
    assert sorted(result.removed) == [
        "sitemap-testapp-article-4.xml",
        "sitemap-testapp-article-4.xml.gz",
        "sitemap-testapp-tag-1.xml",
        "sitemap-testapp-tag-1.xml.gz",
    ]
    assert not any(name in published(build_dir) for name in result.removed)


def test_only_named_sections(site: Any, build_dir: Path) -> None:
    build()
    Article.objects.filter(slug="a0").update(updated_at=T0 + datetime.timedelta(days=1))
    Tag.objects.update(slug="t2", updated_at=EDITED)
    result = build(sections=["testapp-tag"])
    assert sorted(result.written) == [
        "sitemap-testapp-tag-1.xml",
        "sitemap-testapp-tag-1.xml.gz",
        "sitemap.xml",
        "sitemap.xml.gz",
    ]
    assert b"/articles/a0/" in published(build_dir)["sitemap-testapp-article-1.xml"]
    with pytest.raises(BuildError, match="Unknown section 'nope'"):
        build(sections=["nope"])


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        ("first build", "nothing was published before"),
        ("BASE_URL", "BASE_URL was https://www.example.com at the last build"),
        ("GZIP", "GZIP was off at the last build"),
    ],
)
def test_named_sections_rebuild_every_section_when_published_pages_cannot_stay(
    site: Any, build_dir: Path, settings: Any, change: str, reason: str
) -> None:
    # Kept pages would list another host's URLs, or lack the .gz the index
    # and later builds count on (a later build used to fail on the missing file).
    base_url = "https://www.example.com"
    if change == "BASE_URL":
        build()
        base_url = "https://shop.example.org"
        settings.SITEMAPKIT = {**settings.SITEMAPKIT, "BASE_URL": base_url}
    elif change == "GZIP":
        settings.SITEMAPKIT = {**settings.SITEMAPKIT, "GZIP": False}
        build()
        settings.SITEMAPKIT = {**settings.SITEMAPKIT, "GZIP": True}
    result = build(sections=["testapp-tag"])
    assert result.every_section_because == reason
    files = published(build_dir)
    locs = [loc for loc, _ in parse_index(files["sitemap.xml"])]
    assert len(locs) == 6
    for loc in locs:
        assert loc.startswith(base_url + "/")
        name = path_of(loc).lstrip("/")
        assert gzip.decompress(files[name + ".gz"]) == files[name]
        assert all(url.loc.startswith(base_url + "/") for url in parse_urlset(files[name]))
    assert build().written == []


def test_named_sections_keep_the_others_when_only_gzip_was_turned_off(
    site: Any, build_dir: Path, settings: Any
) -> None:
    build()
    settings.SITEMAPKIT = {**settings.SITEMAPKIT, "GZIP": False}
    result = build(sections=["testapp-tag"])
    assert result.every_section_because is None
    files = published(build_dir)
    assert len(parse_index(files["sitemap.xml"])) == 6
    pages = {path_of(loc).lstrip("/") for loc, _ in parse_index(files["sitemap.xml"])}
    assert set(files) == pages | {"sitemap.xml"}


def test_named_sections_also_build_sections_registered_since_the_last_build(
    site: Any, build_dir: Path
) -> None:
    # A section with no published files has nothing to keep: left out, it
    # would be missing from the index until the next build of every section.
    site.unregister("pages")
    build()
    assert "sitemap-pages-1.xml" not in published(build_dir)

    @sitemapkit.register(section="pages")
    class PageSitemap(sitemapkit.StaticViewSitemap):
        url_names = ["home", "about"]

    before = published(build_dir)
    Article.objects.filter(slug="a0").update(slug="x", updated_at=EDITED)
    result = build(sections=["testapp-tag"])
    assert result.every_section_because is None
    assert result.first_published == ["pages"]
    files = published(build_dir)
    names = sorted(path_of(loc).lstrip("/") for loc, _ in parse_index(files["sitemap.xml"]))
    assert names == sorted(
        [f"sitemap-testapp-article-{n}.xml" for n in (1, 2, 3, 4)]
        + ["sitemap-testapp-tag-1.xml", "sitemap-pages-1.xml"]
    )
    assert [url.loc for url in parse_urlset(files["sitemap-pages-1.xml"])] == [
        "https://www.example.com/",
        "https://www.example.com/about/",
    ]
    # The section not named keeps its files, edit and all.
    assert files["sitemap-testapp-article-1.xml"] == before["sitemap-testapp-article-1.xml"]
    # Once published, it is left alone like any other section not named.
    assert build(sections=["testapp-tag"]).first_published == []


def test_named_sections_do_not_announce_empty_unpublished_sections(
    site: Any, build_dir: Path
) -> None:
    build()

    @sitemapkit.register(section="nothing")
    class EmptySitemap(sitemapkit.Sitemap):
        def items(self) -> list[str]:
            return []

    before = published(build_dir)
    result = build(sections=["testapp-tag"])
    assert result.first_published == []
    assert result.written == []
    assert published(build_dir) == before


def test_dry_run_writes_nothing(site: Any, build_dir: Path) -> None:
    result = build(dry_run=True)
    assert len(result.written) == 14
    assert not (build_dir / "current").exists()
    build()
    Article.objects.filter(slug="a0").update(slug="x", updated_at=EDITED)
    before = published(build_dir)
    result = build(dry_run=True)
    assert sorted(result.written) == [
        "sitemap-testapp-article-1.xml",
        "sitemap-testapp-article-1.xml.gz",
        "sitemap.xml",
        "sitemap.xml.gz",
    ]
    assert published(build_dir) == before


def test_a_failing_build_publishes_nothing_and_leaves_no_temp(site: Any, build_dir: Path) -> None:
    build()
    before = published(build_dir)
    generation = os.readlink(build_dir / "current")

    @sitemapkit.register(section="broken")
    class BrokenSitemap(sitemapkit.Sitemap):
        def items(self) -> list[int]:
            raise RuntimeError("database went away")

    with pytest.raises(
        CommandError, match="nothing was published: RuntimeError: database went away"
    ):
        call_command("sitemapkit_build", "--full", verbosity=0)
    assert os.readlink(build_dir / "current") == generation
    assert published(build_dir) == before
    assert [p.name for p in build_dir.iterdir() if p.name.startswith(".tmp")] == []


def test_leftovers_of_a_killed_build_are_cleaned(site: Any, build_dir: Path) -> None:
    build()
    (build_dir / ".tmp-killed").mkdir()
    (build_dir / ".tmp-killed" / "sitemap.xml").write_bytes(b"<half")
    (build_dir / ".tmp-link-killed").symlink_to("generations/nowhere")
    Article.objects.filter(slug="a0").update(slug="x", updated_at=EDITED)
    result = build()
    assert result.cleaned == 2
    assert sorted(p.name for p in build_dir.iterdir()) == [LOCK_NAME, "current", "generations"]


def test_old_generations_are_pruned(site: Any, build_dir: Path) -> None:
    for i in range(4):
        edited = EDITED + datetime.timedelta(days=i)
        Article.objects.filter(slug=f"a{i}").update(slug=f"b{i}", updated_at=edited)
        build()
    manifest = get_publisher().manifest()
    assert manifest is not None
    assert sorted(p.name for p in (build_dir / "generations").iterdir()) == sorted(
        [manifest.generation, manifest.previous_generation]
    )


def test_a_running_build_blocks_another(site: Any, build_dir: Path) -> None:
    with (
        get_publisher().lock(),
        pytest.raises(CommandError, match="Another sitemapkit_build is publishing"),
    ):
        call_command("sitemapkit_build", verbosity=0)


def test_nothing_to_list_publishes_the_home_page(sitemaps: Any, build_dir: Path) -> None:
    sitemapkit.register(Tag)
    call_command("sitemapkit_build", verbosity=0)
    # An empty index is not valid: the empty site's file (rendering.empty_site_file).
    published = published_file("sitemap.xml")
    assert published is not None
    [url] = parse_urlset(published[0])
    assert url.loc == "https://www.example.com/"


def test_200000_urls_byte_identical_to_the_views(
    sitemaps: Any, build_dir: Path, client: Client, settings: Any
) -> None:
    @sitemapkit.register(Article)
    class ArticleSitemap(sitemapkit.ModelSitemap):
        changefreq = "daily"

    Article.objects.bulk_create(
        (
            Article(slug=f"article-{i}", updated_at=T0 + datetime.timedelta(seconds=i))
            for i in range(200_000)
        ),
        batch_size=5000,
    )
    result = build()
    assert result.urls == 200_000
    files = published(build_dir)
    assert len(files) == 10  # 4 pages and the index, each also gzipped
    assert files == served(client, settings)
    names = [path_of(loc).lstrip("/") for loc, _ in parse_index(files["sitemap.xml"])]
    assert names == [f"sitemap-testapp-article-{n}.xml" for n in (1, 2, 3, 4)]
    assert sum(len(parse_urlset(files[name])) for name in names) == 200_000


def test_a_new_base_url_renders_every_page(site: Any, build_dir: Path, settings: Any) -> None:
    build()
    settings.SITEMAPKIT = {**settings.SITEMAPKIT, "BASE_URL": "https://shop.example.org"}
    build()
    for name, data in published(build_dir).items():
        if name.endswith(".xml"):
            assert b"https://www.example.com" not in data, name
            assert b"https://shop.example.org/" in data, name


def test_a_failing_fsync_fails_the_build_and_publishes_nothing(
    site: Any, build_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    build()
    before = os.readlink(build_dir / "current")
    article = Article.objects.get(slug="a25")
    article.updated_at = EDITED
    article.save()
    real = os.fsync
    calls = 0

    def failing(fd: int) -> None:
        nonlocal calls
        calls += 1
        if calls == 2:  # flushed in the background while the build goes on
            raise OSError(5, "Input/output error")
        real(fd)

    monkeypatch.setattr(os, "fsync", failing)
    # The documented error of a storage failure, the system's as its cause.
    with pytest.raises(PublishError, match="Input/output error") as failed:
        build()
    assert isinstance(failed.value.__cause__, OSError)
    monkeypatch.undo()
    assert os.readlink(build_dir / "current") == before
    assert not [p for p in build_dir.iterdir() if p.name.startswith(".tmp-")]


def test_turning_gzip_on_writes_every_gz(site: Any, build_dir: Path, settings: Any) -> None:
    settings.SITEMAPKIT = {**settings.SITEMAPKIT, "GZIP": False}
    build()
    assert not any(name.endswith(".gz") for name in published(build_dir))
    settings.SITEMAPKIT = {**settings.SITEMAPKIT, "GZIP": True}
    build()
    files = published(build_dir)
    plain = [name for name in files if name.endswith(".xml")]
    assert sorted(name + ".gz" for name in plain) == sorted(n for n in files if n.endswith(".gz"))
    for name in plain:
        assert gzip.decompress(files[name + ".gz"]) == files[name]


def stylesheet_line(kind: str) -> bytes:
    return f'<?xml-stylesheet type="text/{kind}" href="/sitemap.{kind}"?>\n'.encode()


def plain_xml(files: dict[str, bytes]) -> dict[str, bytes]:
    return {n: gzip.decompress(c) if n.endswith(".gz") else c for n, c in files.items()}


def pages_and_index(files: dict[str, bytes]) -> tuple[dict[str, bytes], list[str]]:
    """The page files, and the locations the index names (its lastmods: of this build)."""
    pages = {n: c for n, c in files.items() if not n.startswith("sitemap.xml")}
    return pages, [loc for loc, _ in parse_index(files["sitemap.xml"])]


def test_the_build_writes_the_stylesheet_every_file_references(site: Any, build_dir: Path) -> None:
    build()
    declaration = b'<?xml version="1.0" encoding="UTF-8"?>\n'
    for name, xml in plain_xml(published(build_dir)).items():
        # The CSS by default: no XSL, which browsers are removing.
        assert xml.startswith(declaration + stylesheet_line("css")), name
        assert xml.count(b"xml-stylesheet") == 1
    assert (build_dir / "current" / "sitemap.css").read_bytes() == STYLESHEETS["css"].content
    assert not (build_dir / "current" / "sitemap.xsl").exists()
    manifest = get_publisher().manifest()
    assert manifest is not None and "sitemap.css" in manifest.files()
    # A later build keeps it (not counted as a sitemap file written).
    Article.objects.filter(slug="a0").update(slug="changed", updated_at=EDITED)
    result = build()
    assert "sitemap.css" not in result.written and result.published
    assert (build_dir / "current" / "sitemap.css").read_bytes() == STYLESHEETS["css"].content


@pytest.mark.parametrize("sections", [None, ["testapp-tag"]], ids=["all", "one-section"])
def test_changing_the_stylesheet_rewrites_every_file(
    site: Any, build_dir: Path, client: Client, settings: Any, sections: list[str] | None
) -> None:
    build()
    before = "/sitemap.css"
    for value, kind in [(False, None), ("xsl", "xsl"), (None, None), (True, "xsl"), ("css", "css")]:
        settings.SITEMAPKIT = {**settings.SITEMAPKIT, "STYLESHEET": value}
        result = build(sections)
        files = published(build_dir)
        xml = plain_xml(files).values()
        if kind is None:
            assert b"xml-stylesheet" not in b"".join(xml)
        else:
            assert all(stylesheet_line(kind) in content for content in xml)
        # Only the stylesheet the files name is published beside them.
        folder = {p.name for p in (build_dir / "current").iterdir()}
        assert {"sitemap.css", "sitemap.xsl"} & folder == ({f"sitemap.{kind}"} if kind else set())
        if kind is not None:
            assert (build_dir / "current" / f"sitemap.{kind}").read_bytes() == STYLESHEETS[
                kind
            ].content
        assert pages_and_index(files) == pages_and_index(served(client, settings))
        now = None if kind is None else f"/sitemap.{kind}"
        if now == before:  # True after "xsl": the same files, nothing to rewrite
            assert result.written == [] and result.every_section_because is None
            continue
        assert len(result.written) == len(files)
        if sections is not None:
            assert result.every_section_because == (
                f"the files' stylesheet was {before or 'off'} at the last build"
            )
        before = now
