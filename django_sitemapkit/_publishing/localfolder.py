"""Publishing to a local folder (``FileSystemStorage``, or ``BUILD_DIR``) in generations, each
made visible whole by swapping the ``current`` symlink (docs/building.md). A ``flock`` guards
builds: the kernel releases it when a build dies, even by SIGKILL."""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import IO

from django_sitemapkit._publishing.base import (
    MANIFEST_NAME,
    Manifest,
    PublishError,
    lock_holder_label,
    wait_for_lock,
    write_index_and_manifest,
)

CURRENT_LINK = "current"
GENERATIONS_DIR = "generations"
TEMP_PREFIX = ".tmp-"
LOCK_NAME = ".sitemapkit-build.lock"
# A flock costs nothing to try, so a waiting build retries it often.
LOCK_POLL_SECONDS = 0.2


@contextlib.contextmanager
def _storage_failure() -> Iterator[None]:
    """Raise an OSError (a read-only folder, a full disk) as a PublishError; also a decorator."""
    try:
        yield
    except OSError as exc:
        raise PublishError(f"Cannot write the sitemap files: {exc}") from exc


class LocalPublisher:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.description = str(root)
        self._manifest_cache: tuple[str, Manifest] | None = None

    @contextlib.contextmanager
    def lock(self, wait: float = 0) -> Iterator[None]:
        with self._open_lock() as handle:
            wait_for_lock(
                lambda: _try_flock(handle),
                lambda: _read_holder(handle),
                wait=wait,
                poll=LOCK_POLL_SECONDS,
                description=self.description,
            )
            handle.truncate(0)  # opened to append: the write goes to the start
            handle.write(f"{lock_holder_label()}\n")
            handle.flush()
            try:
                yield
            finally:
                handle.truncate(0)
                fcntl.flock(handle, fcntl.LOCK_UN)

    @_storage_failure()
    def _open_lock(self) -> IO[str]:
        self.root.mkdir(parents=True, exist_ok=True)
        return open(self.root / LOCK_NAME, "a+")

    def cleanup(self) -> int:
        """Temporary folders of dead builds, and generations older than the previous one."""
        removed = 0
        for entry in self.root.glob(f"{TEMP_PREFIX}*"):
            if entry.is_dir() and not entry.is_symlink():
                shutil.rmtree(entry, ignore_errors=True)
            else:
                entry.unlink(missing_ok=True)
            removed += 1
        manifest = self.manifest()
        if manifest is not None:
            removed += self.prune({manifest.generation, manifest.previous_generation})
        return removed

    def interrupted(self) -> bool:
        """Never: a build writes into a folder of its own, which ``cleanup()`` removes."""
        return False

    def prune(self, keep: set[str | None]) -> int:
        generations = self.root / GENERATIONS_DIR
        if not generations.is_dir():
            return 0
        old = [entry for entry in generations.iterdir() if entry.name not in keep]
        for entry in old:
            shutil.rmtree(entry, ignore_errors=True)
        return len(old)

    def manifest(self) -> Manifest | None:
        try:
            current = self.root / os.readlink(self.root / CURRENT_LINK)
        except OSError:
            return None
        # Generations never change once published: the parsed manifest is cached per generation.
        if self._manifest_cache is not None and self._manifest_cache[0] == current.name:
            return self._manifest_cache[1]
        try:
            manifest = Manifest.from_json((current / MANIFEST_NAME).read_bytes())
        except FileNotFoundError:
            return None
        self._manifest_cache = (current.name, manifest)
        return manifest

    def read(self, manifest: Manifest, name: str) -> bytes | None:
        # From the manifest's own generation, not through the symlink: the same set's file.
        try:
            return (self.root / GENERATIONS_DIR / manifest.generation / name).read_bytes()
        except FileNotFoundError:
            return None

    def begin(self, manifest: Manifest, previous: Manifest | None) -> LocalTransaction:
        return LocalTransaction(self, manifest.generation, previous)


class LocalTransaction:
    @_storage_failure()
    def __init__(
        self, publisher: LocalPublisher, generation: str, previous: Manifest | None
    ) -> None:
        self.publisher = publisher
        self.generation = generation
        self.temp = publisher.root / f"{TEMP_PREFIX}{generation}"
        self.temp.mkdir(parents=True)
        self.previous = previous
        # Fsynced on a thread while rendering goes on; publish() waits for all before its rename.
        self._syncer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="sitemapkit-fsync")
        self._syncs: list[Future[None]] = []

    @_storage_failure()
    def write(self, name: str, data: bytes) -> None:
        path = self.temp / name
        path.write_bytes(data)
        self._syncs.append(self._syncer.submit(_fsync, path))

    def _wait_for_syncs(self) -> None:
        try:
            for sync in self._syncs:
                sync.result()
        finally:
            self._syncer.shutdown(wait=True)

    @_storage_failure()
    def keep(self, name: str) -> None:
        assert self.previous is not None
        source = self.publisher.root / GENERATIONS_DIR / self.previous.generation / name
        try:
            os.link(source, self.temp / name)
        except OSError:
            shutil.copy2(source, self.temp / name)

    @_storage_failure()
    def publish(self, index: dict[str, bytes], manifest: Manifest) -> None:
        write_index_and_manifest(self.write, index, manifest)
        self._wait_for_syncs()
        fsync_directory(self.temp)
        root = self.publisher.root
        generations = root / GENERATIONS_DIR
        generations.mkdir(exist_ok=True)
        os.rename(self.temp, generations / self.generation)
        fsync_directory(generations)
        # rename(2) over an existing symlink is atomic: readers resolve the old target or the new.
        staging = root / f"{TEMP_PREFIX}link-{self.generation}"
        os.symlink(f"{GENERATIONS_DIR}/{self.generation}", staging)
        os.replace(staging, root / CURRENT_LINK)
        fsync_directory(root)
        self.publisher.prune({manifest.generation, manifest.previous_generation})

    def abort(self) -> None:
        with contextlib.suppress(OSError):
            self._wait_for_syncs()
        shutil.rmtree(self.temp, ignore_errors=True)


def _try_flock(handle: IO[str]) -> bool:
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except (BlockingIOError, PermissionError):  # EAGAIN, or EACCES where flock() is emulated
        return False
    return True


def _read_holder(handle: IO[str]) -> str:
    handle.seek(0)
    return handle.read().strip()


def _fsync(path: Path) -> None:
    """Flush ``path``'s data to disk: an fsync through any descriptor flushes the file's."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def fsync_directory(directory: Path) -> None:
    """Make renames inside ``directory`` durable (POSIX; a no-op on Windows, which cannot open
    a directory so and where a replace is as durable as it gets)."""
    with contextlib.suppress(OSError):
        _fsync(directory)
