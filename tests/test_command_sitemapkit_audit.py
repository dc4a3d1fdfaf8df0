"""``manage.py sitemapkit_audit``: each listed URL a search engine would not index is named with
its problem (issue #28, acceptance 1); a clean site exits 0; ``--json`` parses."""

from __future__ import annotations

import contextlib
import json
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.core.management import CommandError, call_command
from django.http import BadHeaderError, HttpResponse
from hypothesis import given, settings
from hypothesis import strategies as st

import django_sitemapkit as sitemapkit
from django_sitemapkit._audit import answer_problems

BASE = "https://www.example.com"
GOOD = ["ok", ("ok-plain", {"slug": "a"}), ("ok-plain", {"slug": "b"})]
# The six pages Google's Index Coverage report flags, and what the audit says of each.
BAD = [  # (url_names entry, its URL, what the audit says)
    ("missing", f"{BASE}/missing/", "status: 404"),
    ("moved", f"{BASE}/moved/", f"redirect: 301 to {BASE}/ok/"),
    (
        ("meta", {"name": "robots", "content": "noindex,follow"}),
        f"{BASE}/meta/robots/noindex,follow/",
        'noindex: <meta name="robots" content="noindex,follow">',
    ),
    (("header", {"value": "noindex"}), f"{BASE}/header/noindex/", "noindex: X-Robots-Tag: noindex"),
    (
        ("canonical", {"href": f"{BASE}/ok/"}),
        f"{BASE}/canonical/{BASE}/ok/",
        f"canonical: rel=canonical names {BASE}/ok/",
    ),
    ("private", f"{BASE}/private/page/", "robots: disallowed for User-agent * by {robots}"),
]
BAD_NAMES = [name for name, _, _ in BAD]

pytestmark = pytest.mark.django_db


@pytest.fixture
def project(sitemaps: Any, settings: Any, tmp_path: Path) -> Path:
    """tests/urls_audit.py at BASE, with the robots.txt sitemapkit_robots maintains."""
    robots = tmp_path / "robots.txt"
    robots.write_text(f"User-agent: *\nDisallow: /private/\n\nSitemap: {BASE}/sitemap.xml\n")
    settings.ROOT_URLCONF = "tests.urls_audit"
    settings.SITEMAPKIT = {
        "BASE_URL": BASE,
        "BUILD_DIR": str(tmp_path / "build"),
        "ROBOTS_TXT_PATH": str(robots),
    }
    return robots


def listing(*url_names: Any, section: str = "pages") -> None:
    pages = type("Pages", (sitemapkit.StaticViewSitemap,), {"url_names": url_names})
    sitemapkit.register(section=section)(pages)


def audit(*args: str) -> tuple[int, str]:
    """The command's exit status and output."""
    out = StringIO()
    status = 0
    try:
        call_command("sitemapkit_audit", *args, "--no-progress", stdout=out, stderr=StringIO())
    except CommandError as exc:
        status = exc.returncode
    return status, out.getvalue()


def test_names_exactly_the_six_bad_urls_with_their_problem(project: Path) -> None:
    listing(*GOOD, *BAD_NAMES)
    status, output = audit()
    assert status == 1
    lines = output.splitlines()
    expected = [f"{url} {problem.format(robots=project)}" for _, url, problem in BAD]
    assert lines[:6] == expected
    assert lines[6:] == [
        "Section 'pages': canonical 1, noindex 2, redirect 1, robots 1, status 1",
        f"Audited 9 URL(s) of {BASE} in {lines[-1].split(' in ')[1].split(' s:')[0]} s: "
        "6 with problems (canonical 1, noindex 2, redirect 1, robots 1, status 1).",
    ]


def test_a_clean_site_exits_0(project: Path) -> None:
    listing(*GOOD)
    status, output = audit()
    assert status == 0
    assert output.startswith(f"Audited 3 URL(s) of {BASE} in ")
    assert output.endswith(" s: no problems.\n")


