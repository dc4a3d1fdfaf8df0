"""A live site over HTTP(S), read as a broken or hostile site may serve it: every wait bounded.

One :class:`Deadline` bounds a whole run (``--deadline``). Each connection
waits at most :data:`HTTP_TIMEOUT` for any one read, and no longer than the
time left (Python bounds a whole TLS handshake by that timeout); a watchdog
shuts the connection's socket when the deadline passes, so that a server
dripping its headers or body a byte at a time cannot hold the run either. Redirects are followed on the site's scheme
and host only, at most :data:`MAX_REDIRECTS` of them; one leading
elsewhere is an ``OffSite`` error, never followed. robots.txt is read once
per run, up to 500 KiB. What a file holds is bounded by ``bounded.py``.
"""

from __future__ import annotations

import contextlib
import http.client
import socket
import threading
import time
from dataclasses import dataclass, field
from urllib.parse import urljoin, urlsplit

from django_sitemapkit.validation.sources import (
    ROBOTS_MAX_BYTES,
    FetchError,
    OffSite,
    TimeUp,
    origin,
)

# The default of --deadline: the most a run against a live site takes, in seconds.
DEFAULT_DEADLINE = 120.0
# The longest wait for a connection or for any one read, within the deadline.
HTTP_TIMEOUT = 30.0
MAX_REDIRECTS = 5
_REDIRECTS = (301, 302, 303, 307, 308)
USER_AGENT = "django-sitemapkit sitemapkit_validate"


class Deadline:
    """The moment a run stops reading, ``seconds`` from now."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.at = time.monotonic() + seconds

    def left(self) -> float:
        return self.at - time.monotonic()

    def check(self) -> None:
        """Raise :class:`TimeUp` once the deadline has passed."""
        if self.left() <= 0:
            raise TimeUp(f"the deadline of {self.seconds:g} s passed (--deadline)")


class Response:
    """An HTTP response's body, read within the deadline; closing it closes the connection."""

    def __init__(
        self,
        connection: http.client.HTTPConnection,
        response: http.client.HTTPResponse,
        watchdog: threading.Timer,
        deadline: Deadline,
    ) -> None:
        self.connection = connection
        self.response = response
        self.watchdog = watchdog
        self.deadline = deadline

    def read(self, size: int = -1, /) -> bytes:
        self.deadline.check()
        try:
            data = self.response.read(None if size is None or size < 0 else size)
        except (OSError, http.client.HTTPException) as exc:
            self.deadline.check()  # the watchdog cut the connection: say so
            raise FetchError(str(exc) or type(exc).__name__) from None
        self.deadline.check()  # what was read before the cut is not the whole body
        return data

    def close(self) -> None:
        self.watchdog.cancel()
        self.response.close()
        self.connection.close()

    def __enter__(self) -> Response:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _cut(sock: socket.socket) -> None:
    """Wake whatever waits on ``sock``: the deadline has passed."""
    with contextlib.suppress(OSError):  # closed already
        sock.shutdown(socket.SHUT_RDWR)


def _get(url: str, deadline: Deadline) -> Response:
    parts = urlsplit(url)
    kind = http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    timeout = max(min(HTTP_TIMEOUT, deadline.left()), 0.001)
    try:
        connection = kind(parts.hostname or "", parts.port, timeout=timeout)
        connection.connect()
    except (OSError, http.client.HTTPException, ValueError) as exc:
        deadline.check()
        raise FetchError(str(exc) or type(exc).__name__) from None
    # The connection gives its socket away to the response: watch the socket itself.
    watchdog = threading.Timer(max(deadline.left(), 0), _cut, (connection.sock,))
    watchdog.daemon = True
    watchdog.start()
    try:
        connection.request("GET", target, headers={"User-Agent": USER_AGENT})
        return Response(connection, connection.getresponse(), watchdog, deadline)
    except (OSError, http.client.HTTPException, ValueError) as exc:
        watchdog.cancel()
        connection.close()
        deadline.check()
        raise FetchError(str(exc) or type(exc).__name__) from None


def fetch(url: str, deadline: Deadline, site: tuple[str, str] | None = None) -> Response | None:
    """The body of ``url`` on ``site`` (default: the URL's own); None on a 404 or 410.

    Raises FetchError: OffSite for a URL or redirect off the site, TimeUp past the deadline.
    """
    if urlsplit(url).scheme not in ("http", "https"):
        raise FetchError(f"not an http(s) URL: {url}")
    site = site or origin(url)
    first = url
    for _ in range(MAX_REDIRECTS + 1):
        if origin(url) != site and url == first:
            raise OffSite(f"{url} is not on {'://'.join(site)}: not read")
        if origin(url) != site:
            raise OffSite(f"{first} redirects to {url}, off {'://'.join(site)}: not followed")
        deadline.check()
        response = _get(url, deadline)
        status, location = response.response.status, response.response.getheader("Location")
        if 200 <= status < 300:
            return response
        response.close()
        if status in _REDIRECTS and location:
            url = urljoin(url, location.strip())
            continue
        if status in (404, 410):
            return None
        raise FetchError(f"HTTP {status} {response.response.reason[:100]}")
    raise FetchError(f"more than {MAX_REDIRECTS} redirects")


def read_robots(url: str, deadline: Deadline, site: tuple[str, str]) -> tuple[str, bytes | None]:
    """(url, its first 500 KiB, or None when it does not exist). Raises FetchError."""
    response = fetch(url, deadline, site)
    if response is None:
        return url, None
    with response:
        return url, response.read(ROBOTS_MAX_BYTES)


def robots_url(url: str) -> str:
    """The robots.txt ``url`` names, else the one of its site."""
    parts = urlsplit(url)
    if parts.path.endswith("/robots.txt"):
        return url
    return f"{parts.scheme}://{parts.netloc}/robots.txt"


@dataclass
class HttpSource:
    """A live site from an index URL; nothing off the site (``site``: the index's) is read."""

    index_url: str
    deadline: Deadline
    site: tuple[str, str] = ("", "")
    # robots.txt as read already (once for every index it names); None: read it when asked.
    robots_read: tuple[str, bytes | None] | None = None
    label: str = ""
    robots_url: str = field(init=False, default="")

    def __post_init__(self) -> None:
        self.label = self.label or self.index_url
        self.site = self.site if self.site[0] else origin(self.index_url)
        self.robots_url = self.robots_read[0] if self.robots_read else robots_url(self.index_url)

    def name(self, url: str) -> str:
        return url

    def open(self, url: str) -> Response | None:
        return fetch(url, self.deadline, self.site)

    def robots(self) -> tuple[str, bytes | None] | None:
        if self.robots_read is None:
            self.robots_read = read_robots(self.robots_url, self.deadline, self.site)
        return self.robots_read
