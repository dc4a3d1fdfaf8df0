"""What every publisher provides, and the parts of publishing they all share.

A publisher owns the published set of sitemap files in one storage; a build
takes its lock, reads its manifest, and writes a new set through a
transaction that readers cannot see until ``publish()``. Whatever the
storage, a set is published in one order: every page first, then the index,
the manifest last (``write_index_and_manifest``). Where files become visible
one by one (a flat storage), that order is what keeps readers from an index
naming a missing page, also when a build dies half-way; the next build
trusts the files a manifest lists, so that comes last everywhere.
"""

from __future__ import annotations

import contextlib
import datetime
import os
import time
from collections.abc import Callable, Mapping
from typing import Protocol

from django_sitemapkit.publishing.manifest import MANIFEST_NAME, Manifest


class BuildLocked(Exception):
    """Another build holds the lock."""


class PublishError(Exception):
    """The storage cannot publish a set safely."""


class Transaction(Protocol):
    """Files of one build, not visible to readers until ``publish()``."""

    def write(self, name: str, data: bytes) -> None: ...

    def keep(self, name: str) -> None:
        """Carry ``name`` over unchanged from the published set, without reading it."""
        ...

    def publish(self, index: dict[str, bytes], manifest: Manifest) -> None:
        """Write the index and the manifest after every page, and make the set visible."""
        ...

    def abort(self) -> None:
        """Give the build up, leaving the published set as it was."""
        ...


class Publisher(Protocol):
    """The published set in one storage."""

    description: str

    def lock(self, wait: float = 0) -> contextlib.AbstractContextManager[None]:
        """Hold the build lock, waiting up to ``wait`` seconds; raises BuildLocked."""
        ...

    def cleanup(self) -> int:
        """Remove what dead builds left behind; returns how many entries went."""
        ...

    def interrupted(self) -> bool:
        """Whether a build died writing into the published set, whose files the next build
        must then all write again (a storage that writes in place)."""
        ...

    def manifest(self) -> Manifest | None:
        """The published set's manifest, or None when nothing is published."""
        ...

    def read(self, manifest: Manifest, name: str) -> bytes | None:
        """A file of the set ``manifest`` describes, or None when it has no such file."""
        ...

    def begin(self, manifest: Manifest, previous: Manifest | None) -> Transaction:
        """A transaction writing the set ``manifest`` describes, ``previous`` being published."""
        ...


def write_index_and_manifest(
    write: Callable[[str, bytes], None], index: Mapping[str, bytes], manifest: Manifest
) -> None:
    """The last writes of a build, made once every page is written: the index, then the manifest.

    Every transaction's ``publish()`` starts here, so that no storage can
    hold an index naming a page not yet written, or a manifest describing a
    file not yet written (the next build trusts every file a manifest lists).
    """
    for name, data in index.items():
        write(name, data)
    write(MANIFEST_NAME, manifest.to_json())


def wait_for_lock(
    acquire: Callable[[], bool],
    holder: Callable[[], str | None],
    *,
    wait: float,
    poll: float,
    description: str,
) -> None:
    """Call ``acquire`` until it returns True, for up to ``wait`` seconds.

    Raises BuildLocked, naming whoever ``holder`` says holds the lock, when
    the time is up. ``acquire`` is tried at least once, so ``wait=0`` means
    "do not wait".
    """
    deadline = time.monotonic() + wait
    while not acquire():
        if time.monotonic() >= deadline:
            raise BuildLocked(
                f"Another sitemapkit_build is publishing to {description} "
                f"({holder() or 'another process'}); "
                "try again when it has finished, or pass --wait SECONDS."
            )
        time.sleep(poll)


def lock_holder_label() -> str:
    """Who holds a lock, for the message of a build that finds it taken."""
    now = datetime.datetime.now(tz=datetime.UTC).replace(microsecond=0).isoformat()
    return f"pid {os.getpid()} since {now}"
