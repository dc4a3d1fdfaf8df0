"""``sitemapkit_validate URL`` against sites on 127.0.0.1, hostile ones included: it ends, bounded.

Issue #25, acceptance 1: an overall deadline (a dripping, stalled or endless
site), the protocol's cap on what a file inflates to, redirects kept on the
site, robots.txt read once and bounded, unreadable encodings reported, an
index followed for 50,000 files at most.
"""

from __future__ import annotations

import contextlib
import gzip
import socket
import threading
import time
from collections.abc import Iterator

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from django_sitemapkit._boundedhttp import Deadline
from django_sitemapkit._protocol.writer import MAX_BYTES_PER_FILE
from django_sitemapkit._validation.sources import FetchError, OffSite, TimeUp, fetch
from tests.validation.builds import finding_lines, validate, xsd_args
from tests.validation.servers import (
    NS,
    Route,
    Site,
    dripping,
    redirect,
    stalled,
    streamed,
    urlset_chunks,
    validate_in_a_process,
)


def urlset(*locs: str, encoding: str = "UTF-8") -> str:
    entries = "".join(f"<url><loc>{loc}</loc></url>" for loc in locs)
    return f'<?xml version="1.0" encoding="{encoding}"?>\n<urlset xmlns="{NS}">{entries}</urlset>\n'


def index(*locs: str) -> bytes:
    entries = "".join(f"<sitemap><loc>{loc}</loc></sitemap>" for loc in locs)
    return f'<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="{NS}">{entries}</sitemapindex>\n'.encode()


def serve_robots(site: Site, *indexes: str) -> None:
    site.serve("/robots.txt", "".join(f"Sitemap: {url}\n" for url in indexes).encode())


def run(url: str, *args: str) -> tuple[int, list[str]]:
    status, output = validate(url, *args)
    return status, finding_lines(output)


def test_a_good_site_is_valid(site: Site) -> None:
    base = site.url
    page = urlset(f"{base}/a", f"{base}/b").encode()
    site.serve("/sitemap.xml", index(f"{base}/s1.xml"))
    site.serve("/s1.xml", page)
    site.serve("/s1.xml.gz", gzip.compress(page))
    serve_robots(site, f"{base}/sitemap.xml")
    status, output = validate(base + "/", *xsd_args())
    assert (status, output) == (0, f"{base}/sitemap.xml: 2 file(s), 2 URL(s) checked: valid.\n")


def test_http_errors(site: Site) -> None:
    base, deadline = site.url, Deadline(30)
    page = urlset(f"{base}/a").encode()
    site.serve("/sitemap.xml", index(f"{base}/s1.xml", f"{base}/s2.xml"))
    site.serve("/s1.xml", b"oops", 500)
    site.serve("/s2.xml", page)
    site.serve("/s2.xml.gz", gzip.compress(page))
    serve_robots(site, f"{base}/sitemap.xml")
    assert fetch(base + "/nothing", deadline) is None
    with pytest.raises(FetchError, match="HTTP 500"):
        fetch(base + "/s1.xml", deadline)
    with pytest.raises(FetchError, match="not an http"):
        fetch("file:///etc/passwd", deadline)
    status, output = validate(base + "/sitemap.xml")
    assert (status, output) == (
        1,
        f"{base}/s1.xml: [fetch] cannot read {base}/s1.xml: HTTP 500 Internal Server Error\n"
        f"{base}/sitemap.xml: 2 file(s), 1 URL(s) checked: 1 problem(s).\n",
    )


def test_a_gz_twin_that_is_not_gzip(site: Site) -> None:
    base = site.url
    page = urlset(f"{base}/a").encode()
    site.serve("/sitemap.xml", page)
    site.serve("/sitemap.xml.gz", page)
    status, lines = run(base + "/sitemap.xml")
    assert status == 1
    assert len(lines) == 2
    assert lines[0].startswith(f"{base}/sitemap.xml.gz: [gzip] not a gzip file: ")
    assert lines[1] == (
        f"{base}/robots.txt: [robots] does not exist, so crawlers are not told about "
        f"{base}/sitemap.xml"
    )


