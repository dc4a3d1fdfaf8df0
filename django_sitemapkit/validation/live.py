"""A live site over HTTP(S), read as a broken or hostile site may serve it: every wait bounded.

One :class:`~django_sitemapkit.boundedhttp.Deadline` bounds a whole run
(``--deadline``); each exchange is bounded by it (``boundedhttp.py``), each
read waiting at most :data:`HTTP_TIMEOUT`. Redirects are followed on the
site's scheme and host only, at most :data:`MAX_REDIRECTS` of them; one
leading elsewhere is an ``OffSite`` error, never followed. robots.txt is read
once per run, up to 500 KiB. What a file holds is bounded by ``bounded.py``.
"""

from __future__ import annotations

import http.client
from dataclasses import dataclass, field
from urllib.parse import urljoin, urlsplit

from django_sitemapkit.boundedhttp import Deadline, Response, exchange
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
_FAILURES = (OSError, http.client.HTTPException, ValueError)


def _check(deadline: Deadline) -> None:
    """Raise :class:`TimeUp` once the deadline has passed."""
    if not deadline.left():
        raise TimeUp(f"the deadline of {deadline.seconds:g} s passed (--deadline)")


def _failed(exc: Exception, deadline: Deadline) -> FetchError:
    """What ``exc`` says as a FetchError; TimeUp raised when the deadline cut the exchange."""
    _check(deadline)
    return FetchError(str(exc) or type(exc).__name__)


class Body:
    """A response's body, read within the deadline; closing it closes the connection."""

    def __init__(self, response: Response, deadline: Deadline) -> None:
        self.response = response
        self.deadline = deadline

    def read(self, size: int = -1, /) -> bytes:
        _check(self.deadline)
        try:
            data = self.response.read(size)
        except _FAILURES as exc:
            raise _failed(exc, self.deadline) from None
        _check(self.deadline)  # what was read before the cut is not the whole body
        return data

    def close(self) -> None:
        self.response.close()

    def __enter__(self) -> Body:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _get(url: str, deadline: Deadline) -> Response:
    try:
        return exchange("GET", url, deadline, HTTP_TIMEOUT, headers={"User-Agent": USER_AGENT})
    except _FAILURES as exc:
        raise _failed(exc, deadline) from None


def fetch(url: str, deadline: Deadline, site: tuple[str, str] | None = None) -> Body | None:
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
        _check(deadline)
        response = _get(url, deadline)
        status, location = response.response.status, response.response.getheader("Location")
        if 200 <= status < 300:
            return Body(response, deadline)
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

    def open(self, url: str) -> Body | None:
        return fetch(url, self.deadline, self.site)

    def robots(self) -> tuple[str, bytes | None] | None:
        if self.robots_read is None:
            self.robots_read = read_robots(self.robots_url, self.deadline, self.site)
        return self.robots_read
