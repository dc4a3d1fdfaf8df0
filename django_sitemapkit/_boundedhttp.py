"""One HTTP exchange bounded by a deadline: IndexNow's POSTs, ``sitemapkit_validate``'s GETs. A
socket's timeout bounds each read, not an exchange (a server may drip its answer), so a watchdog
shuts the socket at the :class:`Deadline`. No redirect is followed; proxies as urllib's."""

from __future__ import annotations

import base64
import contextlib
import http.client
import socket
import threading
import time
import urllib.request
from dataclasses import dataclass
from urllib.parse import unquote, urlsplit, urlunsplit


class Deadline:
    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.at = time.monotonic() + seconds

    def left(self) -> float:
        return max(0.0, self.at - time.monotonic())


class _Watchdog(threading.Timer):
    """Shuts the exchange's socket down once the deadline passes, until cancelled; every 50 ms
    again, as while connecting it may not exist yet or be replaced (TLS over a proxy's tunnel).
    ``sock``: the one connected, kept by the response."""

    def __init__(self, connection: http.client.HTTPConnection, deadline: Deadline) -> None:
        super().__init__(deadline.left(), self.shut)
        self.daemon = True
        self.connection = connection
        self.sock: socket.socket | None = None
        self.start()

    def shut(self) -> None:
        while not self.finished.is_set():
            sock = self.connection.sock or self.sock
            if sock is not None:
                with contextlib.suppress(OSError):  # closed already, or not connected yet
                    sock.shutdown(socket.SHUT_RDWR)
            self.finished.wait(0.05)


@dataclass
class Response(contextlib.AbstractContextManager["Response"]):
    """An answer: its status and headers (``response``), its body read until the deadline."""

    connection: http.client.HTTPConnection
    response: http.client.HTTPResponse
    watchdog: _Watchdog

    def close(self) -> None:
        self.watchdog.cancel()
        self.response.close()
        self.connection.close()

    def __exit__(self, *exc: object) -> None:
        self.close()


def _connection(url: str, timeout: float) -> tuple[http.client.HTTPConnection, str, dict[str, str]]:
    """The connection for ``url``, the target to ask of it, and the headers a proxy needs."""
    parts = urlsplit(url)
    here = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    https = parts.scheme == "https"
    proxy = urllib.request.getproxies().get(parts.scheme)
    if not proxy or urllib.request.proxy_bypass(parts.netloc):
        kind = http.client.HTTPSConnection if https else http.client.HTTPConnection
        return kind(parts.hostname or "", parts.port, timeout=timeout), here, {}
    via = urlsplit(proxy if "://" in proxy else f"http://{proxy}")
    auth = {}
    if via.username and via.password:
        pair = f"{unquote(via.username)}:{unquote(via.password)}".encode()
        auth = {"Proxy-Authorization": f"Basic {base64.b64encode(pair).decode('ascii')}"}
    if https:
        tunnel = http.client.HTTPSConnection(via.hostname or "", via.port, timeout=timeout)
        tunnel.set_tunnel(parts.hostname or "", parts.port, auth)
        return tunnel, here, {}
    kind = http.client.HTTPSConnection if via.scheme == "https" else http.client.HTTPConnection
    whole = urlunsplit(parts._replace(fragment=""))
    return kind(via.hostname or "", via.port, timeout=timeout), whole, auth


def exchange(
    method: str,
    url: str,
    deadline: Deadline,
    timeout: float,
    body: bytes | None = None,
    headers: dict[str, str] | None = None,
) -> Response:
    """The answer to one request, whatever its status, each read waiting at most ``timeout``;
    raises what ``http.client`` raises (OSError, HTTPException, ValueError), at the deadline too."""
    connection, target, proxy_headers = _connection(url, max(min(timeout, deadline.left()), 0.001))
    watchdog = _Watchdog(connection, deadline)
    try:
        connection.connect()
        watchdog.sock = connection.sock
        connection.request(method, target, body, {**(headers or {}), **proxy_headers})
        return Response(connection, connection.getresponse(), watchdog)
    except BaseException:
        watchdog.cancel()
        connection.close()
        raise
