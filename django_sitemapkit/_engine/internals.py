"""Every use of Django's private ORM API, each saying why the public API cannot do its job;
tests/engine/test_internals.py fails loudly when a Django release changes what it relies on."""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from typing import Any

from django.db import connections, models
from django.db.models import QuerySet
from django.db.models.query import ModelIterable
from django.db.models.sql.compiler import SQLCompiler
from django.db.models.sql.constants import MULTI

# Large enough to amortise round trips, small enough that memory stays flat.
CHUNK_SIZE = 2000


def iterate_rows(
    queryset: QuerySet[Any], *, raw_column: int | None, server_side: bool = True
) -> Iterator[Sequence[Any]]:
    """A ``values_list()`` queryset's rows in chunks (from a server-side cursor, if any and
    ``server_side``), as ``iterator()`` but for ``raw_column``, left as the database gives it
    (see rows.raw_lastmod_converter), and the cursor's own tuples where none needs converting."""
    connection = connections[queryset.db]
    compiler = queryset.query.get_compiler(queryset.db)
    results = compiler.execute_sql(
        MULTI,
        chunked_fetch=server_side
        and not connection.settings_dict.get("DISABLE_SERVER_SIDE_CURSORS"),
        chunk_size=CHUNK_SIZE,
    )
    converters = selected_converters(compiler)
    if raw_column is not None:
        converters.pop(raw_column, None)
    rows = itertools.chain.from_iterable(results)
    if converters:
        return map(tuple, compiler.apply_converters(rows, converters))
    return rows


def selected_converters(compiler: SQLCompiler) -> dict[int, Any]:
    """The backend and field converters of the columns ``compiler`` selects, by position."""
    fields = [selected[0] for selected in compiler.select[0 : compiler.col_count]]
    return compiler.get_converters(fields)


def compiled_sql(queryset: QuerySet[Any]) -> tuple[str, tuple[Any, ...]]:
    """The SQL and parameters ``queryset`` runs, apart, ready for ``cursor.execute()``
    (``str(queryset.query)`` inlines them unquoted)."""
    sql, params = queryset.query.get_compiler(using=queryset.db).as_sql()
    return sql, tuple(params)


def converted_rows(queryset: QuerySet[Any], rows: list[Any]) -> Iterator[Sequence[Any]]:
    """``rows`` fetched by SQL selecting what ``queryset`` selects, converted as its own rows
    (no public API applies a queryset's converters to rows it did not fetch)."""
    compiler = queryset.query.get_compiler(using=queryset.db)
    compiler.setup_query()
    converted: Iterator[Sequence[Any]] = compiler.results_iter(results=[rows])
    return converted


def yields_instances(queryset: QuerySet[Any]) -> bool:
    """Whether ``queryset`` yields plain instances of its model (a polymorphic manager's
    yields subclasses, with their own methods: only ``_iterable_class`` tells)."""
    return queryset._iterable_class is ModelIterable


def bound_alias(manager: models.Manager[Any]) -> str | None:
    """The database a manager was bound to with ``db_manager(using)``, if any (the public
    ``manager.db`` falls back to the *read* router: writes go where writes are routed)."""
    alias: str | None = manager._db
    return alias
