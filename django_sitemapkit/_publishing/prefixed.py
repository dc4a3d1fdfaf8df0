"""A storage seen through a folder: each site of ``SITEMAPKIT["SITES"]`` publishes under its name."""

from __future__ import annotations

import datetime
from typing import IO, Any

from django.core.files.base import File
from django.core.files.storage import Storage


class PrefixedStorage(Storage):
    """``storage`` with every name under ``prefix/``: what a flat publisher needs of it."""

    def __init__(self, storage: Storage, prefix: str) -> None:
        self.storage = storage
        self.prefix = prefix.strip("/") + "/"

    def _name(self, name: str) -> str:
        return self.prefix + name

    def open(self, name: str, mode: str = "rb") -> File[Any]:
        return self.storage.open(self._name(name), mode)

    def save(self, name: str | None, content: IO[Any], max_length: int | None = None) -> str:
        assert name is not None
        saved = self.storage.save(self._name(name), content, max_length=max_length)
        return saved.removeprefix(self.prefix)

    def delete(self, name: str) -> None:
        self.storage.delete(self._name(name))

    def listdir(self, path: str) -> tuple[list[str], list[str]]:
        return self.storage.listdir(self._name(path))

    def exists(self, name: str) -> bool:
        return self.storage.exists(self._name(name))

    def get_modified_time(self, name: str) -> datetime.datetime:
        return self.storage.get_modified_time(self._name(name))

    def size(self, name: str) -> int:
        return self.storage.size(self._name(name))

    def url(self, name: str | None) -> str:
        assert name is not None
        return self.storage.url(self._name(name))
