"""Django's private ORM API, each use saying why; tests/engine/test_internals.py guards them."""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from typing import Any

from django.db import connections, models
from django.db.models import QuerySet
from django.db.models.query import ModelIterable
from django.db.models.sql.compiler import SQLCompiler
from django.db.models.sql.constants import MULTI

CHUNK_SIZE = 2000  # large enough to amortise round trips, small enough that memory stays flat


def iterate_rows(
    queryset: QuerySet[Any], *, raw_column: int | None, server_side: bool = True
) -> Iterator[Sequence[Any]]:
    """A ``values_list()`` queryset's rows, as ``iterator()`` but ``raw_column`` left unconverted
    (rows.raw_lastmod_converter) and the cursor's tuples where nothing needs converting."""
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
    fields = [selected[0] for selected in compiler.select[0 : compiler.col_count]]
    return compiler.get_converters(fields)


def compiled_sql(queryset: QuerySet[Any]) -> tuple[str, tuple[Any, ...]]:
    """SQL and params for ``cursor.execute()`` (``str(queryset.query)`` inlines them unquoted)."""
    sql, params = queryset.query.get_compiler(using=queryset.db).as_sql()
    return sql, tuple(params)


def yields_instances(queryset: QuerySet[Any]) -> bool:
    """Whether ``queryset`` yields plain instances (a polymorphic manager's: only this tells)."""
    return queryset._iterable_class is ModelIterable


def bound_alias(manager: models.Manager[Any]) -> str | None:
    """The alias of ``db_manager(using)``, if any (``manager.db`` falls back to the read router)."""
    alias: str | None = manager._db
    return alias