HOSTILE: dict[str, Route] = {
    "stalled": stalled,
    "dripping its status line": dripping(0.1),
    "dripping its headers": dripping(0.1, b"HTTP/1.0 200 OK\r\nX-Slow: "),
    "dripping its body": dripping(0.1, b"HTTP/1.0 200 OK\r\n\r\n<urlset "),
}


@pytest.mark.parametrize("hostile", HOSTILE)
def test_a_site_that_never_finishes_stops_at_the_deadline(site: Site, hostile: str) -> None:
    base = site.url
    site.serve("/sitemap.xml", index(f"{base}/a.xml", f"{base}/b.xml", f"{base}/c.xml"))
    site.serve("/a.xml", urlset(f"{base}/a").encode())
    site.routes["/b.xml"] = HOSTILE[hostile]
    site.serve("/c.xml", urlset(f"{base}/c").encode())
    serve_robots(site, f"{base}/sitemap.xml")
    started = time.monotonic()
    status, output = validate(base + "/sitemap.xml", "--deadline", "1.5")
    # The deadline, and not one read's 30 s, ends the run; the slack is for a busy machine.
    assert time.monotonic() - started < 1.5 + 5
    assert status == 1
    assert finding_lines(output) == [
        f"{base}/b.xml: [fetch] cannot read {base}/b.xml: the deadline of 1.5 s passed (--deadline)"
    ]
    # b.xml held the run to its end: c.xml was never asked for.
    assert "/c.xml" not in site.requests
    assert output.endswith(f"{base}/sitemap.xml: 2 file(s), 1 URL(s) checked: 1 problem(s).\n")


def test_a_tls_handshake_dripped_stops_at_the_deadline() -> None:
    listener = socket.create_server(("127.0.0.1", 0))
    closing = threading.Event()

    def drip() -> None:
        connection, _ = listener.accept()
        with connection, contextlib.suppress(OSError):
            connection.sendall(b"\x16\x03\x03\x40\x00")  # a 16 KiB handshake record follows...
            while not closing.wait(0.1):
                connection.sendall(b"\x02")  # ... a byte at a time

    threading.Thread(target=drip, daemon=True).start()
    url = f"https://127.0.0.1:{listener.getsockname()[1]}/sitemap.xml"
    started = time.monotonic()
    try:
        status, lines = run(url, "--deadline", "1.5")
    finally:
        closing.set()
        listener.close()
    assert time.monotonic() - started < 1.5 + 5
    assert (status, lines) == (
        1,
        [f"{url}: [fetch] cannot read {url}: the deadline of 1.5 s passed (--deadline)"],
    )


def test_the_deadline_ends_every_set_of_the_run(site: Site) -> None:
    base = site.url
    site.routes["/slow.xml"] = stalled
    serve_robots(site, f"{base}/slow.xml", f"{base}/other.xml")
    status, lines = run(base + "/robots.txt", "--deadline", "1")
    assert status == 1
    assert [line.split(": [")[0] for line in lines] == [f"{base}/slow.xml", f"{base}/other.xml"]
    assert all(line.endswith("the deadline of 1 s passed (--deadline)") for line in lines)


@pytest.mark.parametrize("value", ["0", "-1", "soon", "inf", "nan"])
def test_a_deadline_must_be_a_positive_number(value: str) -> None:
    with pytest.raises(CommandError, match="not a positive number of seconds"):
        call_command("sitemapkit_validate", "http://127.0.0.1:9/sitemap.xml", "--deadline", value)


def test_deadline_errors_are_fetch_errors() -> None:
    deadline = Deadline(0.001)
    time.sleep(0.01)
    with pytest.raises(TimeUp, match=r"the deadline of 0\.001 s passed"):
        fetch("http://127.0.0.1:9/sitemap.xml", deadline)  # nothing is asked past the deadline
    assert issubclass(TimeUp, FetchError) and issubclass(OffSite, FetchError)


