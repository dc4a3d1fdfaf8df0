"""A local IndexNow endpoint the tests start: it records every POST and answers as told."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class Endpoint:
    def __init__(self, url: str) -> None:
        self.url = url
        # The JSON bodies received, in order, and the request headers of each.
        self.posts: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        # The statuses to answer, in order; 200 once they run out.
        self.statuses: list[int] = []

    def urls(self) -> list[str]:
        return [url for post in self.posts for url in post["urlList"]]


@contextmanager
def running_endpoint() -> Iterator[Endpoint]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), BaseHTTPRequestHandler)
    endpoint = Endpoint(f"http://127.0.0.1:{server.server_address[1]}/indexnow")

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers["Content-Length"]))
            status = endpoint.statuses.pop(0) if endpoint.statuses else 200
            if status == 200:
                endpoint.posts.append(json.loads(body))
                endpoint.headers.append(dict(self.headers))
            self.send_response(status)
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
