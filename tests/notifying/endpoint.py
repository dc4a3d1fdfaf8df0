"""Local IndexNow endpoints the tests start: one that records every POST and answers as told,
and a hostile one that drips its answer."""

from __future__ import annotations

import json
import socketserver
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class Endpoint:
    def __init__(self, url: str) -> None:
        self.url = url
        # The JSON bodies received, in order, and the request headers of each.
        self.posts: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        # Every request received ("POST /indexnow"), whatever its method and answer.
        self.requests: list[str] = []
        # The statuses to answer, in order; 200 once they run out.
        self.statuses: list[int] = []
        # The Location sent with a 3xx status.
        self.location = ""

    def urls(self) -> list[str]:
        return [url for post in self.posts for url in post["urlList"]]


@contextmanager
def running_endpoint(
    tls: Callable[[socketserver.TCPServer], None] | None = None,
) -> Iterator[Endpoint]:
    """An endpoint on http (``tls``: on https, the server made to speak TLS by it)."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), BaseHTTPRequestHandler)
    if tls:
        tls(server)
    scheme = "https" if tls else "http"
    endpoint = Endpoint(f"{scheme}://127.0.0.1:{server.server_address[1]}/indexnow")

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            endpoint.requests.append(f"POST {self.path}")
            body = self.rfile.read(int(self.headers["Content-Length"]))
            status = endpoint.statuses.pop(0) if endpoint.statuses else 200
            if status == 200:
                endpoint.posts.append(json.loads(body))
                endpoint.headers.append(dict(self.headers))
            self.send_response(status)
            if 300 <= status < 400:
                self.send_header("Location", endpoint.location)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def do_GET(self) -> None:
            endpoint.requests.append(f"GET {self.path}")
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server.RequestHandlerClass = Handler
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield endpoint
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


# An answer a 200 in the end, but sent a byte every DRIP seconds: about ten
# seconds in all, while each read waits far less than the 10 s timeout.
DRIPPED = b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"
DRIP = 0.25


@contextmanager
def dripping_endpoint() -> Iterator[str]:
    """An endpoint that reads a request and drips its answer; yields its URL.

    It stops dripping when the client goes (a write fails) or the test ends.
    """
    stop = threading.Event()

    class Dripping(socketserver.BaseRequestHandler):
        def handle(self) -> None:
            self.request.recv(65536)
            for byte in DRIPPED:
                if stop.wait(DRIP):
                    return
                try:
                    self.request.sendall(bytes([byte]))
                except OSError:
                    return  # the client gave up

    server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Dripping)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/indexnow"
    finally:
        stop.set()
        server.shutdown()
        server.server_close()
        thread.join()