def test_an_endless_sitemap_is_read_up_to_the_protocol_s_cap(site: Site) -> None:
    base = site.url
    # Long URLs, to read the 52,428,800 bytes quickly (benchmarks/validate_memory.py reads
    # short ones, and measures the memory).
    site.routes["/sitemap.xml"] = streamed(urlset_chunks(base, None, padding=1900))
    serve_robots(site, f"{base}/sitemap.xml")
    status, lines = run(base + "/sitemap.xml")
    assert (status, lines) == (
        1,
        [
            f"{base}/sitemap.xml: [limit] more than {MAX_BYTES_PER_FILE:,} bytes uncompressed "
            "(read no further)"
        ],
    )


def test_an_endless_sitemap_takes_little_memory(site: Site) -> None:
    """The command as a process, its peak RSS measured: 52,428,800 bytes read, little kept.

    Long URLs to be quick (about 50,000 of them); benchmarks/validate_memory.py measures
    short ones (a million distinct URLs a file), and a set of 1.5 million.
    """
    base = site.url
    site.routes["/sitemap.xml"] = streamed(urlset_chunks(base, None, padding=900))
    serve_robots(site, f"{base}/sitemap.xml")
    status, output, peak = validate_in_a_process(base + "/sitemap.xml")
    assert status == 1
    assert f"[limit] more than {MAX_BYTES_PER_FILE:,} bytes uncompressed" in output
    assert peak < 150


