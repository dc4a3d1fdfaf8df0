"""One HTTP exchange bounded by a deadline: IndexNow's POSTs, ``sitemapkit_validate``'s GETs.

A socket's timeout bounds each read, not an exchange: a server sending its
answer a byte at a time holds a request for as long as it drips. So each
exchange has a watchdog that shuts its socket down when the :class:`Deadline`
passes: a read in progress (the status line, a header, the body) ends at once.
Connecting waits no longer than the timeout of a read, nor past the deadline
(Python bounds a whole TLS handshake by that timeout); name resolution, before
a socket exists, is bounded by the resolver only. No redirect is followed
here: what a 3xx means is each caller's rule.
"""

from __future__ import annotations

import contextlib
import http.client
import socket
import threading
import time
from urllib.parse import urlsplit


class Deadline:
    """The moment a run stops, ``seconds`` from now."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.at = time.monotonic() + seconds

    def left(self) -> float:
        """Seconds until the deadline; 0 once it has passed."""
        return max(0.0, self.at - time.monotonic())


class Response:
    """An answer: its status and headers (``response``), its body read by ``read()`` until
    the deadline cuts it; closing it closes the connection."""

    def __init__(
        self,
        connection: http.client.HTTPConnection,
        response: http.client.HTTPResponse,
        watchdog: threading.Timer,
    ) -> None:
        self.connection = connection
        self.response = response
        self.watchdog = watchdog

    def read(self, size: int = -1, /) -> bytes:
        return self.response.read(None if size < 0 else size)

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


def exchange(
    method: str,
    url: str,
    deadline: Deadline,
    timeout: float,
    body: bytes | None = None,
    headers: dict[str, str] | None = None,
) -> Response:
    """Send one request to ``url`` (http or https), each read waiting at most ``timeout``.

    Returns the answer, whatever its status, once its headers are read. Raises
    what ``http.client`` raises (``OSError``, ``HTTPException``, ``ValueError``
    for a bad URL), a cut at the deadline included.
    """
    parts = urlsplit(url)
    kind = http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    connection = kind(
        parts.hostname or "", parts.port, timeout=max(min(timeout, deadline.left()), 0.001)
    )
    try:
        connection.connect()
    except BaseException:
        connection.close()
        raise
    # The connection gives its socket away to the response: watch the socket itself.
    watchdog = threading.Timer(deadline.left(), _cut, (connection.sock,))
    watchdog.daemon = True
    watchdog.start()
    try:
        connection.request(method, target, body, headers or {})
        return Response(connection, connection.getresponse(), watchdog)
    except BaseException:
        watchdog.cancel()
        connection.close()
        raise
