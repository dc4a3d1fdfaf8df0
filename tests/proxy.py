"""A forward proxy on 127.0.0.1, for the tests of proxies named by the environment, and TLS
for a server on 127.0.0.1 that a client trusts (``tests/tls``: a certificate for 127.0.0.1).

The proxy records what it was asked, then tunnels a CONNECT to its target, or
sends an absolute-URI request on to its host (by its path); told to ``drip``,
it answers CONNECT a byte every DRIP seconds instead, until the client goes.
"""

from __future__ import annotations

import contextlib
import http.client
import socket
import socketserver
import ssl
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest

TLS = Path(__file__).resolve().parent / "tls"
# A CONNECT answer dripped takes some ten seconds, each byte well within a read's timeout.
DRIP = 0.25
_PROXY_VARIABLES = ("http_proxy", "https_proxy", "no_proxy", "all_proxy")


def use_proxy(monkeypatch: pytest.MonkeyPatch, url: str, no_proxy: str = "") -> None:
    """Name ``url`` as the proxy of http and https (``no_proxy``: the hosts that go direct)."""
    for name in _PROXY_VARIABLES:  # lower case wins in urllib: clear both
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.upper(), raising=False)
    monkeypatch.setenv("HTTP_PROXY", url)
    monkeypatch.setenv("HTTPS_PROXY", url)
    monkeypatch.setenv("NO_PROXY", no_proxy)


def serve_tls(server: socketserver.TCPServer, monkeypatch: pytest.MonkeyPatch) -> None:
    """Make ``server`` speak TLS with the certificate of 127.0.0.1, which clients now trust."""
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(TLS / "cert.pem", TLS / "key.pem")
    server.socket = context.wrap_socket(server.socket, server_side=True)
    monkeypatch.setenv("SSL_CERT_FILE", str(TLS / "cert.pem"))


class Proxy:
    def __init__(self, drip: bool) -> None:
        self.drip = drip
        # Each request asked of the proxy ("CONNECT 127.0.0.1:8443"), and its Proxy-Authorization.
        self.asked: list[str] = []
        self.authorizations: list[str | None] = []
        self.closing = threading.Event()
        self.url = ""


def _pump(read: Callable[[int], bytes], to: socket.socket) -> None:
    # Until either side hangs up, or the handler has ended (its file closed: ValueError).
    with contextlib.suppress(OSError, ValueError):
        while data := read(65536):
            to.sendall(data)
        to.shutdown(socket.SHUT_WR)


@contextlib.contextmanager
def running_proxy(drip: bool = False) -> Iterator[Proxy]:
    proxy = Proxy(drip)

    class Handler(socketserver.StreamRequestHandler):
        def handle(self) -> None:
            method, target, version = self.rfile.readline().decode("latin-1").split()
            headers = http.client.parse_headers(self.rfile)
            proxy.asked.append(f"{method} {target}")
            proxy.authorizations.append(headers.get("Proxy-Authorization"))
            del headers["Proxy-Authorization"]
            if method == "CONNECT" and proxy.drip:
                for byte in b"HTTP/1.1 200 Connection established\r\n\r\n":
                    if proxy.closing.wait(DRIP):
                        return
                    with contextlib.suppress(OSError):
                        self.request.sendall(bytes([byte]))
                return
            if method == "CONNECT":
                host, port = target.rsplit(":", 1)
                upstream = socket.create_connection((host, int(port)))
                self.request.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
            else:
                parts = urlsplit(target)
                upstream = socket.create_connection((parts.hostname, parts.port or 80))
                lines = [f"{method} {parts.path}{'?' * bool(parts.query)}{parts.query} {version}"]
                lines += [f"{name}: {value}" for name, value in headers.items()]
                upstream.sendall("\r\n".join([*lines, "", ""]).encode("latin-1"))
            with upstream:
                threading.Thread(target=_pump, args=(self.rfile.read1, upstream)).start()
                _pump(upstream.recv, self.request)

    server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    proxy.url = f"http://127.0.0.1:{server.server_address[1]}"
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield proxy
    finally:
        proxy.closing.set()
        server.shutdown()
        server.server_close()
