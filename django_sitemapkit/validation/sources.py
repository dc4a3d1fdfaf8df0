"""Where the files come from: a build folder, a storage's published set, or a live site.

A source knows the absolute URL of its index and opens the file behind any
URL of the site as a stream (None: no such file); it also knows its
robots.txt when there is one to check. Live sites are read over HTTP
(``live.py``).
"""

from __future__ import annotations

import io
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol
from urllib.parse import urlsplit

from django_sitemapkit.publishing.base import Manifest, Publisher
from django_sitemapkit.publishing.localfolder import CURRENT_LINK, GENERATIONS_DIR, LocalPublisher
from django_sitemapkit.validation.bounded import Stream

# What is read of a robots.txt: Google reads 500 KiB and ignores the rest.
ROBOTS_MAX_BYTES = 500 * 1024
# A "Sitemap:" line as robots.txt parsers read it (serving/robots.py writes them).
_SITEMAP_LINE = re.compile(r"\s*sitemap\s*:\s*([^#]*?)\s*(?:#.*)?", re.IGNORECASE)


class FetchError(Exception):
    """A file exists but cannot be read (an HTTP error other than 404/410, a network error)."""


class OffSite(FetchError):
    """The URL, or a redirect, leads off the site's scheme and host: it is not followed."""


class TimeUp(FetchError):
    """The run's deadline passed: nothing more is read."""


class Source(Protocol):
    label: str
    index_url: str

    def open(self, url: str) -> Stream | None:
        """The file at ``url`` (absolute, on the index's site), or None when there is none."""
        ...

    def name(self, url: str) -> str:
        """How findings name the file at ``url``."""
        ...

    def robots(self) -> tuple[str, bytes | None] | None:
        """(where, content or None when missing) of the robots.txt to check; None: none known."""
        ...


def origin(url: str) -> tuple[str, str]:
    """A URL's scheme and host (with its port), as the validator compares sites."""
    parts = urlsplit(url)
    return parts.scheme, parts.netloc.lower()


def directory(url: str) -> str:
    """``url`` up to and including the last "/" of its path."""
    return url[: url.rfind("/") + 1] if urlsplit(url).path else url + "/"


def sitemap_lines(content: bytes) -> list[str]:
    """The URLs of robots.txt's ``Sitemap:`` lines, in order."""
    text = content.decode("utf-8", "replace").lstrip("\ufeff")
    found = (_SITEMAP_LINE.fullmatch(line) for line in text.splitlines())
    return [match.group(1) for match in found if match and match.group(1)]


def _read_robots(path: str | None) -> tuple[str, bytes | None] | None:
    if not path:
        return None
    try:
        with Path(path).open("rb") as file:
            return path, file.read(ROBOTS_MAX_BYTES)
    except FileNotFoundError:
        return path, None


@dataclass
class FolderSource:
    """Files of a folder, each at ``<index URL's directory><file name>``."""

    root: Path
    index_url: str
    robots_path: str | None = None
    label: str = ""

    def __post_init__(self) -> None:
        self.label = self.label or str(self.root)

    def name(self, url: str) -> str:
        return url.removeprefix(directory(self.index_url)) or url

    def open(self, url: str) -> Stream | None:
        name = url.removeprefix(directory(self.index_url))
        if name == url or not name or ".." in name.split("/") or "?" in name or "#" in name:
            return None
        try:
            return (self.root / name).open("rb")
        except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
            return None

    def robots(self) -> tuple[str, bytes | None] | None:
        return _read_robots(self.robots_path)


@dataclass
class PublishedSource:
    """A storage's published set, read through its publisher and the manifest."""

    publisher: Publisher
    manifest: Manifest
    index_url: str
    robots_path: str | None
    label: str

    def name(self, url: str) -> str:
        return url.removeprefix(directory(self.index_url)) or url

    def open(self, url: str) -> Stream | None:
        name = url.removeprefix(directory(self.index_url))
        if name == url or not name or "/" in name:
            return None
        data = self.publisher.read(self.manifest, name)
        return None if data is None else io.BytesIO(data)

    def robots(self) -> tuple[str, bytes | None] | None:
        return _read_robots(self.robots_path)


def published_source(
    publisher: Publisher, manifest: Manifest, index_path: str, robots_path: str | None
) -> Source:
    """The set ``manifest`` describes; a local folder's generation is read as a folder."""
    index_url = manifest.base_url + index_path
    if isinstance(publisher, LocalPublisher):
        folder = publisher.root / GENERATIONS_DIR / manifest.generation
        return FolderSource(folder, index_url, robots_path, label=publisher.description)
    return PublishedSource(publisher, manifest, index_url, robots_path, publisher.description)


def folder_source(path: Path, index_url: str, robots_path: str | None) -> FolderSource:
    """A folder of files, or the ``current`` set of a build folder; ``path`` may name the index."""
    if path.is_file():
        return FolderSource(path.parent, directory(index_url) + path.name, robots_path, str(path))
    if (path / CURRENT_LINK).is_dir():
        return FolderSource(path / CURRENT_LINK, index_url, robots_path, str(path))
    return FolderSource(path, index_url, robots_path)
