"""Seen in a browser: headless Chromium shows the index and a page laid out by the CSS (the
default), with no XSLT banner, and as tables under ``STYLESHEET = "xsl"``.

The live server serves the files, their stylesheet and nothing else from its
own origin; Chromium applies the stylesheet (``--dump-dom`` prints the DOM after
an XSL transformation) and screenshots what a person sees, copied to
``$SITEMAPKIT_ARTEFACTS`` (default ``tests/artefacts/``, ignored by git) for a
person to look at. Skipped only where Chromium is absent outside CI: under
``CI`` a missing browser fails the run.
"""

from __future__ import annotations

import datetime
import json
import os
import shutil
import struct
import subprocess
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import lxml.html
import pytest
from django.http import HttpRequest, HttpResponse
from django.test import Client
from django.urls import include, path
from pytest_django.live_server_helper import LiveServer

import django_sitemapkit as sitemapkit
from tests.serving.test_stylesheet import ENCODED_HREFS, HOSTILE_HREFS, HostileSitemap
from tests.testapp.models import Article

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        CHROMIUM is None and not os.environ.get("CI"),
        reason="no chromium (apt-get install chromium); required under CI",
    ),
]

T0 = datetime.datetime(2026, 1, 1, 12, 30, tzinfo=datetime.UTC)
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run"]


def chromium(*args: str, timeout: float = 60) -> str:
    assert CHROMIUM is not None, "CI requires chromium: apt-get install chromium"
    done = subprocess.run(
        [CHROMIUM, *FLAGS, *args], capture_output=True, text=True, timeout=timeout, check=True
    )
    return done.stdout


def rows(url: str) -> list[list[str]]:
    """The text of each cell of each body row of the table Chromium renders at ``url``."""
    document = lxml.html.fromstring(chromium("--dump-dom", url))
    assert document.xpath("//table"), f"Chromium showed {url} without the XSL (XSLT removed?)"
    return [
        [" ".join(cell.text_content().split()) for cell in row.xpath("td")]
        for row in document.xpath("//table/tbody/tr")
    ]


def png_colours(path: Path) -> set[bytes]:
    """The distinct pixels of an 8-bit RGB(A) PNG, decoded with the standard library."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    offset, idat, header = 8, b"", b""
    while offset < len(data):
        (length,) = struct.unpack(">I", data[offset : offset + 4])
        kind, body = data[offset + 4 : offset + 8], data[offset + 8 : offset + 8 + length]
        header = body if kind == b"IHDR" else header
        idat += body if kind == b"IDAT" else b""
        offset += 12 + length
    width, height, depth, colour = struct.unpack(">IIBB", header[:10])
    assert depth == 8 and colour in (2, 6), "an 8-bit RGB or RGBA screenshot"
    step = 3 if colour == 2 else 4
    raw, stride = zlib.decompress(idat), width * step + 1
    # Only the filter-free bytes matter for "more than one colour": sample
    # rows as stored (filtered), which differ as soon as the image does.
    return {raw[y * stride + 1 : (y + 1) * stride] for y in range(height)}


def screenshot(url: str, tmp_path: Path, name: str) -> Path:
    """A screenshot of ``url`` in ``tmp_path``, copied to the artefacts folder (printed)."""
    shot = tmp_path / name
    chromium(f"--screenshot={shot}", "--window-size=1200,800", url)
    assert len(png_colours(shot)) > 10, f"{shot} is blank"
    ARTEFACTS.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(shot, ARTEFACTS / name)
    print(f"screenshot of {url}: {ARTEFACTS / name}")
    return shot


ARTEFACTS = Path(
    os.environ.get("SITEMAPKIT_ARTEFACTS") or Path(__file__).parent / "artefacts"
).resolve()


@pytest.fixture
def server(sitemaps: Any, settings: Any, request: pytest.FixtureRequest) -> Iterator[str]:
    live = LiveServer("localhost")
    settings.SITEMAPKIT = {
        **settings.SITEMAPKIT,
        "BASE_URL": live.url,
        "SERVE_BUILT_FILES": False,
        **getattr(request, "param", {}),
    }
    settings.ROOT_URLCONF = __name__
    # What projects run: nosniff must not stop the stylesheet.
    settings.MIDDLEWARE = ["django.middleware.security.SecurityMiddleware"]

    @sitemapkit.register(Article)
    class ArticleSitemap(sitemapkit.ModelSitemap):
        limit = 5
        changefreq = "daily"

    Article.objects.bulk_create(Article(slug=f"a{i}", updated_at=T0) for i in range(8))
    Client().get("/sitemap.xml")  # paginate before the threads of the live server
    try:
        yield live.url
    finally:
        live.stop()


# A script in the page's frame reports, for each <loc> and <lastmod>, whether it takes room on
# the screen (CSS shows it), and the page's text: an XSLT banner would be in it.
PROBE = """<!doctype html><title>probe</title><pre id="result">running</pre><script>
const frame = document.createElement("iframe");
frame.src = new URLSearchParams(location.search).get("file");
frame.onload = () => {
  const doc = frame.contentDocument;
  const shown = (el) => el.getBoundingClientRect().height > 0 && getComputedStyle(el).display != "none";
  const fields = [...doc.querySelectorAll("loc, lastmod")].map((el) => [el.localName, el.textContent, shown(el)]);
  document.getElementById("result").textContent = JSON.stringify({
    type: doc.contentType, fields, text: doc.documentElement.textContent,
    elements: [...doc.querySelectorAll("*")].map((el) => el.namespaceURI + " " + el.localName),
  });
};
document.body.append(frame);
</script>"""


def probe(request: HttpRequest) -> HttpResponse:
    return HttpResponse(PROBE)


def seen(server: str, name: str) -> dict[str, Any]:
    """What Chromium makes of ``/name`` in a frame of the site's own page (see PROBE)."""
    dom = chromium("--virtual-time-budget=10000", "--dump-dom", f"{server}/probe/?file=/{name}")
    result = lxml.html.fromstring(dom).get_element_by_id("result").text_content()
    assert result != "running", f"Chromium did not load {name}"
    return dict(json.loads(result))


