"""What _engine/internals.py takes from Django's private ORM API, checked against the ORM itself.

Each test compares an internals function with the public API doing the same
job (``values_list()``, ``cursor.execute()``) on columns whose values the
backends convert (booleans, datetimes, dates, UUIDs, decimals), and says in
its message which Django internal changed when they disagree. Rows are
compared with their types: ``1 == True`` and a date string is not a date.
"""

from __future__ import annotations

import datetime
import inspect
import uuid
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import pytest
from django.db import connection
from django.db.models import Count, DecimalField, IntegerField, Max, QuerySet, Value
from django.db.models.functions import Cast
from django.db.models.query import ModelIterable
from django.db.models.sql import compiler as sql_compiler

from django_sitemapkit._engine import internals
from django_sitemapkit._engine.internals import (
    bound_alias,
    compiled_sql,
    iterate_rows,
    selected_converters,
    yields_instances,
)
from tests.testapp.models import Article, Document, Event

pytestmark = pytest.mark.django_db

T0 = datetime.datetime(2026, 1, 1, 12, 30, 45, 123456, tzinfo=datetime.UTC)
D0 = datetime.date(2026, 1, 1)
# A chunk smaller than the tables: rows come from several fetches.
SMALL_CHUNK = 7


@pytest.fixture(autouse=True)
def _rows() -> None:
    Article.objects.bulk_create(
        Article(slug=f"a{i}", published=i % 3 != 0, updated_at=T0 + datetime.timedelta(hours=i))
        for i in range(30)
    )
    Event.objects.bulk_create(
        Event(url=f"/e{i}/", modified=None if i % 4 == 0 else D0 + datetime.timedelta(days=i))
        for i in range(20)
    )
    Document.objects.bulk_create(
        Document(id=uuid.UUID(int=i * 7919), updated_at=T0 + datetime.timedelta(minutes=i))
        for i in range(1, 20)
    )


def articles() -> QuerySet[Any]:
    """Booleans (ints on SQLite and MySQL), datetimes (text on SQLite), decimals."""
    price = Cast("pk", DecimalField(max_digits=12, decimal_places=2))
    return Article.objects.order_by("pk").values_list(
        "pk", "slug", "published", "updated_at", price
    )


def events() -> QuerySet[Any]:
    """Dates, some NULL."""
    return Event.objects.order_by("pk").values_list("pk", "url", "modified")


def documents() -> QuerySet[Any]:
    """UUIDs (text on SQLite and MySQL), sliced as a page is."""
    return Document.objects.order_by("pk").values_list("pk", "updated_at")[:12]


def part() -> QuerySet[Any]:
    """Shaped like a keyranges part: a tag, a count and the newest lastmod of a key range."""
    return (
        Article.objects.filter(pk__gte=Article.objects.order_by("pk")[3].pk, published=True)
        .annotate(_range=Value(5, output_field=IntegerField()))
        .values("_range")
        .annotate(_count=Count("*"), _lastmod=Max("updated_at"))
        .values_list("_range", "_count", "_lastmod")
    )


QUERYSETS: dict[str, Callable[[], QuerySet[Any]]] = {
    "articles": articles,
    "events": events,
    "documents": documents,
    "part": part,
}


def typed(rows: Iterable[Sequence[Any]]) -> list[tuple[tuple[str, Any], ...]]:
    """Rows with every value's type next to it, so that a missed conversion cannot pass."""
    return [tuple((type(value).__name__, value) for value in row) for row in rows]


def fetched(queryset: QuerySet[Any]) -> list[tuple[Any, ...]]:
    """The rows of ``queryset`` as the database driver hands them out, unconverted."""
    sql, params = compiled_sql(queryset)
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return [tuple(row) for row in cursor.fetchall()]


def converts_on_this_backend() -> bool:
    """SQLite and MySQL hand out booleans, UUIDs and (SQLite) datetimes that the ORM converts."""
    return connection.vendor in ("sqlite", "mysql")


# --------------------------------------------------------------------------- the private API


