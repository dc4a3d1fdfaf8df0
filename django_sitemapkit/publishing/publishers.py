"""Where pre-rendered sitemap files live, and how a new set replaces the old one.

Two layouts, chosen by the storage:

* A local folder (``FileSystemStorage``) gets **generations**: every build
  writes a complete set into a hidden temporary folder, renames it to
  ``generations/<id>`` and then atomically swaps the ``current`` symlink to
  it. A reader (a view, or a web server with ``root <folder>/current``) sees
  either the whole previous set or the whole new one, never a half-written
  file, never an index naming a missing file. Unchanged files are hard links
  to the previous generation's, so incremental builds copy nothing. The
  previous generation stays until the next build for readers still on it.
  A ``flock`` guards builds; the kernel releases it when a build dies, even
  by SIGKILL, so it can never be left stuck.

* Any other storage (S3 through django-storages, ...) is **flat**: there is
  no atomic rename, so pages are written first, the index after them, the
  manifest last, and files of vanished pages are deleted only after the new
  index is published. The index therefore never names a missing object.
  Builds are guarded by a lock in Django's cache that expires if a build dies.
"""

from __future__ import annotations

import contextlib
import datetime
import errno
import fcntl
import json
import mmap
import os
import shutil
import time
import uuid
from collections.abc import Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, BinaryIO

from django.conf import settings
from django.core.files.base import ContentFile
from django.core.files.storage import FileSystemStorage, Storage, storages

from django_sitemapkit.conf import CACHE_KEY_PREFIX, get_settings
from django_sitemapkit.engine.filenames import INDEX_NAME, page_filename
from django_sitemapkit.protocol.deflate import Piece

MANIFEST_NAME = "sitemapkit-manifest.json"
MANIFEST_VERSION = 1
CURRENT_LINK = "current"
GENERATIONS_DIR = "generations"
TEMP_PREFIX = ".tmp-"
LOCK_NAME = ".sitemapkit-build.lock"
# A flat storage's lock outlives a dead build by at most this many seconds.
CACHE_LOCK_TIMEOUT = 600


class BuildLocked(Exception):
    """Another build holds the lock."""


class PublishError(Exception):
    """The storage cannot publish a set safely."""


@dataclass
class PageLayout:
    """How a page file is cut into pieces, so that a build can splice it.

    The pieces are the file's head, its segments of ``segment_entries``
    entries (the last one shorter), and its tail; the .gz compresses each one
    on its own (see writer.py and deflate.py).
    """

    segment_entries: int
    # The key (as text) of the last row of each segment but the last.
    cuts: list[str]
    # Rows read but skipped within each segment's key range.
    skips: list[int]
    # Bytes of each piece, plain and compressed ([] when no .gz was written).
    sizes: list[int]
    gz_sizes: list[int]


@dataclass
class FileRecord:
    """One page of the published set, as the manifest remembers it."""

    section: str
    number: int
    sha256: str
    size: int
    urls: int
    # The lastmod the index announces for this page (ISO 8601, aware).
    lastmod: str | None
    skipped: int = 0
    # Row count and newest row lastmod when the page was rendered: while they
    # stay the same, an incremental build need not render the page again.
    fingerprint: str | None = None
    layout: PageLayout | None = None

    @property
    def name(self) -> str:
        return page_filename(self.section, self.number)

    def lastmod_value(self) -> datetime.datetime | None:
        return None if self.lastmod is None else datetime.datetime.fromisoformat(self.lastmod)

    def fingerprint_lastmod(self) -> datetime.datetime | None:
        """The newest row lastmod the fingerprint recorded ("<count>|<ISO 8601>")."""
        text = (self.fingerprint or "").partition("|")[2]
        return datetime.datetime.fromisoformat(text) if text else None


@dataclass
class Manifest:
    generation: str
    built_at: str
    base_url: str
    gzip: bool
    pages: list[FileRecord] = field(default_factory=list)
    index_sha256: str = ""
    index_lastmod: str | None = None
    previous_generation: str | None = None

    def files(self) -> list[str]:
        """Every file of the set, the index included."""
        names = [record.name for record in self.pages] + [INDEX_NAME]
        if self.gzip:
            names += [name + ".gz" for name in names]
        return names

    def record_for(self, name: str) -> FileRecord | None:
        base = name.removesuffix(".gz")
        for record in self.pages:
            if record.name == base:
                return record
        return None

    def to_json(self) -> bytes:
        # One line per page; a layout's lists (a number per 1,000 URLs) stay
        # on that line, which keeps the file small and quick to write.
        # Field by field, not dataclasses.asdict(): that deep-copies every
        # list of every layout, which costs more than the JSON itself.
        head = json.dumps(
            {f.name: getattr(self, f.name) for f in fields(self) if f.name != "pages"},
            sort_keys=True,
            separators=(",", ":"),
        )
        lines = ",\n".join(
            json.dumps(_record_dict(record), sort_keys=True, separators=(",", ":"))
            for record in self.pages
        )
        return f'{head[:-1]},"pages":[\n{lines}\n]}}\n'.encode()

    @classmethod
    def from_json(cls, data: bytes) -> Manifest:
        raw = json.loads(data)
        if raw.pop("version", MANIFEST_VERSION) != MANIFEST_VERSION:
            raise ValueError("unknown manifest version")
        pages = []
        for page in raw.pop("pages"):
            layout = page.pop("layout", None)
            pages.append(
                FileRecord(**page, layout=None if layout is None else PageLayout(**layout))
            )
        return cls(pages=pages, **raw)


