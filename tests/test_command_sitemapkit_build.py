from __future__ import annotations

import datetime
import gzip
import io
import re
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

import django_sitemapkit as sitemapkit
from tests.perrow import PerRow
from tests.testapp.models import Article, Event
from tests.utils import parse_index, parse_urlset

pytestmark = pytest.mark.django_db

T0 = datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC)
# An edit as the ORM makes it: updated_at moves with the row.
EDITED = datetime.datetime(2026, 6, 1, tzinfo=datetime.UTC)


@pytest.fixture
def site(sitemaps: Any, settings: Any, tmp_path: Path) -> Path:
    settings.SITEMAPKIT = {**settings.SITEMAPKIT, "BUILD_DIR": str(tmp_path)}

    @sitemapkit.register(Article)
    class ArticleSitemap(sitemapkit.ModelSitemap):
        limit = 10

    Article.objects.bulk_create(Article(slug=f"a{i}", updated_at=T0) for i in range(25))
    return tmp_path


def run(*args: str, verbosity: int = 1) -> str:
    out = io.StringIO()
    call_command("sitemapkit_build", *args, verbosity=verbosity, stdout=out, stderr=io.StringIO())
    return out.getvalue()


def test_one_line_summary(site: Path) -> None:
    output = run()
    assert re.fullmatch(
        r"1 section built: 8 files written, 0 unchanged, 0 removed; 25 URLs \(0 skipped\), "
        r"\d[\d,]* bytes written \(\d[\d,]* rendered\) in \d+\.\d\d s\. \("
        + re.escape(str(site))
        + r"\)\n",
        output,
    )
    assert run().startswith("1 section built: 0 files written, 8 unchanged, 0 removed;")


def test_verbosity(site: Path) -> None:
    assert run(verbosity=0) == ""
    Article.objects.filter(slug="a0").update(slug="x", updated_at=EDITED)
    lines = run(verbosity=2).splitlines()
    assert lines[:4] == [
        "Wrote sitemap-testapp-article-1.xml",
        "Wrote sitemap-testapp-article-1.xml.gz",
        "Wrote sitemap.xml",
        "Wrote sitemap.xml.gz",
    ]


def test_dry_run_reports(site: Path) -> None:
    output = run("--dry-run", verbosity=2)
    assert "Would write sitemap.xml\n" in output
    assert "Dry run: 1 section built: 8 files would be written" in output
    assert not (site / "current").exists()


def test_skipped_urls_are_counted(sitemaps: Any, settings: Any, tmp_path: Path) -> None:
    settings.SITEMAPKIT = {**settings.SITEMAPKIT, "BUILD_DIR": str(tmp_path)}

    @sitemapkit.register(Event)
    class EventSitemap(sitemapkit.ModelSitemap):
        lastmod_field = "modified"

    Event.objects.create(url="/ok/")
    Event.objects.create(url="https://elsewhere.example.org/")
    assert "2 URLs" not in run()
    Event.objects.create(url="/" + "x" * 3000)
    assert "1 URLs (2 skipped)" in run("--full")


def test_named_sections_widened_to_every_section_say_so(site: Path, settings: Any) -> None:
    lines = run("--section", "testapp-article", "--dry-run").splitlines()
    assert lines[0] == (
        "Would rebuild every section, not only those named by --section: "
        "nothing was published before."
    )
    run()
    settings.SITEMAPKIT = {**settings.SITEMAPKIT, "BASE_URL": "https://shop.example.org"}
    lines = run("--section", "testapp-article").splitlines()
    assert lines[0] == (
        "Rebuilt every section, not only those named by --section: "
        "BASE_URL was https://www.example.com at the last build."
    )
    assert lines[1].startswith("1 section built: 8 files written, 0 unchanged,")
    assert len(run("--section", "testapp-article").splitlines()) == 1


def test_sections_registered_since_the_last_build_are_built_and_named(
    site: Path,
) -> None:
    run()

    @sitemapkit.register(section="pages")
    class PageSitemap(sitemapkit.StaticViewSitemap):
        url_names = ["home"]

    lines = run("--section", "testapp-article", "--dry-run").splitlines()
    assert lines[0] == "Would also build sections without published files to keep: pages."
    lines = run("--section", "testapp-article").splitlines()
    assert lines[0] == "Also built sections without published files to keep: pages."
    assert lines[1].startswith("2 sections built: 4 files written, 6 unchanged,")
    assert len(run("--section", "testapp-article").splitlines()) == 1


def test_unknown_section(site: Path) -> None:
    with pytest.raises(CommandError, match="Unknown section 'nope'; registered: testapp-article"):
        run("--section", "nope")


def test_missing_base_url(site: Path, settings: Any) -> None:
    settings.SITEMAPKIT = {"BUILD_DIR": str(site)}
    with pytest.raises(CommandError, match=r"BASE_URL'\] is not set"):
        run()


