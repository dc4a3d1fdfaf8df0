"""Builds that lose their database connection: read again, or failed cleanly in a transaction."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import OperationalError, connections

from django_sitemapkit._engine import sections
from django_sitemapkit._engine.keyranges import RangeAggregator
from tests.building.builds import build, published
from tests.utils import parse_index, path_of

pytestmark = pytest.mark.django_db


def drop_connection_once(monkeypatch: pytest.MonkeyPatch, page: int) -> list[int]:
    """Make reading ``page`` fail once as a dropped database connection does."""
    calls: list[int] = []
    real = sections.write_page

    def flaky(sitemap: Any, number: int, *args: Any, **kwargs: Any) -> Any:
        calls.append(number)
        if number == page and calls.count(page) == 1:
            raise OperationalError("server closed the connection unexpectedly")
        return real(sitemap, number, *args, **kwargs)

    monkeypatch.setattr(sections, "write_page", flaky)
    return calls


@pytest.mark.parametrize("during", ["page", "scan"])
def test_a_dropped_connection_inside_a_transaction_fails_cleanly(
    site: Any, build_dir: Path, monkeypatch: pytest.MonkeyPatch, during: str
) -> None:
    # pytest-django wraps this test in a transaction: a reconnect would lose
    # it, so the build must fail and publish nothing.
    build()
    generation = os.readlink(build_dir / "current")
    before = published(build_dir)
    if during == "page":
        drop_connection_once(monkeypatch, page=2)
    else:
        drop_scan_connection_once(monkeypatch)
    with pytest.raises(CommandError, match="nothing was published: OperationalError"):
        call_command("sitemapkit_build", "--full", verbosity=0)
    assert os.readlink(build_dir / "current") == generation
    assert published(build_dir) == before
    assert not [p for p in build_dir.iterdir() if p.name.startswith(".tmp")]


@pytest.mark.django_db(transaction=True)
def test_a_dropped_connection_outside_a_transaction_is_resumed(
    site: Any, build_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = drop_connection_once(monkeypatch, page=2)
    result = build()
    assert calls.count(2) == 2
    assert result.published and result.urls == 38
    names = [path_of(loc) for loc, _ in parse_index(published(build_dir)["sitemap.xml"])]
    assert len(names) == 6


def drop_server_side(alias: str = "default") -> None:
    """Have the database server drop a connection, as an idle timeout or a failover does.

    The connection is killed from a second one and stays open on our side:
    the build finds out on its next query, as it would in production.
    """
    victim = connections[alias]
    victim.ensure_connection()
    killer = connections.create_connection(alias)
    try:
        with killer.cursor() as cursor:
            if victim.vendor == "postgresql":
                pid = victim.connection.info.backend_pid
                cursor.execute("SELECT pg_terminate_backend(%s)", [pid])
                gone = "SELECT count(*) FROM pg_stat_activity WHERE pid = %s"
            else:
                pid = victim.connection.thread_id()
                cursor.execute(f"KILL {int(pid)}")
                gone = "SELECT count(*) FROM information_schema.PROCESSLIST WHERE ID = %s"
            deadline = time.monotonic() + 10
            while True:
                cursor.execute(gone, [pid])
                if cursor.fetchone()[0] == 0:
                    break
                assert time.monotonic() < deadline, "the server did not drop the connection"
                time.sleep(0.05)
    finally:
        killer.close()


@pytest.mark.skipif(
    connections["default"].vendor not in ("postgresql", "mysql"),
    reason="only a database server can drop a connection",
)
@pytest.mark.django_db(transaction=True)
def test_a_connection_the_server_drops_mid_build_is_resumed(
    site: Any, build_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    build()
    undisturbed = published(build_dir)
    real = sections.write_page
    calls: list[int] = []

    def dropped_before_page_2(sitemap: Any, number: int, *args: Any, **kwargs: Any) -> Any:
        calls.append(number)
        if number == 2 and calls.count(2) == 1:
            drop_server_side()
        return real(sitemap, number, *args, **kwargs)

    monkeypatch.setattr(sections, "write_page", dropped_before_page_2)
    result = build(full=True)
    assert calls.count(2) == 2  # read again on a fresh connection
    assert result.published and result.urls == 38
    assert published(build_dir) == undisturbed


def drop_scan_connection_once(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Make the build's first scan of the pages fail as a dropped database connection does.

    Every range scan goes through ``RangeAggregator.figures``.
    """

    calls: list[str] = []
    real = RangeAggregator.figures

    def flaky(self: Any, pages: Any, tz: Any) -> Any:
        calls.append("scan")
        if len(calls) == 1:
            raise OperationalError("terminating connection due to idle-session timeout")
        return real(self, pages, tz)

    monkeypatch.setattr(RangeAggregator, "figures", flaky)
    return calls


@pytest.mark.django_db(transaction=True)
def test_a_connection_dropped_during_the_scan_is_resumed(
    site: Any, build_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = drop_scan_connection_once(monkeypatch)
    result = build()
    assert len(calls) > 1
    assert result.published and result.urls == 38
    names = [path_of(loc) for loc, _ in parse_index(published(build_dir)["sitemap.xml"])]
    assert len(names) == 6
