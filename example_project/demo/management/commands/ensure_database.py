"""Create the database DATABASE_URL names if its server does not have it yet.

    python example_project/manage.py ensure_database [--recreate]

A fresh PostgreSQL or MariaDB server holds only its own databases, and
``migrate`` cannot create one.  This command connects to the server without the
database, the way Django's test runner does to create test databases
(PostgreSQL's ``postgres`` maintenance database, MariaDB with none), and creates
it.  ``--recreate`` drops it first, for a run that must start clean (CI).
SQLite creates its file on the first connection; ``--recreate`` deletes it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import DEFAULT_DB_ALIAS, DatabaseError, connections
from django.db.backends.base.base import BaseDatabaseWrapper

EXISTS_SQL = {
    "postgresql": "SELECT 1 FROM pg_database WHERE datname = %s",
    "mysql": "SELECT 1 FROM information_schema.schemata WHERE schema_name = %s",
}
CREATE_OPTIONS = {
    "postgresql": "",
    # Whatever the server's default: the demo rows hold Unicode titles and slugs.
    "mysql": " CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci",
}
DROP_SQL = {
    # FORCE ends sessions left over from an earlier run (PostgreSQL 13+).
    "postgresql": "DROP DATABASE IF EXISTS {name} WITH (FORCE)",
    "mysql": "DROP DATABASE IF EXISTS {name}",
}


class Command(BaseCommand):
    help = "Create the database named by DATABASE_URL if it does not exist (--recreate: drop it first)."

    # The checks may query the database this command is about to create.
    requires_system_checks: list[str] = []

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--recreate",
            action="store_true",
            help="Drop the database first (all its data is lost).",
        )
        parser.add_argument("--database", default=DEFAULT_DB_ALIAS)

    def handle(self, *args: Any, **options: Any) -> None:
        connection = connections[options["database"]]
        name = str(connection.settings_dict["NAME"] or "")
        if not name:
            raise CommandError("DATABASE_URL names no database (its path is empty).")
        if connection.vendor == "sqlite":
            self._sqlite(name, recreate=options["recreate"])
        elif connection.vendor in EXISTS_SQL:
            try:
                self._server(connection, name, recreate=options["recreate"])
            except DatabaseError as exc:
                raise CommandError(f"Cannot create database {name!r}: {exc}") from exc
        else:
            self.stdout.write(f"{connection.vendor}: create {name!r} yourself if needed.")

    def _sqlite(self, name: str, *, recreate: bool) -> None:
        if recreate and name != ":memory:" and not name.startswith("file:"):
            Path(name).unlink(missing_ok=True)
            self.stdout.write(f"Deleted SQLite database {name}.")
        self.stdout.write(f"SQLite creates {name} when it is first used.")

    def _server(self, connection: BaseDatabaseWrapper, name: str, *, recreate: bool) -> None:
        vendor = connection.vendor
        quoted = connection.ops.quote_name(name)
        # No public API connects to a server without its database; the test runner's does.
        with connection._nodb_cursor() as cursor:
            if recreate:
                cursor.execute(DROP_SQL[vendor].format(name=quoted))
                self.stdout.write(f"Dropped database {name!r} (if it existed).")
            cursor.execute(EXISTS_SQL[vendor], [name])
            if cursor.fetchone() is not None:
                self.stdout.write(f"Database {name!r} exists.")
                return
            cursor.execute(f"CREATE DATABASE {quoted}{CREATE_OPTIONS[vendor]}")
        self.stdout.write(self.style.SUCCESS(f"Created database {name!r} on {vendor}."))
