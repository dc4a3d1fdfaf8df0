"""A web process whose database may only be read serves every sitemap, and no request locks a row."""

from __future__ import annotations

import datetime
import logging
import re
from collections.abc import Iterator
from typing import Any

import pytest
from django.core.cache import caches
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

import django_sitemapkit as sitemapkit
from django_sitemapkit.models import PageManager, SitemapPage
from tests.testapp.models import Article, Author, Document, Tag
from tests.utils import parse_index, path_of

pytestmark = pytest.mark.django_db

T0 = datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC)
READ_ONLY_ROLE = "sitemapkit_readonly"
# Statements that write, wherever a query names the words otherwise (the
# privilege check asks for 'INSERT' and 'UPDATE' by name).
WRITE = re.compile(r"^\s*(INSERT|UPDATE|DELETE)\b", re.IGNORECASE)
ROW_LOCK = re.compile(r"\bFOR\s+(NO\s+KEY\s+)?UPDATE\b", re.IGNORECASE)

postgresql_only = pytest.mark.skipif(
    connection.vendor != "postgresql",
    reason="roles with table privileges are PostgreSQL's (the test user is a superuser)",
)


@pytest.fixture
def site(sitemaps: Any) -> Any:
    @sitemapkit.register(Article)
    class ArticleSitemap(sitemapkit.ModelSitemap):
        # get_absolute_url(), and more rows than fit one file.
        limit = 5

    @sitemapkit.register(Tag)
    class TagSitemap(sitemapkit.ModelSitemap):
        # The fast path, cut too.
        url_name = "tag-detail"
        url_kwargs = {"slug": "slug"}
        limit = 4

    @sitemapkit.register(Document)
    class DocumentSitemap(sitemapkit.ModelSitemap):
        # UUID keys: cut where the database orders them.
        limit = 4

    # No lastmod, one page.
    sitemapkit.register(Author)

    Article.objects.bulk_create(
        Article(slug=f"a{i}", updated_at=T0 + datetime.timedelta(hours=i)) for i in range(13)
    )
    Tag.objects.bulk_create(Tag(slug=f"t{i}") for i in range(9))
    Document.objects.bulk_create(Document(updated_at=T0) for _ in range(10))
    Author.objects.bulk_create(Author(name=f"n{i}") for i in range(3))
    return sitemaps


@pytest.fixture
def read_only_role() -> Iterator[str]:
    """A role that may only SELECT; created in the test's transaction, so it goes with it."""
    with connection.cursor() as cursor:
        cursor.execute(
            f"DO $$ BEGIN CREATE ROLE {READ_ONLY_ROLE} NOLOGIN;"
            " EXCEPTION WHEN duplicate_object THEN NULL; END $$"
        )
        cursor.execute(f"GRANT SELECT ON ALL TABLES IN SCHEMA public TO {READ_ONLY_ROLE}")
    try:
        yield READ_ONLY_ROLE
    finally:
        set_role(None)


def set_role(role: str | None) -> None:
    with connection.cursor() as cursor:
        cursor.execute("RESET ROLE" if role is None else f"SET ROLE {role}")


def serve_everything(client: Client) -> tuple[dict[str, bytes], dict[str, list[str]]]:
    """Every file the index names, plain and gzipped, with the SQL of each request.

    From an empty cache: each file is rendered from the database.
    """
    caches["default"].clear()
    files: dict[str, bytes] = {}
    queries: dict[str, list[str]] = {}

    def get(path: str) -> bytes:
        with CaptureQueriesContext(connection) as captured:
            response = client.get(path)
        assert response.status_code == 200, (path, response.status_code)
        files[path] = response.content
        queries[path] = [query["sql"] for query in captured.captured_queries]
        return bytes(response.content)

    for loc, _lastmod in parse_index(get("/sitemap.xml")):
        get(path_of(loc))
        get(path_of(loc) + ".gz")
    get("/sitemap.xml.gz")
    return files, queries


def statements(queries: dict[str, list[str]], pattern: re.Pattern[str]) -> list[str]:
    return [sql for sqls in queries.values() for sql in sqls if pattern.search(sql)]


@postgresql_only
def test_a_read_only_role_serves_the_same_files_without_writing(
    site: Any, client: Client, read_only_role: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING)
    # Nothing recorded yet: every cut is made in memory.
    set_role(read_only_role)
    first, first_queries = serve_everything(client)
    set_role(None)
    assert not SitemapPage.objects.exists()
    # The read-write role records the cuts as it serves.
    second, second_queries = serve_everything(client)
    assert set(SitemapPage.objects.values_list("section", flat=True)) == {
        "testapp-article",
        "testapp-tag",
        "testapp-document",
    }
    # The read-only role reads them.
    set_role(read_only_role)
    third, third_queries = serve_everything(client)
    set_role(None)

    assert first == second == third
    assert sum(path.endswith(".xml") for path in first) == 1 + 3 + 3 + 3 + 1
    assert statements(first_queries, WRITE) == statements(third_queries, WRITE) == []
    for queries in (first_queries, second_queries, third_queries):
        assert statements(queries, ROW_LOCK) == []
    assert [record for record in caplog.records if record.levelno >= logging.ERROR] == []
    assert [record for record in caplog.records if record.exc_info] == []


@postgresql_only
def test_a_refused_write_leaves_the_request_transaction_usable(
    site: Any,
    client: Client,
    read_only_role: str,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.WARNING)
    expected, _queries = serve_everything(client)
    SitemapPage.objects.all().delete()
    # A refusal the privilege check does not foresee: the write is tried and
    # fails inside the request's transaction, which must go on.
    monkeypatch.setitem(connection.settings_dict, "ATOMIC_REQUESTS", True)
    monkeypatch.setattr(PageManager, "writable", lambda self: True)
    set_role(read_only_role)
    files, queries = serve_everything(client)
    set_role(None)
    assert files == expected
    assert statements(queries, WRITE)  # tried, and refused
    assert not SitemapPage.objects.exists()
    assert [record for record in caplog.records if record.levelno >= logging.ERROR] == []


@pytest.mark.skipif(connection.vendor != "sqlite", reason="PRAGMA query_only is SQLite's")
def test_a_query_only_sqlite_connection_serves_the_same_files(site: Any, client: Client) -> None:
    with connection.cursor() as cursor:
        cursor.execute("PRAGMA query_only = ON")
    try:
        read_only, _queries = serve_everything(client)
    finally:
        with connection.cursor() as cursor:
            cursor.execute("PRAGMA query_only = OFF")
    assert not SitemapPage.objects.exists()
    assert serve_everything(client)[0] == read_only
    assert SitemapPage.objects.exists()
