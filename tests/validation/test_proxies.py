"""``sitemapkit_validate URL`` through the proxy the environment names (HTTP_PROXY,
HTTPS_PROXY, NO_PROXY), as urllib would use it, and within its deadline still."""

from __future__ import annotations

import time

import pytest

from tests.proxy import running_proxy, use_proxy
from tests.validation.builds import finding_lines, validate
from tests.validation.servers import Site
from tests.validation.test_live import serve_robots, urlset


def serve_a_good_site(site: Site) -> list[str]:
    """A valid site: the paths the validator asks of it (its .gz twin too)."""
    site.serve("/sitemap.xml", urlset(f"{site.url}/a", f"{site.url}/b").encode())
    serve_robots(site, f"{site.url}/sitemap.xml")
    return ["/robots.txt", "/sitemap.xml", "/sitemap.xml.gz"]


def test_a_site_is_read_through_the_http_proxy(site: Site, monkeypatch: pytest.MonkeyPatch) -> None:
    paths = serve_a_good_site(site)
    with running_proxy() as proxy:
        use_proxy(monkeypatch, proxy.url)
        status, output = validate(site.url + "/sitemap.xml")
    assert status == 0, output
    assert sorted(proxy.asked) == sorted(f"GET {site.url}{path}" for path in paths)
    assert sorted(site.requests) == sorted(paths)


def test_hosts_in_no_proxy_are_read_directly(site: Site, monkeypatch: pytest.MonkeyPatch) -> None:
    paths = serve_a_good_site(site)
    with running_proxy() as proxy:
        use_proxy(monkeypatch, proxy.url, no_proxy="127.0.0.1")
        status, output = validate(site.url + "/sitemap.xml")
    assert status == 0, output
    assert proxy.asked == [] and sorted(site.requests) == sorted(paths)


def test_a_proxy_dripping_its_connect_answer_stops_at_the_deadline(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    url = "https://127.0.0.1:9/sitemap.xml"
    with running_proxy(drip=True) as proxy:
        use_proxy(monkeypatch, proxy.url)
        started = time.monotonic()
        status, output = validate(url, "--deadline", "1.5")
    # The deadline, and not the ten seconds of the drip, ends the run; the slack is for a busy machine.
    assert time.monotonic() - started < 1.5 + 5
    assert proxy.asked == ["CONNECT 127.0.0.1:9"]
    assert (status, finding_lines(output)) == (
        1,
        [f"{url}: [fetch] cannot read {url}: the deadline of 1.5 s passed (--deadline)"],
    )
