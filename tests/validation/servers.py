"""Sites on 127.0.0.1 for the live validator's tests, each path answered by a function.

A route writes the whole response itself, so that a test can serve what no
well-behaved server would: a body dripped a byte at a time, one that never
ends, a redirect to another host, nothing at all. Every route ends when the
validator hangs up or the site closes. No Django here: benchmarks/ uses it too,
with the validator run as a process of its own.
"""

from __future__ import annotations

import contextlib
import http.server
import itertools
import os
import subprocess
import sys
import threading
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

Route = Callable[[http.server.BaseHTTPRequestHandler], None]
NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
ROOT = Path(__file__).resolve().parents[2]


class Site:
    """A threaded HTTP server on 127.0.0.1 answering ``routes`` (path -> route), else 404."""

    def __init__(self) -> None:
        self.routes: dict[str, Route] = {}
        self.requests: list[str] = []  # the paths asked for, in order
        self.closing = threading.Event()
        handler = type("Handler", (_Handler,), {"site": self})
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def serve(self, path: str, body: bytes, status: int = 200, **headers: str) -> None:
        self.routes[path] = static(body, status, **headers)

    def close(self) -> None:
        self.closing.set()
        self.server.shutdown()
        self.server.server_close()


class _Handler(http.server.BaseHTTPRequestHandler):
    site: Site

    def do_GET(self) -> None:
        self.site.requests.append(self.path)
        route = self.site.routes.get(self.path, static(b"not found", 404))
        with contextlib.suppress(OSError):  # the validator hung up: what hostile routes wait for
            route(self)

    def log_message(self, *args: object) -> None:
        pass


def static(body: bytes, status: int = 200, **headers: str) -> Route:
    def route(handler: http.server.BaseHTTPRequestHandler) -> None:
        handler.send_response(status)
        for name, value in {"Content-Length": str(len(body)), **headers}.items():
            handler.send_header(name.replace("_", "-"), value)
        handler.end_headers()
        handler.wfile.write(body)

    return route


def redirect(location: str, status: int = 302) -> Route:
    return static(b"", status, Location=location)


def streamed(chunks: Iterable[bytes], length: int | None = None) -> Route:
    """200 with ``chunks`` as the body, as fast as the validator reads them."""

    def route(handler: http.server.BaseHTTPRequestHandler) -> None:
        handler.send_response(200)
        if length is not None:
            handler.send_header("Content-Length", str(length))
        handler.end_headers()
        site: Site = handler.site  # type: ignore[attr-defined]
        for chunk in chunks:
            if site.closing.is_set():
                return
            handler.wfile.write(chunk)

    return route


def dripping(every: float, head: bytes = b"") -> Route:
    """Nothing but ``head`` at once (default: not even the status line), then a byte per ``every`` s."""

    def route(handler: http.server.BaseHTTPRequestHandler) -> None:
        site: Site = handler.site  # type: ignore[attr-defined]
        handler.wfile.write(head)
        handler.wfile.flush()
        while not site.closing.wait(every):
            handler.wfile.write(b" ")
            handler.wfile.flush()

    return route


def stalled(handler: http.server.BaseHTTPRequestHandler) -> None:
    """Take the connection, send nothing, until the site closes."""
    site: Site = handler.site  # type: ignore[attr-defined]
    site.closing.wait()


def urlset_chunks(base: str, count: int | None = None, padding: int = 0) -> Iterator[bytes]:
    """A urlset of ``count`` distinct URLs (None: endless), each ``padding`` characters longer."""
    yield f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{NS}">\n'.encode()
    numbers = itertools.count() if count is None else iter(range(count))
    pad = "x" * padding
    while block := list(itertools.islice(numbers, 1000)):
        yield "".join(f"<url><loc>{base}/p/{i}{pad}</loc></url>\n" for i in block).encode()
    yield b"</urlset>\n"


# Runs its arguments as a process and prints that process's peak RSS (KiB) last on stderr:
# a child of this small process, not of the test run, so that no memory of the test run
# (a forked child's, up to its exec) counts.
_MEASURE = (
    "import resource, subprocess, sys; status = subprocess.call(sys.argv[1:]); "
    "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=sys.stderr); "
    "sys.exit(status)"
)


def validate_in_a_process(*args: str) -> tuple[int, str, float]:
    """(exit status, stdout, peak RSS in MB) of ``sitemapkit_validate`` run as its own process."""
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "tests.settings"}
    command = [sys.executable, "-m", "django", "sitemapkit_validate", *args]
    done = subprocess.run(
        [sys.executable, "-c", _MEASURE, *command], cwd=ROOT, env=env, capture_output=True
    )
    peak_kib = int(done.stderr.decode().strip().splitlines()[-1])  # KiB on Linux
    return done.returncode, done.stdout.decode(), peak_kib / 1024