@pytest.mark.parametrize(
    ("owner", "name", "parameters"),
    [
        (sql_compiler.SQLCompiler, "execute_sql", ("result_type", "chunked_fetch", "chunk_size")),
        (sql_compiler.SQLCompiler, "get_converters", ("expressions",)),
        (sql_compiler.SQLCompiler, "apply_converters", ("rows", "converters")),
        (sql_compiler.SQLCompiler, "results_iter", ("results",)),
        (sql_compiler.SQLCompiler, "setup_query", ()),
        (sql_compiler.SQLCompiler, "as_sql", ()),
    ],
)
def test_the_compiler_methods_internals_calls_are_there(
    owner: type, name: str, parameters: tuple[str, ...]
) -> None:
    method = getattr(owner, name, None)
    assert method is not None, f"Django removed {owner.__qualname__}.{name}(): internals.py uses it"
    missing = set(parameters) - set(inspect.signature(method).parameters)
    assert not missing, (
        f"Django's {owner.__qualname__}.{name}() lost its parameters {sorted(missing)}: "
        "internals.py passes them"
    )


# --------------------------------------------------------------------------- iterate_rows


@pytest.mark.parametrize("server_side", [True, False])
@pytest.mark.parametrize("name", ["articles", "events", "documents"])
def test_iterate_rows_returns_what_values_list_returns(
    monkeypatch: pytest.MonkeyPatch, name: str, server_side: bool
) -> None:
    monkeypatch.setattr(internals, "CHUNK_SIZE", SMALL_CHUNK)
    queryset = QUERYSETS[name]()
    expected = list(queryset)
    assert len(expected) > SMALL_CHUNK
    got = list(iterate_rows(queryset, raw_column=None, server_side=server_side))
    assert typed(got) == typed(expected), (
        "internals.iterate_rows() no longer returns the rows values_list() returns: "
        "Django changed SQLCompiler.execute_sql(MULTI, chunked_fetch=, chunk_size=) "
        "(chunks of cursor rows), SQLCompiler.select/col_count after execute_sql(), "
        "get_converters() or apply_converters()"
    )
    assert all(type(row) is tuple for row in got), (
        "internals.iterate_rows() returns rows that are not tuples: "
        "SQLCompiler.execute_sql(MULTI) or apply_converters() changed what a row is"
    )


@pytest.mark.parametrize("server_side", [True, False])
@pytest.mark.parametrize(("name", "raw_column"), [("articles", 3), ("events", 2)])
def test_iterate_rows_leaves_the_raw_column_as_the_database_returned_it(
    monkeypatch: pytest.MonkeyPatch, name: str, raw_column: int, server_side: bool
) -> None:
    monkeypatch.setattr(internals, "CHUNK_SIZE", SMALL_CHUNK)
    queryset = QUERYSETS[name]()
    raw = fetched(queryset)
    expected = [
        (*row[:raw_column], raw_row[raw_column], *row[raw_column + 1 :])
        for row, raw_row in zip(list(queryset), raw, strict=True)
    ]
    got = list(iterate_rows(queryset, raw_column=raw_column, server_side=server_side))
    assert typed(got) == typed(expected), (
        f"internals.iterate_rows(raw_column={raw_column}) does not convert every other "
        f"column and leave column {raw_column} raw: Django changed the keys of "
        "SQLCompiler.get_converters() (column positions) or apply_converters()"
    )


def test_the_raw_column_test_has_something_to_leave_raw() -> None:
    if not converts_on_this_backend():
        pytest.skip(f"{connection.vendor} hands out datetimes the ORM does not convert")
    queryset = articles()
    raw = fetched(queryset)[0][3]
    converted = next(iter(queryset))[3]
    # Naive where the ORM's is aware (or text): a column left raw shows.
    assert (type(raw), raw) != (type(converted), converted), (
        f"the {connection.vendor} driver now hands out datetimes as the ORM returns them: "
        "the raw column tests above no longer tell a converted column from a raw one"
    )


# --------------------------------------------------------------------------- compiled_sql


def plain_rows() -> QuerySet[Any]:
    """Columns no backend converts: the cursor's rows are the ORM's rows."""
    return (
        Article.objects.filter(published=True, slug__startswith="a1")
        .order_by("-pk")
        .values_list("pk", "slug")[:5]
    )


