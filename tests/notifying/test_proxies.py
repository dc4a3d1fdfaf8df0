"""IndexNow through the proxy the environment names (HTTP_PROXY, HTTPS_PROXY, NO_PROXY), as
urllib would use it: an http endpoint asked of the proxy, an https one through a CONNECT tunnel."""

from __future__ import annotations

import base64
import logging
import time
from pathlib import Path
from typing import Any

import pytest

from django_sitemapkit._indexnow import IndexNowConfig, submit
from tests.building.builds import build
from tests.notifying.conftest import KEY
from tests.notifying.endpoint import Endpoint, running_endpoint
from tests.notifying.test_changes import edit_insert_delete
from tests.proxy import running_proxy, serve_tls, use_proxy

BASE = "https://www.example.com"


def send(url: str, deadline: float = 60.0) -> Any:
    config = IndexNowConfig(KEY, url, 10_000, deadline)
    return submit([f"{BASE}/1"], base_url=BASE, config=config, key_url=f"{BASE}/{KEY}.txt")


@pytest.mark.django_db
def test_a_build_submits_through_the_http_proxy(
    site: Any, endpoint: Endpoint, build_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    build()
    changed = edit_insert_delete()
    with running_proxy() as proxy:
        use_proxy(monkeypatch, proxy.url)
        assert build().published
    assert proxy.asked == [f"POST {endpoint.url}"]
    assert set(endpoint.urls()) == changed
    assert endpoint.headers[0]["Host"] == endpoint.url.split("/")[2]


def test_an_https_endpoint_is_reached_through_a_connect_tunnel_with_the_credentials(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with running_proxy() as proxy, running_endpoint(lambda s: serve_tls(s, monkeypatch)) as end:
        use_proxy(monkeypatch, proxy.url.replace("//", "//sitemap%20kit:p%40ss@"))
        outcome = send(end.url)
    assert outcome == (1, 0) and end.urls() == [f"{BASE}/1"]
    assert proxy.asked == [f"CONNECT {end.url.split('/')[2]}"]
    assert proxy.authorizations == [f"Basic {base64.b64encode(b'sitemap kit:p@ss').decode()}"]
    # Inside the tunnel, the endpoint got what it gets directly: no credentials of the proxy.
    assert "Proxy-Authorization" not in end.headers[0]


def test_hosts_in_no_proxy_are_reached_directly(monkeypatch: pytest.MonkeyPatch) -> None:
    with running_proxy() as proxy, running_endpoint() as endpoint:
        use_proxy(monkeypatch, proxy.url, no_proxy="localhost,127.0.0.1")
        outcome = send(endpoint.url)
    assert outcome == (1, 0) and endpoint.urls() == [f"{BASE}/1"]
    assert proxy.asked == []


def test_a_proxy_dripping_its_connect_answer_is_given_up_at_the_deadline(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    url = "https://127.0.0.1:9/indexnow"
    with running_proxy(drip=True) as proxy:
        use_proxy(monkeypatch, proxy.url)
        started = time.monotonic()
        outcome = send(url, deadline=0.5)
    # The deadline, and not the ten seconds of the drip, ends it; the slack is for a busy machine.
    assert time.monotonic() - started < 0.5 + 5
    assert outcome == (0, 1)
    assert proxy.asked == ["CONNECT 127.0.0.1:9"]
    assert [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING] == [
        f"IndexNow: {url} gave no answer within the deadline of 0.5 s; giving up.",
        f"IndexNow: 1 changed URLs of www.example.com not submitted to {url}.",
    ]