def _record_dict(record: FileRecord) -> dict[str, Any]:
    data = {f.name: getattr(record, f.name) for f in fields(record)}
    if record.layout is not None:
        data["layout"] = {f.name: getattr(record.layout, f.name) for f in fields(record.layout)}
    return data


@dataclass(frozen=True)
class Reuse:
    """Which pieces of a file being written are byte ranges of a published file.

    A storage that can copy within itself (a local folder: copy_file_range)
    copies those ranges instead of writing the pieces' bytes; others write the
    pieces as given, which hold the same bytes.
    """

    source: str
    # Piece index -> offset of that piece's bytes in ``source``.
    offsets: dict[int, int]


class Transaction:
    """Files of one build, not visible to readers until ``publish()``."""

    def write(self, name: str, data: bytes | Sequence[Piece], reuse: Reuse | None = None) -> None:
        """Write a file, given whole or in pieces (some maybe copied: see Reuse)."""
        raise NotImplementedError

    def keep(self, name: str) -> None:
        """Carry ``name`` over unchanged from the published set."""
        raise NotImplementedError

    def publish(self, index: dict[str, bytes], manifest: Manifest) -> None:
        raise NotImplementedError

    def abort(self) -> None:
        raise NotImplementedError


class Publisher:
    """The published set in one storage."""

    description: str

    def lock(self, wait: float = 0) -> contextlib.AbstractContextManager[None]:
        raise NotImplementedError

    def cleanup(self) -> int:
        """Remove what dead builds left behind; returns how many entries went."""
        return 0

    def manifest(self) -> Manifest | None:
        raise NotImplementedError

    def read(self, manifest: Manifest, name: str) -> bytes | None:
        raise NotImplementedError

    def read_view(self, manifest: Manifest, name: str) -> Piece | None:
        """``read()``, without copying the file where the storage allows.

        A splicing build reads a page's old file only to hash it and to copy
        most of it to the new file.
        """
        return self.read(manifest, name)

    def begin(self, manifest: Manifest, previous: Manifest | None) -> Transaction:
        raise NotImplementedError


# -- local folder: generations and a symlink ----------------------------------


class LocalPublisher(Publisher):
    def __init__(self, root: Path) -> None:
        self.root = root
        self.description = str(root)
        self._manifest_cache: tuple[str, Manifest] | None = None

    @contextlib.contextmanager
    def lock(self, wait: float = 0) -> Iterator[None]:
        self.root.mkdir(parents=True, exist_ok=True)
        path = self.root / LOCK_NAME
        with open(path, "a+") as handle:
            deadline = time.monotonic() + wait
            while True:
                try:
                    fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except OSError as exc:
                    if exc.errno not in (errno.EAGAIN, errno.EACCES):
                        raise
                    if time.monotonic() >= deadline:
                        handle.seek(0)
                        holder = handle.read().strip() or "another process"
                        raise BuildLocked(
                            f"Another sitemapkit_build is publishing to {self.root} ({holder}); "
                            "try again when it has finished, or pass --wait SECONDS."
                        ) from None
                    time.sleep(0.2)
            handle.seek(0)
            handle.truncate()
            handle.write(f"pid {os.getpid()} since {_now_iso()}\n")
            handle.flush()
            try:
                yield
            finally:
                handle.seek(0)
                handle.truncate()
                fcntl.flock(handle, fcntl.LOCK_UN)

    def _current_dir(self) -> Path | None:
        link = self.root / CURRENT_LINK
        try:
            target = os.readlink(link)
        except OSError:
            return None
        return self.root / target

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

    def prune(self, keep: set[str | None]) -> int:
        """Delete generations not in ``keep``; the previous one is kept for readers still on it."""
        removed = 0
        generations = self.root / GENERATIONS_DIR
        if generations.is_dir():
            for entry in generations.iterdir():
                if entry.name not in keep:
                    shutil.rmtree(entry, ignore_errors=True)
                    removed += 1
        return removed

    def manifest(self) -> Manifest | None:
        current = self._current_dir()
        if current is None:
            return None
        # Generations never change once published: cache the parsed manifest
        # per generation instead of re-reading it on every request.
        if self._manifest_cache is not None and self._manifest_cache[0] == current.name:
            return self._manifest_cache[1]
        try:
            manifest = Manifest.from_json((current / MANIFEST_NAME).read_bytes())
        except FileNotFoundError:
            return None
        self._manifest_cache = (current.name, manifest)
        return manifest

    def read(self, manifest: Manifest, name: str) -> bytes | None:
        # Read from the manifest's own generation, not through the symlink:
        # the file then belongs to the same set as the manifest that named it.
        try:
            return (self.root / GENERATIONS_DIR / manifest.generation / name).read_bytes()
        except FileNotFoundError:
            return None

    def read_view(self, manifest: Manifest, name: str) -> Piece | None:
        # A memory map: a published generation's files never change, and this
        # build's lock keeps any other from pruning the generation meanwhile.
        try:
            with open(self.root / GENERATIONS_DIR / manifest.generation / name, "rb") as handle:
                if os.fstat(handle.fileno()).st_size == 0:
                    return b""  # an empty file cannot be mapped
                return memoryview(mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ))
        except FileNotFoundError:
            return None

    def begin(self, manifest: Manifest, previous: Manifest | None) -> Transaction:
        return _LocalTransaction(self, manifest.generation, previous)


