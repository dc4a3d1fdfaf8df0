"""One indexability truth: ``noindex_field`` and ``is_indexable()`` leave rows out of the views and
builds on every path, and ``{% robots_meta %}`` says noindex for exactly those rows."""

from __future__ import annotations

import datetime
import io
import re
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.template import Context, Template
from django.test import Client

import django_sitemapkit as sitemapkit
from django_sitemapkit._engine.rows import route_report
from tests.perrow import PerRow
from tests.testapp.models import Article, Entry
from tests.utils import crawl, parse_index, parse_urlset, path_of

pytestmark = [pytest.mark.django_db, pytest.mark.urls("tests.urls_contrib")]

HOST = "https://www.example.com"
ROWS = 14
LIMIT = 3
START = datetime.datetime(2024, 3, 1, 12, 30, tzinfo=datetime.UTC)


def draft(n: int) -> bool:
    """Entries 3 to 5 (one whole page of 3) and a few more are drafts: noindex_field's rows."""
    return 3 <= n <= 5 or n % 5 == 4


def hidden(entry: Entry) -> bool:
    """What the is_indexable() sections leave out: entries 6 to 8 (a whole page) and 13."""
    n = int(entry.slug.rpartition("-")[2])
    return 6 <= n <= 8 or n == 13


@pytest.fixture
def entries(settings: Any, tmp_path: Path) -> list[Entry]:
    settings.SITEMAPKIT = {"BASE_URL": HOST, "CACHE_TIMEOUT": 0, "BUILD_DIR": str(tmp_path)}
    rows = [
        Entry(slug=f"post-{n}", is_draft=draft(n), pub_date=START + datetime.timedelta(days=n))
        for n in range(ROWS)
    ]
    return Entry.objects.bulk_create(rows)


class FastPath(sitemapkit.ModelSitemap):
    """get_absolute_url() is a plain reverse(): column rows."""

    model = Entry
    limit = LIMIT
    lastmod_field = "pub_date"
    noindex_field = "is_draft"


class UrlName(FastPath):
    url_name = "entry-detail"
    url_kwargs = {"slug": "slug"}


class GeneralPath(PerRow, FastPath):
    """location() of its own: an instance per row."""


class OwnQuerySet(FastPath):
    """get_queryset() overridden, as the README's classes do: noindex_field still applies."""

    def get_queryset(self) -> Any:
        return Entry.objects.filter(pub_date__gte=START)


class RebasedContrib(sitemapkit.ModelSitemap):
    """A django.contrib.sitemaps class rebased on sitemapkit, its body unchanged, plus
    noindex_field (get_queryset()'s items() branch)."""

    limit = LIMIT
    noindex_field = "is_draft"

    def items(self) -> Any:
        return Entry.objects.all()

    def lastmod(self, obj: Entry) -> Any:
        return obj.pub_date


class Hiding(FastPath):
    """is_indexable() of its own: instances, some excluded; drafts out by noindex_field still."""

    def is_indexable(self, item: Entry) -> bool:
        return not hidden(item)


class HidingList(sitemapkit.Sitemap):
    """A list section of the model: is_indexable() leaves out items of a list too."""

    model = Entry
    limit = LIMIT

    def items(self) -> Any:
        return list(Entry.objects.order_by("pk"))

    def is_indexable(self, item: Entry) -> bool:
        return not hidden(item)


NOINDEX: list[type[sitemapkit.Sitemap]] = [
    FastPath,
    UrlName,
    GeneralPath,
    OwnQuerySet,
    RebasedContrib,
]
EXCLUDING: list[type[sitemapkit.Sitemap]] = [Hiding, HidingList]
FAST = {FastPath: True, UrlName: True, GeneralPath: False, OwnQuerySet: True}


def excluded_by(cls: type[sitemapkit.Sitemap], entry: Entry) -> bool:
    noindex = getattr(cls, "noindex_field", None) is not None and entry.is_draft
    return noindex or (cls in EXCLUDING and hidden(entry))


def url(entry: Entry) -> str:
    return f"{HOST}/blog/{entry.slug}/"


def robots_meta(entry: Entry) -> str:
    return Template("{% load sitemapkit %}{% robots_meta obj %}").render(Context({"obj": entry}))


def built(build_dir: Path) -> set[str]:
    """Every URL the published build lists, read from the files its index names."""
    current = build_dir / "current"
    names = [
        path_of(loc).lstrip("/") for loc, _ in parse_index((current / "sitemap.xml").read_bytes())
    ]
    return {u.loc for name in names for u in parse_urlset((current / name).read_bytes())}


