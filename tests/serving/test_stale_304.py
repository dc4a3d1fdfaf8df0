"""No 304 for bytes the client does not have: Django's three mixed-lastmod scenarios.

A file in which some entries have no lastmod gets no Last-Modified (contrib's
``test_sitemap_last_modified_mixed``, ``test_sitemaps_lastmod_mixed_*_last_modified_missing``
and ``test_callable_sitemod_partial``): dated by its dated entries only, it
would keep its date when an undated entry comes, and a client asking
If-Modified-Since would be told its old copy is current. Each scenario adds
dated and undated rows one at a time and asks again for every file seen so
far, with If-Modified-Since and with If-None-Match, served live and from a
built set.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from django.test import Client

import django_sitemapkit as sitemapkit
from tests.testapp.models import Story
from tests.utils import parse_index, parse_urlset, path_of

UTC = datetime.UTC
MARCH = datetime.datetime(2013, 3, 13, 10, 0, tzinfo=UTC)
APRIL = datetime.datetime(2013, 4, 20, 5, 0, tzinfo=UTC)


@dataclass(frozen=True)
class Item:
    slug: str
    lastmod: datetime.datetime | None = None


def list_section(
    name: str, items: list[Item], *, constant: datetime.datetime | None = None
) -> None:
    """A section listing ``items``; each dated by its own lastmod, or all by ``constant``."""

    class Section(sitemapkit.Sitemap):
        def items(self) -> list[Item]:
            return items

        def location(self, item: Item) -> str:
            return f"/{name}/{item.slug}/"

        def lastmod(self, item: Item) -> datetime.datetime | None:
            return constant or item.lastmod

    sitemapkit.register(section=name)(Section)


# Each scenario registers its sections and returns the lists a step may add rows to.
Scenario = Callable[[], dict[str, list[Item]]]


def mixed() -> dict[str, list[Item]]:
    """test_sitemap_last_modified_mixed: one file, one dated and one undated entry."""
    items = [Item("dated", MARCH), Item("undated")]
    list_section("mixed", items)
    return {"mixed": items}


def mixed_sections(order: list[str]) -> Scenario:
    """test_sitemaps_lastmod_mixed_{ascending,descending}: an undated section beside dated ones."""

    def register() -> dict[str, list[Item]]:
        lists: dict[str, list[Item]] = {}
        for name in order:
            lists[name] = [Item(f"{name}-1", {"no-lastmod": None, "march": MARCH}.get(name, APRIL))]
            list_section(name, lists[name])
        return lists

    return register


def callable_partial() -> dict[str, list[Item]]:
    """test_callable_sitemod_partial: lastmod() gives a date for some items only."""
    items = [Item("a", MARCH), Item("b")]
    list_section("callable-lastmod", items)
    return {"callable-lastmod": items}


SCENARIOS = {
    "mixed": mixed,
    "mixed-ascending": mixed_sections(["no-lastmod", "march", "april"]),
    "mixed-descending": mixed_sections(["april", "march", "no-lastmod"]),
    "callable-partial": callable_partial,
}


@dataclass(frozen=True)
class Seen:
    content: bytes
    etag: str
    last_modified: str | None


def fetch_all(client: Client) -> dict[str, Seen]:
    """The index and every page it names, as a client keeps them."""
    seen: dict[str, Seen] = {}
    paths = ["/sitemap.xml"]
    index = client.get("/sitemap.xml")
    paths += [path_of(loc) for loc, _lastmod in parse_index(index.content)]
    for path in paths:
        response = client.get(path)
        assert response.status_code == 200, path
        seen[path] = Seen(response.content, response["ETag"], response.get("Last-Modified"))
    return seen


def assert_no_stale_304(client: Client, before: dict[str, Seen]) -> None:
    """Each file a client holds: 304 only where its bytes are still the ones served."""
    for path, held in before.items():
        current = client.get(path)
        for header, value in [
            ("if-none-match", held.etag),
            ("if-modified-since", held.last_modified),
        ]:
            if value is None:
                continue
            response = client.get(path, headers={header: value})
            if response.status_code == 304:
                assert current.content == held.content, f"{path}: 304 to {header} for old bytes"
            else:
                assert response.status_code == 200, path


def steps(lists: dict[str, list[Item]]) -> list[tuple[str, Item]]:
    """Rows to add, one at a time: undated, dated after any before, dated before any before."""
    added: list[tuple[str, Item]] = []
    later = datetime.datetime(2014, 1, 1, tzinfo=UTC)
    earlier = datetime.datetime(2012, 1, 1, tzinfo=UTC)
    for name in lists:
        added.append((name, Item(f"{name}-undated")))
        added.append((name, Item(f"{name}-dated", later)))
        added.append((name, Item(f"{name}-dated-earlier", earlier)))
        later += datetime.timedelta(days=1)
        earlier -= datetime.timedelta(days=1)
        added.append((name, Item(f"{name}-undated-again")))
    return added


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_a_file_with_an_undated_entry_has_no_last_modified(
    sitemaps: Any, client: Client, scenario: str
) -> None:
    SCENARIOS[scenario]()
    index = client.get("/sitemap.xml")
    assert index.status_code == 200
    assert not index.has_header("Last-Modified")
    entries = dict(parse_index(index.content))
    for loc, lastmod in entries.items():
        page = client.get(path_of(loc))
        undated = any(url.lastmod is None for url in parse_urlset(page.content))
        assert page.has_header("Last-Modified") is not undated
        # The index announces no lastmod for a page with an undated entry, as contrib.
        assert (lastmod is None) is undated


@pytest.mark.django_db
@pytest.mark.parametrize("built", [False, True], ids=["live", "built"])
@pytest.mark.parametrize("scenario", SCENARIOS)
def test_no_request_gets_a_304_for_bytes_it_does_not_have(
    sitemaps: Any, client: Client, settings: Any, tmp_path: Path, scenario: str, built: bool
) -> None:
    settings.SITEMAPKIT = {
        **settings.SITEMAPKIT,
        "BUILD_DIR": str(tmp_path),
        "SERVE_BUILT_FILES": built,
    }
    lists = SCENARIOS[scenario]()
    seen: list[dict[str, Seen]] = []
    for name, item in [("", None), *steps(lists)]:
        if item is not None:
            lists[name].append(item)
            sitemaps.invalidate()
        if built:
            sitemapkit.build()
            assert (tmp_path / "sitemap.xml").exists() or any(tmp_path.rglob("sitemap.xml"))
        assert_no_stale_304_all(client, seen)
        seen.append(fetch_all(client))


def assert_no_stale_304_all(client: Client, seen: list[dict[str, Seen]]) -> None:
    """Every copy a client may hold, from any earlier step."""
    for before in seen:
        assert_no_stale_304(client, before)


@pytest.mark.django_db
@pytest.mark.parametrize("built", [False, True], ids=["live", "built"])
def test_a_model_section_with_a_nullable_lastmod_field(
    sitemaps: Any, client: Client, settings: Any, tmp_path: Path, built: bool
) -> None:
    """The SQL path: NULL lastmods leave the page and its index entry undated."""
    settings.SITEMAPKIT = {
        **settings.SITEMAPKIT,
        "BUILD_DIR": str(tmp_path),
        "SERVE_BUILT_FILES": built,
    }

    @sitemapkit.register(Story)
    class StorySitemap(sitemapkit.ModelSitemap):
        lastmod_field = "published_at"
        limit = 2

    seen: list[dict[str, Seen]] = []
    dated = datetime.datetime(2014, 1, 1, tzinfo=UTC)
    for number, published_at in enumerate([MARCH, None, APRIL, None, dated, None]):
        Story.objects.create(slug=f"s{number}", title="t", published_at=published_at)
        sitemaps.invalidate()
        if built:
            sitemapkit.build()
        assert_no_stale_304_all(client, seen)
        seen.append(fetch_all(client))
    index = client.get("/sitemap.xml")
    # Pages of two rows: (MARCH, None), (APRIL, None), (dated, None).
    assert [lastmod for _loc, lastmod in parse_index(index.content)] == [None, None, None]
    assert not index.has_header("Last-Modified")
    # Dated now, later than any row before (as auto_now dates an edit).
    Story.objects.filter(published_at=None).update(published_at=dated + datetime.timedelta(days=1))
    sitemaps.invalidate()
    if built:
        sitemapkit.build()
    assert_no_stale_304_all(client, seen)
    index = client.get("/sitemap.xml")
    assert all(lastmod is not None for _loc, lastmod in parse_index(index.content))
    assert client.get("/sitemap-testapp-story-1.xml").has_header("Last-Modified")