class _LocalTransaction(Transaction):
    def __init__(
        self, publisher: LocalPublisher, generation: str, previous: Manifest | None
    ) -> None:
        self.publisher = publisher
        self.generation = generation
        self.temp = publisher.root / f"{TEMP_PREFIX}{generation}"
        self.temp.mkdir(parents=True)
        self.previous_dir = (
            None if previous is None else publisher.root / GENERATIONS_DIR / previous.generation
        )

        # Files are flushed to disk (fsync) by a background thread while the
        # build renders the next page; publish() waits for all of them before
        # the rename that makes the generation visible.
        self._syncer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="sitemapkit-fsync")
        self._syncs: list[Future[None]] = []

    def write(self, name: str, data: bytes | Sequence[Piece], reuse: Reuse | None = None) -> None:
        pieces = [data] if isinstance(data, bytes) else data
        handle = open(self.temp / name, "wb")  # noqa: SIM115 -- closed by _sync_and_close
        try:
            if (
                reuse is None
                or self.previous_dir is None
                or not _copy_ranges(self.previous_dir / reuse.source, handle, pieces, reuse.offsets)
            ):
                handle.seek(0)
                handle.truncate()
                handle.writelines(pieces)
            handle.flush()
        except BaseException:
            handle.close()
            raise
        self._syncs.append(self._syncer.submit(_sync_and_close, handle))

    def _wait_for_syncs(self) -> None:
        """Every file written is on disk; raises the first fsync error."""
        try:
            for sync in self._syncs:
                sync.result()
        finally:
            self._syncer.shutdown(wait=True)

    def keep(self, name: str) -> None:
        assert self.previous_dir is not None
        source = self.previous_dir / name
        try:
            os.link(source, self.temp / name)
        except OSError:
            shutil.copy2(source, self.temp / name)

    def publish(self, index: dict[str, bytes], manifest: Manifest) -> None:
        for name, data in index.items():
            self.write(name, data)
        self.write(MANIFEST_NAME, manifest.to_json())
        self._wait_for_syncs()
        fsync_directory(self.temp)
        root = self.publisher.root
        generations = root / GENERATIONS_DIR
        generations.mkdir(exist_ok=True)
        final = generations / self.generation
        os.rename(self.temp, final)
        fsync_directory(generations)
        # rename(2) over an existing symlink is atomic: readers resolve either
        # the old target or the new one.
        staging = root / f"{TEMP_PREFIX}link-{self.generation}"
        os.symlink(f"{GENERATIONS_DIR}/{self.generation}", staging)
        os.replace(staging, root / CURRENT_LINK)
        fsync_directory(root)
        self.publisher.prune({manifest.generation, manifest.previous_generation})

    def abort(self) -> None:
        with contextlib.suppress(OSError):
            self._wait_for_syncs()
        shutil.rmtree(self.temp, ignore_errors=True)


def _sync_and_close(handle: BinaryIO) -> None:
    try:
        os.fsync(handle.fileno())
    finally:
        handle.close()


