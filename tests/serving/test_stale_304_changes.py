"""No 304 for bytes the client does not have, after changes that do not move the newest lastmod.

A row dated before a file's newest, a deleted row and an edit that leaves the
date alone change a file's bytes but not its newest lastmod. Live, the
Last-Modified is that newest lastmod: If-Modified-Since alone never answers
304 there, only the ETag (a hash of the bytes) does. A published build
announces its own time for such a change, so there both validators hold.
"""

from __future__ import annotations

import datetime
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from django.test import Client
from django.utils.http import parse_http_date

import django_sitemapkit as sitemapkit
from tests.serving.test_stale_304 import APRIL, MARCH, Item, Seen, fetch_all

UTC = datetime.UTC
OLDER = datetime.datetime(2012, 6, 1, tzinfo=UTC)
CONDITIONAL_GET = ["django.middleware.http.ConditionalGetMiddleware"]


def register_items(items: list[Item]) -> None:
    class Items(sitemapkit.Sitemap):
        limit = 2

        def items(self) -> list[Item]:
            return items

        def location(self, item: Item) -> str:
            return f"/items/{item.slug}/"

        def lastmod(self, item: Item) -> datetime.datetime | None:
            return item.lastmod

    sitemapkit.register(section="items")(Items)


def add_an_older_dated_row(items: list[Item]) -> None:
    items.append(Item("older", OLDER))  # page 2 comes, dated before page 1


def delete_a_row(items: list[Item]) -> None:
    del items[1]  # the older row moves to page 1, page 2 goes


def edit_a_row_but_not_its_date(items: list[Item]) -> None:
    items[0] = Item("renamed", items[0].lastmod)


CHANGES: list[Callable[[list[Item]], None]] = [
    add_an_older_dated_row,
    delete_a_row,
    edit_a_row_but_not_its_date,
]


def get(client: Client, path: str, **headers: str) -> Any:
    return client.get(path, headers={"accept-encoding": "gzip", **headers})


def assert_validators(
    client: Client, held: dict[str, Seen], built: bool, step_started: int
) -> None:
    """Each file held before the change: its old validators get the new bytes, current ones 304."""
    for path, old in held.items():
        current = get(client, path)
        if current.status_code == 404:
            continue  # a page that went: nothing to validate
        assert current.status_code == 200, path
        if old.last_modified is not None:
            response = get(client, path, **{"if-modified-since": old.last_modified})
            # A build's date within the second the step started may not be a validator
            # yet (see below): the client holds these bytes, so either answer is right.
            dated_before = parse_http_date(old.last_modified) < step_started
            if current.content == old.content:
                if dated_before or not built:
                    assert response.status_code == (304 if built else 200), path
            else:
                assert response.status_code == 200, path
                assert response.content == current.content, path
        if current.content != old.content:
            assert get(client, path, **{"if-none-match": old.etag}).status_code == 200, path
        assert get(client, path, **{"if-none-match": current["ETag"]}).status_code == 304, path
        since = current.get("Last-Modified")
        # A build's date later than the response is sent as the response's
        # time, which names no version of the bytes: not a validator then.
        if built and since is not None and parse_http_date(since) < step_started:
            assert get(client, path, **{"if-modified-since": since}).status_code == 304, path


@pytest.mark.parametrize("middleware", [[], CONDITIONAL_GET], ids=["views", "conditional-get"])
@pytest.mark.parametrize("built", [False, True], ids=["live", "built"])
def test_changes_that_keep_the_newest_lastmod_get_no_304_for_old_bytes(
    sitemaps: Any,
    client: Client,
    settings: Any,
    tmp_path: Path,
    built: bool,
    middleware: list[str],
) -> None:
    settings.MIDDLEWARE = middleware
    settings.SITEMAPKIT = {
        **settings.SITEMAPKIT,
        "BUILD_DIR": str(tmp_path),
        "SERVE_BUILT_FILES": built,
    }
    items = [Item("a", APRIL), Item("b", MARCH)]
    register_items(items)
    if built:
        sitemapkit.build()
    held = {**fetch_all(client), **gz_files(client)}
    for change in CHANGES:
        step_started = int(time.time())
        change(items)
        sitemaps.invalidate()
        if built:
            sitemapkit.build()
        assert_validators(client, held, built, step_started)
        held = {**fetch_all(client), **gz_files(client)}
    assert "/sitemap-items-1.xml" in held and "/sitemap-items-1.xml.gz" in held


def gz_files(client: Client) -> dict[str, Seen]:
    """The .gz of every file the client holds."""
    return {
        path + ".gz": Seen(response.content, response["ETag"], response.get("Last-Modified"))
        for path in fetch_all(client)
        for response in [client.get(path + ".gz")]
    }
