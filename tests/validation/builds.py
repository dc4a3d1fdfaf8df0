"""A good build to break, and how the tests run ``sitemapkit_validate`` on it."""

from __future__ import annotations

import datetime
import io
from pathlib import Path
from typing import Any

from django.core.management import call_command
from django.core.management.base import CommandError

import django_sitemapkit as sitemapkit
from tests.testapp.models import Article, Tag
from tests.xsd import xsd_dir

T0 = datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC)
NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
BASE = "https://www.example.com"


def register_site(count: int = 25) -> None:
    """Articles in three pages, a tag and two static pages: five sitemap pages."""

    @sitemapkit.register(Article)
    class ArticleSitemap(sitemapkit.ModelSitemap):
        limit = 10
        changefreq = "daily"
        priority = 0.5

    sitemapkit.register(Tag)

    @sitemapkit.register(section="pages")
    class PageSitemap(sitemapkit.StaticViewSitemap):
        url_names = ["home", "about"]

    Article.objects.bulk_create(
        Article(slug=f"a{i}", updated_at=T0 + datetime.timedelta(hours=i)) for i in range(count)
    )
    Tag.objects.create(slug="t")


def build() -> None:
    call_command("sitemapkit_build", verbosity=0, stdout=io.StringIO(), stderr=io.StringIO())


def validate(*args: str) -> tuple[int, str]:
    """(exit status, stdout) of ``sitemapkit_validate``."""
    out = io.StringIO()
    status = 0
    try:
        call_command("sitemapkit_validate", *args, stdout=out, stderr=io.StringIO())
    except CommandError as exc:
        status = exc.returncode
    return status, out.getvalue()


def finding_lines(output: str) -> list[str]:
    """The finding lines of a text report (every line but the summaries)."""
    return [line for line in output.splitlines() if "] " in line and ": [" in line]


def xsd_args() -> list[str]:
    """``--xsd-dir`` for the official schemas when they are at hand, else the project's."""
    return ["--xsd-dir", str(xsd_dir())]


def current(folder: Path) -> Path:
    """The folder of the published set of a build folder (writable copy of its files)."""
    return folder / "current"


def unshare(path: Path) -> None:
    """Break the hard link a generation shares with the previous one, before editing a file."""
    data = path.read_bytes()
    path.unlink()
    path.write_bytes(data)


def make_good_build(settings: Any, tmp_path: Path) -> Path:
    """A published build of five pages, robots.txt naming its index; returns the build folder."""
    folder = tmp_path / "sitemaps"
    robots = tmp_path / "robots.txt"
    robots.write_text(f"User-agent: *\nDisallow:\n\nSitemap: {BASE}/sitemap.xml\n")
    settings.SITEMAPKIT = {
        **settings.SITEMAPKIT,
        "BUILD_DIR": str(folder),
        "ROBOTS_TXT_PATH": str(robots),
    }
    register_site()
    build()
    return folder