# Chromium 156's banner over an XSLT page, an element of its own whose shadow root says "This
# site uses XSLT; that functionality is being removed from this browser very soon ... you should
# contact the maintainer of the site" (the XSL test below checks it is there to be found).
BANNER = "<xslt-warning-banner"
BANNER_WORDS = ("xslt", "being removed", "maintainer")


@pytest.mark.parametrize(
    "server", [{}, {"STYLESHEET": "css"}], indirect=True, ids=["default", "css"]
)
def test_by_default_chromium_shows_the_files_without_xslt_or_banner(
    server: str, tmp_path: Path, settings: Any
) -> None:
    for name in ("sitemap.xml", "sitemap-testapp-article-2.xml"):
        raw = Client().get(f"/{name}").content
        assert b'<?xml-stylesheet type="text/css" href="/sitemap.css"?>' in raw
        assert b"xsl" not in raw.lower()
        shown = seen(server, name)
        # The XML itself (no transformation made an HTML page of it), with no banner in it.
        assert shown["type"] == "application/xml"
        assert all(not e.startswith("http://www.w3.org/1999/xhtml") for e in shown["elements"])
        dom = chromium("--dump-dom", f"{server}/{name}")
        assert BANNER not in dom and not any("xslt" in e for e in shown["elements"])
        for text in (shown["text"].lower(), dom.lower()):
            assert not any(word in text for word in BANNER_WORDS), text
        # Each location and date takes room on the screen.
        assert all(visible for _, _, visible in shown["fields"]), shown["fields"]
        locs = [text for kind, text, _ in shown["fields"] if kind == "loc"]
        screenshot(
            f"{server}/{name}",
            tmp_path,
            f"{settings.SITEMAPKIT.get('STYLESHEET', 'default')}-{name}.png",
        )
        if name == "sitemap.xml":
            assert locs == [f"{server}/sitemap-testapp-article-{n}.xml" for n in (1, 2)]
        else:
            assert locs == [f"{server}/articles/a{i}/" for i in range(5, 8)]