def gzip_bomb(inflated: int) -> bytes:
    """A gzip file of zeros inflating to ``inflated`` bytes: members of 8 MiB, one after another."""
    member = gzip.compress(bytes(8 << 20))
    return member * (inflated // (8 << 20))


def test_a_gzip_bomb_inflates_no_further_than_the_cap(site: Site) -> None:
    base = site.url
    bomb = gzip_bomb(10 << 30)  # 10 MB sent, 10 GiB inflated
    page = urlset(f"{base}/a").encode()
    site.serve("/sitemap.xml", index(f"{base}/a.xml", f"{base}/b.xml.gz"))
    site.serve("/a.xml", page)
    site.serve("/a.xml.gz", bomb)
    site.serve("/b.xml.gz", bomb)
    serve_robots(site, f"{base}/sitemap.xml")
    # Inflating 10 GiB takes far more than 30 s: the cap ends each file first.
    status, lines = run(base + "/sitemap.xml", "--deadline", "30")
    assert status == 1
    assert lines == [
        f"{base}/a.xml.gz: [limit] inflates to more than {MAX_BYTES_PER_FILE:,} bytes "
        "(read no further)",
        f"{base}/b.xml.gz: [xml] not UTF-8 (UTF-16 or UTF-32): sitemaps must be UTF-8",
        f"{base}/b.xml.gz: [limit] more than {MAX_BYTES_PER_FILE:,} bytes uncompressed "
        "(read no further)",
    ]


def test_redirects_stay_on_the_site(site: Site, elsewhere: Site) -> None:
    base = site.url
    site.routes["/old.xml"] = redirect("/sitemap.xml", 301)
    site.serve("/sitemap.xml", index(*(f"{base}/{name}.xml" for name in "abcde")))
    site.routes["/a.xml"] = redirect(f"{elsewhere.url}/a.xml")
    site.routes["/b.xml"] = redirect("ftp://127.0.0.1/b.xml", 301)
    site.routes["/c.xml"] = redirect("https" + base.removeprefix("http") + "/c.xml", 308)
    site.routes["/d.xml"] = redirect("/moved/../d2.xml", 307)
    site.serve("/d2.xml", urlset(f"{base}/d").encode())
    site.routes["/e.xml"] = redirect("/e.xml")
    elsewhere.serve("/a.xml", urlset(f"{base}/a").encode())
    serve_robots(site, f"{base}/old.xml")
    status, lines = run(base + "/old.xml")
    off = f"off {base}: not followed"
    assert (status, lines) == (
        1,
        [
            f"{base}/a.xml: [scope] {base}/a.xml redirects to {elsewhere.url}/a.xml, {off}",
            f"{base}/b.xml: [scope] {base}/b.xml redirects to ftp://127.0.0.1/b.xml, {off}",
            f"{base}/c.xml: [scope] {base}/c.xml redirects to https{base[4:]}/c.xml, {off}",
            f"{base}/e.xml: [fetch] cannot read {base}/e.xml: more than 5 redirects",
        ],
    )
    assert elsewhere.requests == []
    assert site.requests.count("/d2.xml") == 1


def test_robots_txt_is_read_once_and_no_further_than_crawlers_read(
    site: Site, elsewhere: Site
) -> None:
    base = site.url
    for name in ("a", "b"):
        page = urlset(f"{base}/{name}").encode()
        site.serve(f"/{name}.xml", page)
        site.serve(f"/{name}.xml.gz", gzip.compress(page))
    lines = f"Sitemap: {base}/a.xml\nSitemap: {elsewhere.url}/c.xml\nSitemap: {base}/b.xml\n"
    late = f"Sitemap: {base}/late.xml\n".encode()

    def endless_comments() -> Iterator[bytes]:
        yield lines.encode()
        yield (b"#" * 1023 + b"\n") * 500  # to 500 KiB: what crawlers read
        while True:
            yield late + b"#" * 65_536 + b"\n"

    site.routes["/robots.txt"] = streamed(endless_comments())
    status, output = validate(base + "/")
    assert (status, output) == (
        1,
        f"{base}/a.xml: 1 file(s), 1 URL(s) checked: valid.\n"
        f"{elsewhere.url}/c.xml: [scope] {elsewhere.url}/c.xml is not on {base}: not read\n"
        f"{elsewhere.url}/c.xml: 0 file(s), 0 URL(s) checked: 1 problem(s).\n"
        f"{base}/b.xml: 1 file(s), 1 URL(s) checked: valid.\n",
    )
    assert site.requests.count("/robots.txt") == 1
    assert "/late.xml" not in site.requests
    assert elsewhere.requests == []


@pytest.mark.parametrize(
    ("declared", "codec", "problem"),
    [
        ("Shift_JIS", "shift_jis", "declares the encoding 'Shift_JIS'"),
        ("UTF-7", "utf-7", "declares the encoding 'UTF-7'"),
        ("UTF-32", "utf-32", "not UTF-8 (UTF-16 or UTF-32)"),
        ("UTF-16", "utf-16", "not UTF-8 (UTF-16 or UTF-32)"),
    ],
)
def test_an_encoding_other_than_utf8_is_a_finding(
    site: Site, declared: str, codec: str, problem: str
) -> None:
    base = site.url
    site.serve(
        "/sitemap.xml", urlset(f"{base}/\u30da\u30fc\u30b8", encoding=declared).encode(codec)
    )
    serve_robots(site, f"{base}/sitemap.xml")
    status, lines = run(base + "/sitemap.xml", *xsd_args())
    assert (status, lines) == (
        1,
        [f"{base}/sitemap.xml: [xml] {problem}: sitemaps must be UTF-8"],
    )


def test_an_index_is_followed_for_the_protocol_s_50000_files_at_most(
    site: Site, elsewhere: Site
) -> None:
    # 100,000 files on another host: each of the first 50,000 gives a scope finding, unread.
    base = site.url
    site.serve("/sitemap.xml", index(*(f"{elsewhere.url}/{i}.xml" for i in range(100_000))))
    serve_robots(site, f"{base}/sitemap.xml")
    status, lines = run(base + "/sitemap.xml")
    assert status == 1
    assert lines[0] == f"{base}/sitemap.xml: [limit] 100,000 files, more than 50,000"
    assert lines[-1] == f"{base}/sitemap.xml: [scope] ... and 49,990 more like these"
    assert len(lines) == 12
    assert elsewhere.requests == []


def test_a_url_in_two_files_is_a_duplicate(site: Site) -> None:
    base = site.url
    site.serve("/sitemap.xml", index(f"{base}/a.xml", f"{base}/b.xml"))
    site.serve("/a.xml", urlset(f"{base}/", f"{base}/about/").encode())
    site.serve("/b.xml", urlset(f"{base}/post/1", f"{base}/about/").encode())
    serve_robots(site, f"{base}/sitemap.xml")
    assert run(base + "/") == (
        1,
        [
            f"{base}/b.xml: [duplicate] {base}/about/ is listed twice (also in {base}/a.xml) "
            "(entry 2)"
        ],
    )
