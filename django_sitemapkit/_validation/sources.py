"""What ``sitemapkit_validate`` reads (a folder, a storage's published set, a live site), bounded:
a file (inflated when gzip) up to the protocol's 52,428,800 bytes, so a huge, endless or gzip-bomb
file costs no memory; a live site in one deadline, redirects kept to its scheme and host."""

from __future__ import annotations

import gzip
import http.client
import io
import re
from collections.abc import Callable, Iterator, Sequence
from contextlib import closing, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO, Protocol
from urllib.parse import urljoin, urlsplit

from django.core.exceptions import ImproperlyConfigured
from django.core.files.storage import FileSystemStorage, storages
from django.core.management.base import CommandError
from django.urls import NoReverseMatch

from django_sitemapkit._boundedhttp import Deadline, Response, exchange
from django_sitemapkit._conf import base_url, clean_base_url, get_settings
from django_sitemapkit._engine.rendering import INDEX_NAME, index_path
from django_sitemapkit._protocol.writer import MAX_BYTES_PER_FILE
from django_sitemapkit._publishing.base import Manifest, Publisher, PublishError
from django_sitemapkit._publishing.flatstorage import FlatPublisher
from django_sitemapkit._publishing.localfolder import CURRENT_LINK, GENERATIONS_DIR, LocalPublisher
from django_sitemapkit._publishing.selection import get_publisher
from django_sitemapkit._siteconfig import SiteConfig, chosen_sites

READ_CAP = MAX_BYTES_PER_FILE + 1  # one byte more than the protocol allows tells a file is over
# Deflate never doubles its input: a gzip file this large inflates past the cap.
_COMPRESSED_CAP = 2 * MAX_BYTES_PER_FILE
ROBOTS_MAX_BYTES = 500 * 1024
# A "Sitemap:" line as robots.txt parsers read it (_serving/robots.py writes them).
_SITEMAP_LINE = re.compile(r"\s*sitemap\s*:\s*([^#]*?)\s*(?:#.*)?", re.IGNORECASE)
DEFAULT_DEADLINE = 120.0
HTTP_TIMEOUT = 30.0
MAX_REDIRECTS = 5
_REDIRECTS = (301, 302, 303, 307, 308)
USER_AGENT = "django-sitemapkit sitemapkit_validate"
_FAILURES = (OSError, http.client.HTTPException, ValueError)


class Readable(Protocol):
    def read(self, size: int = -1, /) -> bytes: ...


class FetchError(Exception):
    """A file exists but cannot be read (an HTTP error other than 404/410, a network error)."""


class OffSite(FetchError):
    """The URL, or a redirect, leads off the site's scheme and host: it is not followed."""


class TimeUp(FetchError):
    """The run's deadline passed: nothing more is read."""


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


class Capped:
    """At most ``cap`` bytes: ``head`` (read from ``stream`` already), then the rest of ``stream``."""

    def __init__(self, stream: Readable, cap: int, head: bytes = b"") -> None:
        self.stream = stream
        self.head = head
        self.left = cap

    def read(self, size: int = -1, /) -> bytes:
        want = self.left if size is None or size < 0 else min(size, self.left)
        data, self.head = self.head[:want], self.head[want:]
        if want > len(data):
            data += self.stream.read(want - len(data))
        self.left -= len(data)
        return data


def content(stream: Readable) -> Readable:
    """The file's content up to :data:`READ_CAP` bytes: gunzipped when it starts as gzip does."""
    head = stream.read(2)
    return gunzipped(stream, head) if head == b"\x1f\x8b" else Capped(stream, READ_CAP, head)


def gunzipped(stream: Readable, head: bytes = b"") -> Readable:
    """The inflated content of a gzip file, up to :data:`READ_CAP` bytes (raises when not gzip)."""
    # GzipFile seeks its file only when asked to rewind, which the validator never does.
    inflated = gzip.GzipFile(fileobj=Capped(stream, _COMPRESSED_CAP, head), mode="rb")  # type: ignore[call-overload]
    return Capped(inflated, READ_CAP)