@pytest.mark.parametrize("server", [{"STYLESHEET": "xsl"}], indirect=True)
def test_the_index_and_a_page_are_tables_in_chromium(server: str, tmp_path: Path) -> None:
    index = rows(f"{server}/sitemap.xml")
    assert index == [
        ["1", f"{server}/sitemap-testapp-article-1.xml", "2026-01-01 12:30:00+00:00"],
        ["2", f"{server}/sitemap-testapp-article-2.xml", "2026-01-01 12:30:00+00:00"],
    ]
    page = rows(f"{server}/sitemap-testapp-article-2.xml")
    assert page == [
        [str(n), f"{server}/articles/a{i}/", "2026-01-01 12:30:00+00:00", "daily", "-", "0"]
        for n, i in enumerate(range(5, 8), start=1)
    ]
    for name in ("sitemap.xml", "sitemap-testapp-article-1.xml"):
        screenshot(f"{server}/{name}", tmp_path, f"xsl-{name}.png")
    # The banner the default's test looks for, where it looks: that test could fail.
    assert BANNER in chromium("--dump-dom", f"{server}/sitemap.xml"), "no XSLT banner any more?"


# A page of the site's own origin that shows the hostile sitemap page in a
# frame, clicks each of its links in a fresh frame, and writes down every
# message a script sent: each hostile href's script posts one to the top
# window (a javascript: URL runs in the frame's origin, a data: document in
# an opaque one; both may post). Last, a javascript: link the harness adds
# itself proves that a script run by a click would be seen.
HARNESS = """<!doctype html><title>harness</title><pre id="result">running</pre><script>
const messages = [];
addEventListener("message", (event) => messages.push(String(event.data)));
const pause = (ms) => new Promise((done) => setTimeout(done, ms));
const framed = async () => {
  const frame = document.createElement("iframe");
  frame.src = "/sitemap-hostile-1.xml";
  document.body.append(frame);
  // Shown once the stylesheet has made its table (the load event may come before).
  while (!frame.contentDocument?.querySelector("table")) await pause(50);
  return frame;
};
(async () => {
  const first = await framed();
  const hrefs = [...first.contentDocument.querySelectorAll("a")].map((a) => a.href);
  first.remove();
  for (let n = 0; n < hrefs.length; n++) {
    const frame = await framed();
    frame.contentDocument.querySelectorAll("a")[n].click();
    await pause(300);
    frame.remove();
  }
  const clicked = [...messages];
  const control = await framed();
  const link = control.contentDocument.createElement("a");
  link.href = "javascript:top.postMessage('control','*')";
  control.contentDocument.body.append(link);
  link.click();
  await pause(300);
  document.getElementById("result").textContent = JSON.stringify({
    hrefs, clicked, control: messages.slice(clicked.length), title: document.title,
  });
})().catch((e) => { document.getElementById("result").textContent = "error " + e; });
</script>"""


def harness(request: HttpRequest) -> HttpResponse:
    return HttpResponse(HARNESS)


urlpatterns = [
    path("harness/", harness),
    path("probe/", probe),
    path("", include("tests.urls")),
]


def test_clicking_every_link_of_a_hostile_page_runs_no_script(sitemaps: Any, settings: Any) -> None:
    live = LiveServer("localhost")
    settings.SITEMAPKIT = {
        **settings.SITEMAPKIT,
        "BASE_URL": live.url,
        "SERVE_BUILT_FILES": False,
        "STYLESHEET": "xsl",
    }
    settings.ROOT_URLCONF = __name__
    sitemapkit.register(section="hostile")(HostileSitemap)
    try:
        page = Client().get("/sitemap-hostile-1.xml").content
        assert page.count(b"<xhtml:link") == len(HOSTILE_HREFS) + len(ENCODED_HREFS) + 1
        dom = chromium("--virtual-time-budget=30000", "--dump-dom", f"{live.url}/harness/")
    finally:
        live.stop()
    result = json.loads(lxml.html.fromstring(dom).get_element_by_id("result").text_content())
    assert result["clicked"] == [] and result["title"] == "harness"
    assert result["control"] == ["control"], "the harness would not have seen a script run"
    assert result["hrefs"] == [
        f"{live.url}/sitemap.xml",
        f"{live.url}/articles/hostile/",
        "https://www.example.com/fr/",
    ]