def plain_part() -> QuerySet[Any]:
    return (
        Article.objects.filter(published=False)
        .annotate(_range=Value(5, output_field=IntegerField()))
        .values("_range")
        .annotate(_count=Count("*"))
        .values_list("_range", "_count")
    )


@pytest.mark.parametrize("make", [plain_rows, plain_part])
def test_compiled_sql_runs_to_the_rows_of_the_queryset(make: Callable[[], QuerySet[Any]]) -> None:
    queryset = make()
    sql, params = compiled_sql(queryset)
    assert isinstance(sql, str)
    assert isinstance(params, tuple)
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        got = [tuple(row) for row in cursor.fetchall()]
    expected = list(queryset)
    assert expected
    assert typed(got) == typed(expected), (
        "internals.compiled_sql() gives SQL and parameters that cursor.execute() runs to "
        "other rows than the queryset's: Django changed Query.get_compiler(using=) or "
        "SQLCompiler.as_sql() (returns (sql, params))"
    )


@pytest.mark.parametrize("name", list(QUERYSETS))
def test_selected_converters_are_keyed_by_column_position(name: str) -> None:
    queryset = QUERYSETS[name]()
    compiler = queryset.query.get_compiler(using=queryset.db)
    compiler.setup_query()
    converters = selected_converters(compiler)
    [raw] = fetched(queryset[:1])
    [expected] = list(queryset[:1])
    width = len(expected)
    assert set(converters) <= set(range(width)), (
        "internals.selected_converters() has keys that are not column positions "
        f"0..{width - 1}: {sorted(converters)}; Django changed SQLCompiler.get_converters()"
    )
    for position in range(width):
        value = raw[position]
        if position in converters:
            [row] = compiler.apply_converters([list(raw)], {position: converters[position]})
            value = row[position]
        assert (type(value), value) == (type(expected[position]), expected[position]), (
            f"column {position}: the converters internals.selected_converters() gives for "
            "it do not turn the database's value into the ORM's; Django changed "
            "SQLCompiler.select, col_count or get_converters()"
        )


def test_selected_converters_where_the_backend_converts() -> None:
    if not converts_on_this_backend():
        pytest.skip(f"{connection.vendor} converts none of these columns")
    compiler = articles().query.get_compiler(using="default")
    compiler.setup_query()
    # published (a boolean) and updated_at (a datetime); SQLite the decimal too.
    expected = {2, 3, 4} if connection.vendor == "sqlite" else {2, 3}
    assert expected <= set(selected_converters(compiler)), (
        "internals.selected_converters() misses the converters of columns the ORM "
        f"converts on {connection.vendor}: SQLCompiler.get_converters() changed"
    )


def test_bound_alias_is_the_database_db_manager_chose() -> None:
    assert bound_alias(Article.objects) is None, (
        "internals.bound_alias() of an unbound manager is not None: Django changed BaseManager._db"
    )
    assert bound_alias(Article.objects.db_manager("default")) == "default", (
        "internals.bound_alias() does not give the alias of db_manager(using): Django "
        "changed BaseManager._db"
    )


# --------------------------------------------------------------------------- yields_instances


class Subclassing(ModelIterable):
    """A polymorphic manager's iterable: instances, but maybe of subclasses."""


def test_a_plain_queryset_yields_instances() -> None:
    assert yields_instances(Article.objects.all()), (
        "internals.yields_instances() no longer knows a plain QuerySet: Django changed "
        "QuerySet._iterable_class or ModelIterable"
    )
    assert yields_instances(Article.objects.filter(published=True).order_by("-pk")[:3])


def test_a_queryset_with_another_iterable_does_not_yield_plain_instances() -> None:
    other = Article.objects.all()
    other._iterable_class = Subclassing
    for queryset in (
        Article.objects.values("slug"),
        Article.objects.values_list("slug"),
        Article.objects.values_list("slug", flat=True),
        other,
    ):
        assert not yields_instances(queryset), (
            f"internals.yields_instances() takes {queryset._iterable_class.__name__} "
            "for plain instances: Django changed QuerySet._iterable_class"
        )
    assert all(type(obj) is Article for obj in Article.objects.all())