@dataclass
class FileSource:
    """Files under the directory of the index URL, each read by ``read(its name)``."""

    index_url: str
    read: Callable[[str], BinaryIO | None]
    label: str
    robots_path: str | None = None

    def name(self, url: str) -> str:
        return url.removeprefix(directory(self.index_url)) or url

    def open(self, url: str) -> BinaryIO | None:
        name = self.name(url)
        if name == url or ".." in name.split("/") or "?" in name or "#" in name:
            return None
        return self.read(name)

    def robots(self) -> tuple[str, bytes | None] | None:
        """(where, content or None when missing) of the robots.txt to check; None: none known."""
        if not self.robots_path:
            return None
        try:
            with Path(self.robots_path).open("rb") as file:
                return self.robots_path, file.read(ROBOTS_MAX_BYTES)
        except FileNotFoundError:
            return self.robots_path, None


def folder_files(root: Path) -> Callable[[str], BinaryIO | None]:
    def read(name: str) -> BinaryIO | None:
        try:
            return (root / name).open("rb")
        except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
            return None

    return read


def _published_files(publisher: Publisher, manifest: Manifest) -> Callable[[str], BinaryIO | None]:
    def read(name: str) -> BinaryIO | None:
        data = None if "/" in name else publisher.read(manifest, name)
        return None if data is None else io.BytesIO(data)

    return read


def is_url(target: str) -> bool:
    return urlsplit(target).scheme in ("http", "https")


def _check(deadline: Deadline) -> None:
    if not deadline.left():
        raise TimeUp(f"the deadline of {deadline.seconds:g} s passed (--deadline)")


@contextmanager
def _exchanging(deadline: Deadline) -> Iterator[None]:
    """Around a request or a read: TimeUp past the deadline, FetchError when the exchange fails."""
    _check(deadline)
    try:
        yield
    except _FAILURES as exc:
        _check(deadline)  # the deadline cut the exchange
        raise FetchError(str(exc) or type(exc).__name__) from None


@dataclass
class Body:
    """A response's body, read within the deadline."""

    response: Response
    deadline: Deadline

    def read(self, size: int = -1, /) -> bytes:
        with _exchanging(self.deadline):
            data = self.response.response.read(None if size < 0 else size)
        _check(self.deadline)  # what was read before the cut is not the whole body
        return data

    def close(self) -> None:
        self.response.close()


def fetch(url: str, deadline: Deadline, site: tuple[str, str] | None = None) -> Body | None:
    """The body of ``url`` on ``site`` (default: the URL's own); None on a 404 or 410. Raises
    FetchError: OffSite for a URL or redirect off the site, TimeUp past the deadline."""
    if not is_url(url):
        raise FetchError(f"not an http(s) URL: {url}")
    site, first = site or origin(url), url
    for _ in range(MAX_REDIRECTS + 1):
        if origin(url) != site and url == first:
            raise OffSite(f"{url} is not on {'://'.join(site)}: not read")
        if origin(url) != site:
            raise OffSite(f"{first} redirects to {url}, off {'://'.join(site)}: not followed")
        with _exchanging(deadline):
            headers = {"User-Agent": USER_AGENT}
            response = exchange("GET", url, deadline, HTTP_TIMEOUT, headers=headers)
        status, location = response.response.status, response.response.getheader("Location")
        if 200 <= status < 300:
            return Body(response, deadline)
        response.close()
        if status in (404, 410):
            return None
        if status not in _REDIRECTS or not location:
            raise FetchError(f"HTTP {status} {response.response.reason[:100]}")
        url = urljoin(url, location.strip())
    raise FetchError(f"more than {MAX_REDIRECTS} redirects")


@dataclass
class HttpSource:
    """A live site from an index URL; nothing off ``site`` is read."""

    index_url: str
    deadline: Deadline
    site: tuple[str, str]
    robots_read: tuple[str, bytes | None] | None = None  # read once for every index it names

    def __post_init__(self) -> None:
        self.label = self.index_url

    def name(self, url: str) -> str:
        return url

    def open(self, url: str) -> Body | None:
        return fetch(url, self.deadline, self.site)

    def robots(self) -> tuple[str, bytes | None]:
        """(robots.txt's URL, its first 500 KiB or None when it does not exist), read once."""
        if self.robots_read is None:
            url = _robots_url(self.index_url)
            if (body := self.open(url)) is None:
                self.robots_read = url, None
            else:
                with closing(body):
                    self.robots_read = url, body.read(ROBOTS_MAX_BYTES)
        return self.robots_read


