"""One exchange with an IndexNow endpoint, bounded: a deadline over everything, no redirect.

urllib's ``timeout`` bounds each socket operation, not an exchange: an
endpoint that sends its status line a byte at a time holds a request for as
long as it drips. So each socket a submission opens is watched by its
``Deadline``, which shuts the socket down when the deadline passes: a read in
progress (the TLS handshake, the status line, a header) ends at once. And a
redirect is not followed: urllib would follow a 302 to any host, as a GET
without the body; to a POST of URLs it is a refusal (``HTTPError``).
Name resolution, before a socket exists, is bounded by the resolver only.
"""

from __future__ import annotations

import contextlib
import http.client
import socket
import threading
import time
import urllib.request
from typing import Any


class Deadline:
    """The end of one submission, ``seconds`` from now: a context manager.

    The sockets given to ``watch()`` are shut down when it passes (each
    through its own duplicate, which stays valid whatever becomes of the
    original: a TLS socket detaches the one it wraps).
    """

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self._end = time.monotonic() + seconds
        self._lock = threading.Lock()
        self._watched: list[socket.socket] = []
        self._passed = False
        self._timer = threading.Timer(seconds, self._pass)
        self._timer.daemon = True

    def __enter__(self) -> Deadline:
        self._timer.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._timer.cancel()
        with self._lock:
            self._passed = True
        self.release()

    def left(self) -> float:
        """Seconds until the deadline; 0 once it has passed."""
        return max(0.0, self._end - time.monotonic())

    def watch(self, sock: socket.socket) -> None:
        duplicate = sock.dup()
        with self._lock:
            passed = self._passed
            if not passed:
                self._watched.append(duplicate)
        if passed:
            _shut(duplicate)

    def release(self) -> None:
        """Stop watching the sockets given so far (their exchange is over), closing duplicates."""
        with self._lock:
            watched, self._watched = self._watched, []
        for sock in watched:
            sock.close()

    def _pass(self) -> None:
        with self._lock:
            self._passed = True
            watched, self._watched = self._watched, []
        for sock in watched:
            _shut(sock)


def _shut(sock: socket.socket) -> None:
    """End every read and write of ``sock`` (a duplicate: the original's reads end too)."""
    with contextlib.suppress(OSError):  # closed already by the other side
        sock.shutdown(socket.SHUT_RDWR)
    sock.close()


def _watched(connection: http.client.HTTPConnection, deadline: Deadline) -> Any:
    """``connection``, each socket it opens watched by ``deadline``."""
    create = connection._create_connection  # type: ignore[attr-defined]

    def create_watched(*args: Any, **kwargs: Any) -> socket.socket:
        sock: socket.socket = create(*args, **kwargs)
        deadline.watch(sock)
        return sock

    connection._create_connection = create_watched  # type: ignore[attr-defined]
    return connection


class _HTTPHandler(urllib.request.HTTPHandler):
    def __init__(self, deadline: Deadline) -> None:
        super().__init__()
        self.deadline = deadline

    def http_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        return self.do_open(
            lambda host, **kwargs: _watched(
                http.client.HTTPConnection(host, **kwargs), self.deadline
            ),
            req,
        )


class _HTTPSHandler(urllib.request.HTTPSHandler):
    def __init__(self, deadline: Deadline) -> None:
        super().__init__()
        self.deadline = deadline

    def https_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        return self.do_open(
            lambda host, **kwargs: _watched(
                http.client.HTTPSConnection(host, **kwargs), self.deadline
            ),
            req,
        )


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None  # urllib then raises the 3xx as an HTTPError


def post(
    url: str, data: bytes, headers: dict[str, str], deadline: Deadline, timeout: float
) -> None:
    """POST ``data``; raises what urllib raises (``HTTPError`` for any status but 2xx)."""
    opener = urllib.request.build_opener(
        _HTTPHandler(deadline), _HTTPSHandler(deadline), _NoRedirect()
    )
    request = urllib.request.Request(url, data=data, headers=headers, method="POST")
    try:
        with opener.open(request, timeout=min(timeout, deadline.left())):
            pass
    finally:
        deadline.release()