def _copy_ranges(
    source: Path, handle: BinaryIO, pieces: Sequence[Piece], offsets: dict[int, int]
) -> bool:
    """Write ``pieces`` to ``handle``, copying those in ``offsets`` from ``source`` in the kernel.

    Copying a spliced page's unchanged pieces this way is several times
    faster than writing them from memory. False (and maybe a partial file) when
    the system cannot copy between these files; the caller then writes.
    """
    if not hasattr(os, "copy_file_range"):
        return False
    handle.flush()
    target = handle.fileno()
    position = 0
    try:
        with open(source, "rb") as origin:
            index = 0
            while index < len(pieces):
                if index not in offsets:
                    view = memoryview(pieces[index])
                    while view:
                        written = os.pwrite(target, view, position)
                        position += written
                        view = view[written:]
                    index += 1
                    continue
                # Consecutive reused pieces are one range of the source.
                source_offset = offsets[index]
                length = 0
                while index in offsets and offsets[index] == source_offset + length:
                    length += len(pieces[index])
                    index += 1
                while length:
                    copied = os.copy_file_range(
                        origin.fileno(), target, length, source_offset, position
                    )
                    if copied == 0:
                        return False  # the source is shorter than the manifest says
                    source_offset += copied
                    position += copied
                    length -= copied
    except OSError:
        return False
    handle.seek(position)
    return True


def fsync_directory(directory: Path) -> None:
    """Make renames inside ``directory`` durable (POSIX; elsewhere a no-op)."""
    # Directories cannot be opened this way on Windows, where a replace is
    # already as durable as it gets.
    with contextlib.suppress(OSError):
        fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


# -- any other storage: flat, index last ---------------------------------------


class FlatPublisher(Publisher):
    def __init__(self, storage: Storage, alias: str) -> None:
        self.storage = storage
        self.description = f"storage {alias!r}"
        self.alias = alias
        self._manifest_cache: tuple[Any, Manifest] | None = None

    @contextlib.contextmanager
    def lock(self, wait: float = 0) -> Iterator[None]:
        from django.core.cache import caches

        cache = caches[get_settings().CACHE_ALIAS]
        key = f"{CACHE_KEY_PREFIX}:build-lock:{self.alias}"
        token = f"pid {os.getpid()} since {_now_iso()} ({uuid.uuid4().hex[:8]})"
        deadline = time.monotonic() + wait
        while not cache.add(key, token, CACHE_LOCK_TIMEOUT):
            if time.monotonic() >= deadline:
                holder = cache.get(key) or "another process"
                raise BuildLocked(
                    f"Another sitemapkit_build is publishing to {self.description} ({holder}); "
                    "try again when it has finished, or pass --wait SECONDS."
                )
            time.sleep(0.5)
        try:
            yield
        finally:
            if cache.get(key) == token:
                cache.delete(key)

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

    def begin(self, manifest: Manifest, previous: Manifest | None) -> Transaction:
        return _FlatTransaction(self, previous)


class _FlatTransaction(Transaction):
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
        for name, data in index.items():
            self.write(name, data)
        self.write(MANIFEST_NAME, manifest.to_json())
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


def _now_iso() -> str:
    return datetime.datetime.now(tz=datetime.UTC).replace(microsecond=0).isoformat()


def build_dir() -> Path:
    conf = get_settings()
    if conf.BUILD_DIR:
        return Path(conf.BUILD_DIR)
    base_dir = getattr(settings, "BASE_DIR", None)
    if base_dir is None:
        raise PublishError(
            "Set SITEMAPKIT['BUILD_DIR'] (or a STORAGE alias): settings have no BASE_DIR "
            "to default to."
        )
    return Path(base_dir) / "sitemaps"


_publishers: dict[tuple[str | None, str], Publisher] = {}


def get_publisher() -> Publisher:
    """The publisher for the configured storage (one per process, for its caches)."""
    alias = get_settings().STORAGE
    if alias is None:
        root = build_dir()
        key: tuple[str | None, str] = (None, str(root))
        if key not in _publishers:
            _publishers[key] = LocalPublisher(root)
        return _publishers[key]
    storage = storages[alias]
    key = (alias, str(id(storage)))
    if key not in _publishers:
        if isinstance(storage, FileSystemStorage):
            _publishers[key] = LocalPublisher(Path(storage.location))
        else:
            _publishers[key] = FlatPublisher(storage, alias)
    return _publishers[key]


def published_file(name: str) -> tuple[bytes, datetime.datetime | None] | None:
    """The bytes of ``name`` in the published build and its lastmod, if a build is published.

    Returns None when there is no build, so the caller renders instead; a
    build that does not contain ``name`` raises FileNotFoundError.
    """
    try:
        publisher = get_publisher()
    except PublishError:
        return None
    manifest = publisher.manifest()
    if manifest is None:
        return None
    if name.removesuffix(".gz") == INDEX_NAME:
        stamp = manifest.index_lastmod
    else:
        record = manifest.record_for(name)
        if record is None:
            raise FileNotFoundError(name)
        stamp = record.lastmod
    data = publisher.read(manifest, name)
    if data is None:
        raise FileNotFoundError(name)
    return data, None if stamp is None else datetime.datetime.fromisoformat(stamp)