def test_json_report(project: Path) -> None:
    listing(*GOOD, section="good")
    listing(*BAD_NAMES, section="bad")
    status, output = audit("--json")
    assert status == 1
    report = json.loads(output)
    assert report["ok"] is False
    [site] = report["sites"]
    assert (site["listed"], site["audited"]) == (9, 9)
    assert site["counts"] == {"status": 1, "redirect": 1, "noindex": 2, "canonical": 1, "robots": 1}
    assert site["sections"] == {"bad": site["counts"]}
    found = {
        p["url"]: f"{k['kind']}: {k['detail']}" for p in site["problems"] for k in p["problems"]
    }
    assert found == {url: problem.format(robots=project) for _, url, problem in BAD}
    assert {p["file"] for p in site["problems"]} == {f"{BASE}/sitemap-bad-1.xml"}
    assert site["summary"].startswith("Audited 9 URL(s)")


def test_a_clean_json_report(project: Path) -> None:
    listing(*GOOD)
    status, output = audit("--json")
    assert status == 0
    assert json.loads(output)["ok"] is True


@pytest.mark.parametrize(
    "header",
    [
        "noindex",
        "NOINDEX",
        "none",
        "nofollow, noindex",
        "googlebot: noindex",
        "googlebot: nofollow, noindex",
        "unavailable_after: 2020-01-01T00:00:00Z, noindex",
    ],
)
def test_x_robots_tag_values_saying_noindex(project: Path, header: str) -> None:
    listing(("header", {"value": header}))
    status, output = audit()
    assert status == 1
    assert f"noindex: X-Robots-Tag: {header}" in output


@pytest.mark.parametrize(
    "header",
    ["nofollow", "otherbot: noindex", "noindex-ish", "unavailable_after: 2020-01-01T00:00:00Z"],
)
def test_x_robots_tag_values_that_index(project: Path, header: str) -> None:
    listing(("header", {"value": header}))
    status, output = audit()
    assert status == 0, output


@pytest.mark.parametrize(
    ("name", "content", "found"),
    [
        ("robots", "noindex", True),
        ("ROBOTS", "None", True),
        ("googlebot", "nofollow,noindex", True),
        ("robots", "index,follow", False),
        ("otherbot", "noindex", False),
    ],
)
def test_meta_robots(project: Path, name: str, content: str, found: bool) -> None:
    listing(("meta", {"name": name, "content": content}))
    status, output = audit()
    assert status == int(found), output


@pytest.mark.parametrize(
    ("href", "found"),
    [
        # The listed page is /canonical/<href>: a relative href is resolved against it.
        ("x", False),  # /canonical/x itself
        ("x/", True),  # /canonical/x/x/
        (f"{BASE}/x", True),
        ("http://www.example.com/canonical/x", True),
    ],
)
def test_canonical_compared_as_absolute_urls(project: Path, href: str, found: bool) -> None:
    listing(("canonical", {"href": href}))
    status, output = audit()
    assert status == int(found), output


def test_a_view_that_raises_is_reported_and_the_audit_goes_on(
    project: Path, caplog: pytest.LogCaptureFixture
) -> None:
    listing("raises", *GOOD)
    status, output = audit()
    assert status == 1
    assert output.splitlines()[0] == f"{BASE}/raises/ error: ValueError: the view broke"
    assert "Audited 4 URL(s)" in output
    # The report names it; django.request (ADMINS' emails) does not, once per URL.
    assert not [record for record in caplog.records if record.name == "django.request"]


def test_a_page_slower_than_the_timeout_is_reported_and_the_audit_goes_on(project: Path) -> None:
    listing("slow", *GOOD)
    status, output = audit("--timeout", "0.2")
    assert status == 1
    assert output.splitlines()[0] == f"{BASE}/slow/ timeout: no answer within 0.2 s"
    assert "Audited 4 URL(s)" in output