def build(verbosity: int = 1) -> str:
    out = io.StringIO()
    call_command("sitemapkit_build", verbosity=verbosity, stdout=out, stderr=io.StringIO())
    return out.getvalue()


@pytest.mark.parametrize("cls", NOINDEX + EXCLUDING, ids=lambda cls: cls.__name__)
def test_left_out_rows_are_absent_from_views_and_builds_and_say_noindex(
    sitemaps: Any, entries: list[Entry], client: Client, tmp_path: Path, cls: Any
) -> None:
    sitemaps.register_sitemaps({"blog": cls})
    if cls in FAST:  # each class takes the path it is here for
        assert route_report(sitemaps["blog"])[0] is FAST[cls]  # type: ignore[index]
    expected = {url(e) for e in entries if not excluded_by(cls, e)}
    assert 0 < len(expected) < len(entries)

    files = crawl(client)
    assert {u.loc for urls in files.values() for u in urls} == expected
    assert all(files.values()), "the index names a file without a URL"
    # Every page the section could have: listed in the index, or 404.
    for number in range(1, ROWS // LIMIT + 3):
        path = f"/sitemap-blog-{number}.xml"
        response = client.get(path)
        assert response.status_code == (200 if path in files else 404), path

    assert build(verbosity=0) == ""
    assert built(tmp_path) == expected

    for entry in entries:  # the tag and the sitemap never disagree
        assert robots_meta(entry) == (
            "" if url(entry) in expected else '<meta name="robots" content="noindex">'
        ), entry.slug


def test_excluded_items_are_counted_apart_from_skipped_ones(
    sitemaps: Any, entries: list[Entry]
) -> None:
    sitemaps.register_sitemaps({"blog": Hiding})
    summary = build()
    # Drafts never reach is_indexable(): of the others, 6, 7, 8 and 13 are excluded.
    assert re.match(
        r"1 section built: 6 files written, .*; 6 URLs \(0 skipped, 4 excluded\), ", summary
    )
    # Kept pages count theirs from the manifest.
    again = build()
    assert "0 files written" in again and "(0 skipped, 4 excluded)" in again, again


def test_the_summary_names_no_exclusions_where_there_are_none(
    sitemaps: Any, entries: list[Entry]
) -> None:
    sitemaps.register_sitemaps({"blog": FastPath})
    assert "URLs (0 skipped), " in build()


def test_an_is_indexable_that_raises_skips_its_item_and_the_tag_writes_nothing(
    sitemaps: Any, entries: list[Entry], client: Client, caplog: Any
) -> None:
    class Raising(FastPath):
        def is_indexable(self, item: Entry) -> bool:
            if item.slug == "post-1":
                raise ValueError("no opinion")
            return True

    sitemaps.register_sitemaps({"blog": Raising})
    listed = {u.loc for urls in crawl(client).values() for u in urls}
    assert url(entries[1]) not in listed and url(entries[0]) in listed
    assert "(1 skipped)" in build()
    assert robots_meta(entries[1]) == ""
    assert "is_indexable() raised ValueError: no opinion" in caplog.text


def test_objects_no_section_lists_by_model_get_nothing(sitemaps: Any, entries: list[Entry]) -> None:
    sitemaps.register_sitemaps({"blog": FastPath})
    article = Article.objects.create(slug="a", updated_at=START)
    assert robots_meta(article) == ""  # type: ignore[arg-type]
    assert Template("{% load sitemapkit %}{% robots_meta 'x' %}").render(Context()) == ""


def test_noindex_field_must_name_a_boolean_field(sitemaps: Any) -> None:
    for name in ("slug", "nothing"):
        sitemaps.register_sitemaps(
            {f"blog-{name}": type("S", (FastPath,), {"noindex_field": name})}
        )
    errors = {(m.id, m.msg) for m in sitemaps.check() if m.id == "sitemapkit.E026"}
    assert errors == {
        (
            "sitemapkit.E026",
            f"Sitemap section 'blog-{name}' (S): noindex_field {name!r} is not a BooleanField of "
            "testapp.Entry.",
        )
        for name in ("slug", "nothing")
    }


def test_url_name_with_is_indexable_is_refused(sitemaps: Any) -> None:
    class Columns(UrlName):
        def is_indexable(self, item: Any) -> bool:
            return True

    sitemaps.register_sitemaps({"blog": Columns})
    (error,) = [m for m in sitemaps.check() if m.id == "sitemapkit.E018"]
    assert "is_indexable() would never be called" in error.msg
