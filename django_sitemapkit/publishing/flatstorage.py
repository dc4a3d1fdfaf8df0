"""Publishing to any other storage (S3 through django-storages, ...): flat, index last.

There is no atomic rename, so pages are written first, the index after them,
the manifest last, and files of vanished pages are deleted only after the
new index is published. The index therefore never names a missing object.
Builds are guarded by a lock in Django's cache that expires if a build dies.
"""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Iterator, Sequence
from typing import Any

from django.core.cache import caches
from django.core.files.base import ContentFile
from django.core.files.storage import Storage

from django_sitemapkit.conf import CACHE_KEY_PREFIX, get_settings
from django_sitemapkit.protocol.deflate import Piece
from django_sitemapkit.publishing.base import (
    PublishError,
    Reuse,
    lock_holder_label,
    wait_for_lock,
    write_index_and_manifest,
)
from django_sitemapkit.publishing.manifest import MANIFEST_NAME, Manifest

# A flat storage's lock outlives a dead build by at most this many seconds.
CACHE_LOCK_TIMEOUT = 600
# Each try is a round trip to the cache, so a waiting build spaces them out.
LOCK_POLL_SECONDS = 0.5


class FlatPublisher:
    def __init__(self, storage: Storage, alias: str) -> None:
        self.storage = storage
        self.description = f"storage {alias!r}"
        self.alias = alias
        self._manifest_cache: tuple[Any, Manifest] | None = None

    @contextlib.contextmanager
    def lock(self, wait: float = 0) -> Iterator[None]:
        cache = caches[get_settings().CACHE_ALIAS]
        key = f"{CACHE_KEY_PREFIX}:build-lock:{self.alias}"
        token = f"{lock_holder_label()} ({uuid.uuid4().hex[:8]})"
        wait_for_lock(
            lambda: bool(cache.add(key, token, CACHE_LOCK_TIMEOUT)),
            lambda: cache.get(key),
            wait=wait,
            poll=LOCK_POLL_SECONDS,
            description=self.description,
        )
        try:
            yield
        finally:
            if cache.get(key) == token:
                cache.delete(key)

    def cleanup(self) -> int:
        """Nothing: a dead build leaves no temporary files here, and its lock expires."""
        return 0

    def manifest(self) -> Manifest | None:
        try:
            stamp = self.storage.get_modified_time(MANIFEST_NAME)
        except NotImplementedError:
            stamp = None
        except Exception as exc:
            if _is_missing(exc):
                return None
            raise
        if stamp is not None and self._manifest_cache and self._manifest_cache[0] == stamp:
            return self._manifest_cache[1]
        data = self._read(MANIFEST_NAME)
        if data is None:
            return None
        manifest = Manifest.from_json(data)
        if stamp is not None:
            self._manifest_cache = (stamp, manifest)
        return manifest

    def _read(self, name: str) -> bytes | None:
        try:
            with self.storage.open(name, "rb") as handle:
                data = handle.read()
        except Exception as exc:
            if _is_missing(exc):
                return None
            raise
        return data if isinstance(data, bytes) else data.encode()

    def read(self, manifest: Manifest, name: str) -> bytes | None:
        return self._read(name)

    def read_view(self, manifest: Manifest, name: str) -> Piece | None:
        """``read()``: a remote object cannot be viewed without copying it."""
        return self.read(manifest, name)

    def begin(self, manifest: Manifest, previous: Manifest | None) -> FlatTransaction:
        return FlatTransaction(self, previous)


class FlatTransaction:
    def __init__(self, publisher: FlatPublisher, previous: Manifest | None) -> None:
        self.publisher = publisher
        self.previous = previous

    def write(self, name: str, data: bytes | Sequence[Piece], reuse: Reuse | None = None) -> None:
        storage = self.publisher.storage
        content = data if isinstance(data, bytes) else b"".join(data)
        saved = storage.save(name, ContentFile(content))
        if saved != name:
            storage.delete(saved)
            raise PublishError(
                f"{self.publisher.description} saved {name!r} as {saved!r}: it does not overwrite "
                "files. Configure it to overwrite (django-storages: file_overwrite=True; "
                "FileSystemStorage: allow_overwrite=True)."
            )

    def keep(self, name: str) -> None:
        """Flat files stay where they are."""

    def publish(self, index: dict[str, bytes], manifest: Manifest) -> None:
        write_index_and_manifest(self.write, index, manifest)
        if self.previous is not None:
            current = set(manifest.files())
            for name in self.previous.files():
                if name not in current:
                    self.publisher.storage.delete(name)

    def abort(self) -> None:
        """Nothing to undo: the old index still names only files that exist."""


def _is_missing(exc: Exception) -> bool:
    """Whether a storage error means "no such file".

    Remote storages raise their own errors for that (botocore's ClientError
    with a 404 for S3); anything else is a real failure and must propagate.
    """
    if isinstance(exc, FileNotFoundError):
        return True
    response = getattr(exc, "response", None)
    if isinstance(response, dict):
        code = str(response.get("Error", {}).get("Code", ""))
        return code in {"404", "NoSuchKey", "NotFound"}
    return False
