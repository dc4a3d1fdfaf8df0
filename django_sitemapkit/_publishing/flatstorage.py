"""Publishing to any other storage (S3 through django-storages, ...): flat, index last, under a
lock in Django's cache; vanished pages are deleted only after the new index is published. Files
are overwritten in place, hence the ``UNFINISHED`` marker (docs/building.md)."""

from __future__ import annotations

import contextlib
import copy
import datetime
import re
import uuid
from collections.abc import Iterator
from typing import Any

from django.core.cache import caches
from django.core.files.storage import Storage
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import timezone

from django_sitemapkit._conf import CACHE_KEY_PREFIX, get_settings
from django_sitemapkit._protocol.files import content_type
from django_sitemapkit._publishing.base import (
    MANIFEST_NAME,
    Manifest,
    PublishError,
    lock_holder_label,
    wait_for_lock,
    write_index_and_manifest,
)

# A flat storage's lock outlives a dead build by at most this many seconds.
CACHE_LOCK_TIMEOUT = 600
# Each try is a round trip to the cache, so a waiting build spaces them out.
LOCK_POLL_SECONDS = 0.5
# How old a manifest's modification time must be before it keys the cache.
SETTLED = datetime.timedelta(seconds=2)
# Written before a build's first file, deleted after its publish: if there, a build died writing.
UNFINISHED = ".sitemapkit-unfinished"
# The names of a set's files (_engine/rendering.py): index, pages, .gz, stylesheet.
SET_FILE = re.compile(r"sitemap(-[a-z0-9_-]+-[1-9][0-9]*)?\.xml(\.gz)?|sitemap\.(css|xsl)")


class FlatPublisher:
    def __init__(self, storage: Storage, alias: str, folder: str = "") -> None:
        self.storage = typed_storage(storage)
        self.folder = f"{folder.strip('/')}/" if folder else ""
        self.alias = f"{alias}/{folder}" if folder else alias
        self.description = f"storage {self.alias!r}"
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

    def path(self, name: str) -> str:
        return self.folder + name

    def cleanup(self) -> int:
        """Nothing yet: what a dead build wrote goes with the next publish; its lock expires."""
        return 0

    def interrupted(self) -> bool:
        return self.storage.exists(self.path(UNFINISHED))

    def set_files(self) -> list[str]:
        """The files in the storage named like a set's (none where it cannot list them)."""
        try:
            _folders, files = self.storage.listdir(self.folder)
        except NotImplementedError:
            return []
        return [name for name in files if SET_FILE.fullmatch(name)]

    def manifest(self) -> Manifest | None:
        try:
            stamp = self.storage.get_modified_time(self.path(MANIFEST_NAME))
        except NotImplementedError:
            stamp = None
        except Exception as exc:
            if _is_missing(exc):
                return None
            raise
        if stamp is not None and self._manifest_cache and self._manifest_cache[0] == stamp:
            return self._manifest_cache[1]
        data = self.read(None, MANIFEST_NAME)
        if data is None:
            return None
        manifest = Manifest.from_json(data)
        if stamp is not None and _settled(stamp):
            self._manifest_cache = (stamp, manifest)
        return manifest

    def read(self, manifest: Manifest | None, name: str) -> bytes | None:
        try:
            with self.storage.open(self.path(name), "rb") as handle:
                data = handle.read()
        except Exception as exc:
            if _is_missing(exc):
                return None
            raise
        return data if isinstance(data, bytes) else data.encode()

    def begin(self, manifest: Manifest, previous: Manifest | None) -> FlatTransaction:
        return FlatTransaction(self, previous)


class FlatTransaction:
    def __init__(self, publisher: FlatPublisher, previous: Manifest | None) -> None:
        self.publisher = publisher
        self.previous = previous
        self.started = False

    def write(self, name: str, data: bytes) -> None:
        if not self.started:
            self.started = True
            self._save(UNFINISHED, lock_holder_label().encode())
        self._save(name, data)

    def _save(self, name: str, data: bytes) -> None:
        publisher = self.publisher
        # Django's file with a content_type, where storages look for one.
        typed = SimpleUploadedFile(name, data, content_type(name))
        saved = publisher.storage.save(publisher.path(name), typed)
        if saved != publisher.path(name):
            publisher.storage.delete(saved)
            saved = saved.removeprefix(publisher.folder)
            raise PublishError(
                f"{self.publisher.description} saved {name!r} as {saved!r}: it does not overwrite "
                "files. Configure it to overwrite (django-storages: file_overwrite=True; "
                "FileSystemStorage: allow_overwrite=True)."
            )

    def keep(self, name: str) -> None:
        """Flat files stay where they are."""

    def publish(self, index: dict[str, bytes], manifest: Manifest) -> None:
        write_index_and_manifest(self.write, index, manifest)
        # Vanished pages, and what dead builds wrote that no set lists.
        gone = set(self.publisher.set_files()) | set(self.previous.files() if self.previous else [])
        for name in sorted(gone - set(manifest.files())):
            self.publisher.storage.delete(self.publisher.path(name))
        self.publisher.storage.delete(self.publisher.path(UNFINISHED))

    def abort(self) -> None:
        """Nothing to undo: the old index names only files that exist; the marker stays."""


def typed_storage(storage: Storage) -> Storage:
    """``storage``, saving each file with :func:`content_type`'s type and no Content-Encoding:
    django-storages' S3 backend guesses a Content-Encoding from the name (gzip for ``.xml.gz``)
    whatever the ``content_type``; its hook ``get_object_parameters(name)`` replaces the guess,
    on a copy, so the project's own use of the alias keeps its configuration."""
    if not any(cls.__module__ == "storages.backends.s3" for cls in type(storage).__mro__):
        return storage
    configured = storage.get_object_parameters  # type: ignore[attr-defined]

    def parameters(name: str) -> dict[str, Any]:
        params = {k: v for k, v in configured(name).items() if k != "ContentEncoding"}
        return {**params, "ContentType": content_type(name)}

    typed = copy.copy(storage)
    typed.get_object_parameters = parameters  # type: ignore[attr-defined]
    return typed


def _settled(stamp: datetime.datetime) -> bool:
    """Whether a file last modified at ``stamp`` may be cached by that time: storages may keep
    whole seconds (S3 does), so a manifest rewritten within that second would look unchanged."""
    now = timezone.now()
    # Storages give naive times in the current time zone where USE_TZ is off.
    return (now if timezone.is_aware(stamp) else timezone.make_naive(now)) - stamp >= SETTLED


def _is_missing(exc: Exception) -> bool:
    """Whether a storage error means "no such file" (S3: a 404 ClientError); others propagate."""
    if isinstance(exc, FileNotFoundError):
        return True
    response = getattr(exc, "response", None)
    if isinstance(response, dict):
        code = str(response.get("Error", {}).get("Code", ""))
        return code in {"404", "NoSuchKey", "NotFound"}
    return False