Source = FileSource | HttpSource


def _robots_url(url: str) -> str:
    return url if urlsplit(url).path.endswith("/robots.txt") else urljoin(url, "/robots.txt")


def target_sources(options: dict[str, Any]) -> list[Source]:
    """What ``sitemapkit_validate``'s options name: a live site, a path or the published sets."""
    target = options["target"]
    if target and is_url(target):
        return live_sources(target, Deadline(options["deadline"]))
    if target:
        return [path_source(Path(target), options["base_url"], options["robots"])]
    return published_sources(options["storage"], options["sites"], options["robots"])


def live_sources(url: str, deadline: Deadline) -> list[Source]:
    """The sitemap ``url`` names; for a site's root or robots.txt, every index robots.txt names
    (on robots.txt's own scheme and host only)."""
    path, site = urlsplit(url).path, origin(url)
    if path not in ("", "/") and not path.endswith("/robots.txt"):
        return [HttpSource(url, deadline, site)]
    robots = _robots_url(url)
    try:
        read = HttpSource(url, deadline, site).robots()  # of the site's root or robots.txt
    except FetchError as exc:
        raise CommandError(f"cannot read {robots}: {exc}") from None
    if read[1] is None:
        raise CommandError(f"{robots} does not exist: name the sitemap URL instead.")
    listed = sitemap_lines(read[1])
    if not listed:
        raise CommandError(f"{robots} has no Sitemap line: crawlers cannot find the sitemaps.")
    return [HttpSource(index, deadline, site, read) for index in dict.fromkeys(listed)]


def _index_path() -> str:
    try:
        return index_path()
    except NoReverseMatch:
        return "/" + INDEX_NAME


def path_source(path: Path, base: str | None, robots: str | None) -> Source:
    """A build folder's ``current`` set, a folder of files, or an index file."""
    if not path.exists():
        raise CommandError(f"{path} does not exist.")
    manifest = LocalPublisher(path).manifest() if path.is_dir() else None
    try:
        root = clean_base_url(base, "--base-url") if base else None
        root = root or (manifest.base_url if manifest else None) or base_url()
    except ImproperlyConfigured as exc:
        raise CommandError(f"{exc} (or pass --base-url)") from None
    index_url = root + _index_path()
    robots = robots or get_settings().ROBOTS_TXT_PATH
    if path.is_file():
        index_url, folder = directory(index_url) + path.name, path.parent
    else:
        folder = path / CURRENT_LINK if (path / CURRENT_LINK).is_dir() else path
    return FileSource(index_url, folder_files(folder), str(path), robots)


def _publisher(alias: str | None, site: SiteConfig | None) -> Publisher:
    if alias is None:
        return get_publisher(site)
    try:
        storage = storages[alias]
    except Exception as exc:  # InvalidStorageError
        raise CommandError(f"no storage {alias!r} in STORAGES: {exc}") from None
    folder = "" if site is None else site.name
    if isinstance(storage, FileSystemStorage):
        return LocalPublisher(Path(storage.location) / folder)
    return FlatPublisher(storage, alias, folder)


def published_sources(
    alias: str | None, site_names: Sequence[str] | None, robots: str | None
) -> list[Source]:
    """The published set of every selected site (or of the one site) in the storage."""
    found: list[Source] = []
    for site in chosen_sites(site_names):
        try:
            publisher = _publisher(alias, site)
        except PublishError as exc:
            raise CommandError(str(exc)) from None
        manifest = publisher.manifest()
        if manifest is None:
            raise CommandError(
                f"Nothing is published in {publisher.description}: run sitemapkit_build first, "
                "or name a folder or URL."
            )
        site_robots = site.robots_txt_path if site is not None else get_settings().ROBOTS_TXT_PATH
        index_url = manifest.base_url + _index_path()
        if isinstance(publisher, LocalPublisher):  # a generation is read as a folder
            files = folder_files(publisher.root / GENERATIONS_DIR / manifest.generation)
        else:
            files = _published_files(publisher, manifest)
        found.append(FileSource(index_url, files, publisher.description, robots or site_robots))
    return found