def test_a_seeded_sample(project: Path) -> None:
    listing(*[("gone", {"slug": f"p{n}"}) for n in range(50)])
    runs = [
        json.loads(audit("--sample", "10", "--json", *seed)[1])
        for seed in ([], [], ["--seed", "7"])
    ]
    sites = [run["sites"][0] for run in runs]
    assert [(site["listed"], site["audited"]) for site in sites] == [(50, 10)] * 3
    urls = [[problem["url"] for problem in site["problems"]] for site in sites]
    assert len(set(urls[0])) == 10
    assert urls[0] == urls[1] != urls[2]
    assert sites[0]["summary"].startswith("Audited 10 of 50 listed URL(s) of ")


def test_several_sites_and_the_robots_txt_the_project_serves(project: Path, settings: Any) -> None:
    settings.ROOT_URLCONF = "tests.urls_audit_robots"
    settings.SITEMAPKIT = {
        "SITES": {
            "www": {"BASE_URL": BASE},
            "shop": {"BASE_URL": "http://example.com", "SECTIONS": ["good"]},
        }
    }
    listing(*GOOD, section="good")
    listing("private", section="private")
    status, output = audit()
    assert status == 1
    assert output.splitlines() == [
        f"{BASE}/private/page/ robots: disallowed for User-agent Googlebot by {BASE}/robots.txt",
        "Section 'private': robots 1",
        output.splitlines()[2],
        output.splitlines()[3],
    ]
    assert output.splitlines()[2].startswith("Audited 4 URL(s) of site 'www' in ")
    assert output.splitlines()[3].startswith("Audited 3 URL(s) of site 'shop' in ")
    status, output = audit("--site", "shop")
    assert status == 0
    assert output.startswith("Audited 3 URL(s) of site 'shop' in ")


def test_without_the_sitemap_views(project: Path, settings: Any) -> None:
    settings.ROOT_URLCONF = "tests.urls_without_sitemapkit"
    with pytest.raises(
        CommandError, match=r"the index, https://www.example.com/sitemap.xml, answers 404"
    ):
        call_command("sitemapkit_audit", stdout=StringIO())


def test_progress_bar_on_a_terminal(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    class Terminal(StringIO):
        def isatty(self) -> bool:
            return True

    listing(*GOOD)
    terminal = Terminal()
    monkeypatch.setattr("sys.stderr", terminal)
    call_command("sitemapkit_audit", stdout=StringIO())
    assert "\r[" + "#" * 30 + "] 3/3 URLs" in terminal.getvalue()


# What a project's pages send is the audit's input: never a crash, never a page's fault invented.
_HREFS = st.tuples(
    st.sampled_from(["", "http:", "https://", "//", "/"]),
    st.sampled_from(["", "[", "]", "[::1", "example.com", "u:p@h"]),
    st.text(alphabet="/?#%.a[]:", max_size=10),
).map("".join)
_TAGS = st.one_of(
    _HREFS.map(lambda href: f'<link rel="canonical" href="{href}">'),
    _HREFS.map(lambda href: f'<base href="{href}">'),
    st.text(max_size=20).map(lambda content: f'<meta name="robots" content="{content}">'),
    st.text(max_size=20),
)


@settings(max_examples=300, deadline=None)
@given(tags=st.lists(_TAGS, max_size=4), header=st.text(max_size=40), location=_HREFS)
def test_any_head_header_or_location_is_read_without_error(
    tags: list[str], header: str, location: str
) -> None:
    page = HttpResponse(f"<html><head>{''.join(tags)}</head><body></body></html>")
    with contextlib.suppress(BadHeaderError):
        page["X-Robots-Tag"] = header
    assert {p.kind for p in answer_problems(page, f"{BASE}/page/")} <= {"noindex", "canonical"}
    moved = HttpResponse(status=301)
    moved["Location"] = location
    assert [p.kind for p in answer_problems(moved, f"{BASE}/page/")] == ["redirect"]