def test_progress_bar_on_a_terminal(site: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    terminal = Terminal()
    monkeypatch.setattr("sys.stderr", terminal)
    run()
    assert "\r[" + "#" * 30 + "] 3/3 pages" in terminal.getvalue()
    terminal.truncate(0)
    run("--no-progress")
    assert terminal.getvalue().strip("\x00") == ""


def built(site: Path) -> dict[str, bytes]:
    """Every published sitemap file of a local build, by name (not the manifest)."""
    return {path.name: path.read_bytes() for path in (site / "current").glob("sitemap*.xml*")}


def register_pages() -> None:
    @sitemapkit.register(section="pages")
    class PageSitemap(sitemapkit.StaticViewSitemap):
        url_names = ["home", "about"]


@pytest.mark.urls("tests.urls_without_sitemapkit")
def test_build_without_the_views_routed_lists_files_at_the_root(site: Path) -> None:
    register_pages()
    run()
    files = built(site)
    assert [loc for loc, _ in parse_index(files["sitemap.xml"])] == [
        *(f"https://www.example.com/sitemap-testapp-article-{n}.xml" for n in (1, 2, 3)),
        "https://www.example.com/sitemap-pages-1.xml",
    ]
    assert gzip.decompress(files["sitemap.xml.gz"]) == files["sitemap.xml"]
    article_urls = parse_urlset(files["sitemap-testapp-article-1.xml"])
    assert article_urls[0].loc == "https://www.example.com/articles/a0/"
    assert [u.loc for u in parse_urlset(files["sitemap-pages-1.xml"])] == [
        "https://www.example.com/",
        "https://www.example.com/about/",
    ]


def test_build_without_the_views_routed_writes_the_same_bytes(
    site: Path, settings: Any, tmp_path_factory: pytest.TempPathFactory
) -> None:
    register_pages()
    run()
    routed = built(site)
    assert len(routed) == 10  # 4 pages and the index, each .xml and .xml.gz
    unrouted_dir = tmp_path_factory.mktemp("unrouted")
    settings.SITEMAPKIT = {**settings.SITEMAPKIT, "BUILD_DIR": str(unrouted_dir)}
    settings.ROOT_URLCONF = "tests.urls_without_sitemapkit"
    run()
    assert built(unrouted_dir) == routed


@pytest.mark.urls("tests.urls_sitemapkit_in_directory")
def test_urls_outside_the_index_directory_fail_the_build(site: Path) -> None:
    # register(Article): get_absolute_url() is read as the URL pattern, whose prefix tells.
    message = (
        "Section 'testapp-article' lists URLs starting https://www.example.com/articles/, "
        "outside https://www.example.com/sitemapkit/, the directory of the sitemap index "
        "/sitemapkit/sitemap.xml"
    )
    with pytest.raises(CommandError, match=re.escape(message)) as caught:
        run()
    assert 'path("", site.urls)' in str(caught.value)
    assert not (site / "current").exists()


@pytest.mark.urls("tests.urls_sitemapkit_in_directory")
def test_a_per_row_section_outside_the_index_directory_fails_on_its_first_row(
    sitemaps: Any, settings: Any, tmp_path: Path
) -> None:
    settings.SITEMAPKIT = {**settings.SITEMAPKIT, "BUILD_DIR": str(tmp_path)}

    @sitemapkit.register(Article)
    class ArticleSitemap(PerRow, sitemapkit.ModelSitemap):
        """location() per row: only a row can tell."""

    Article.objects.bulk_create(Article(slug=f"a{i}", updated_at=T0) for i in range(3))
    message = (
        "Section 'testapp-article' lists https://www.example.com/articles/a0/, outside "
        "https://www.example.com/sitemapkit/, the directory of the sitemap index "
        "/sitemapkit/sitemap.xml"
    )
    with pytest.raises(CommandError, match=re.escape(message)):
        run()
    assert not (tmp_path / "current").exists()


@pytest.mark.urls("tests.urls_sitemapkit_in_directory")
def test_urls_inside_the_index_directory_build(
    sitemaps: Any, settings: Any, tmp_path: Path
) -> None:
    settings.SITEMAPKIT = {**settings.SITEMAPKIT, "BUILD_DIR": str(tmp_path)}

    @sitemapkit.register(Event)
    class EventSitemap(sitemapkit.ModelSitemap):
        lastmod_field = "modified"

    Event.objects.create(url="/sitemapkit/events/1/")
    assert "1 URLs (0 skipped)" in run()
    files = built(tmp_path)
    assert parse_index(files["sitemap.xml"])[0][0] == (
        "https://www.example.com/sitemapkit/sitemap-testapp-event-1.xml"
    )
