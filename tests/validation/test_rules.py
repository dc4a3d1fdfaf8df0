"""Acceptance 1: each problem injected into a good build is found, alone, as one line."""

from __future__ import annotations

import datetime
import gzip
import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import django_sitemapkit as sitemapkit
from tests.testapp.models import Event
from tests.validation.builds import (
    BASE,
    NS,
    build,
    finding_lines,
    unshare,
    validate,
    xsd_args,
)

pytestmark = pytest.mark.django_db
# The rules, as the JSON report names them (docs/commands.md).
RULES = (
    "fetch",
    "missing",
    "xml",
    "schema",
    "limit",
    "scope",
    "duplicate",
    "gzip",
    "lastmod",
    "robots",
)


@pytest.fixture(params=["python", "xsd"])
def rules(request: pytest.FixtureRequest) -> list[str]:
    """The command's arguments: the rules in Python, or lxml and the XSDs (tests.xsd.xsd_dir)."""
    return [] if request.param == "python" else xsd_args()


def rewrite(path: Path, data: bytes, *, twin: bool = True) -> None:
    """Replace a published file (and its .gz twin, so that only the intended problem shows)."""
    unshare(path)
    path.write_bytes(data)
    if twin:
        gz = path.with_name(path.name + ".gz")
        unshare(gz)
        gz.write_bytes(gzip.compress(data))


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text
    rewrite(path, text.replace(old, new, 1).encode())


def one_finding(rules: list[str], rule: str, file: str) -> str:
    status, output = validate(*rules)
    lines = finding_lines(output)
    assert status == 1, output
    assert len(lines) == 1, output
    assert lines[0].startswith(f"{file}: [{rule}] "), output
    return lines[0]


def test_a_good_build_is_valid(good_build: Path, rules: list[str]) -> None:
    status, output = validate(*rules)
    assert status == 0, output
    assert finding_lines(output) == []
    assert output.endswith(": 6 file(s), 28 URL(s) checked: valid.\n")


def test_an_invalid_file(good_build: Path, rules: list[str]) -> None:
    page = good_build / "current" / "sitemap-testapp-article-1.xml"
    edit(page, "<changefreq>daily</changefreq>", "<changefreq>sometimes</changefreq>")
    line = one_finding(rules, "schema", page.name)
    assert "sometimes" in line


def test_a_page_the_index_names_is_missing(good_build: Path, rules: list[str]) -> None:
    page = good_build / "current" / "sitemap-testapp-tag-1.xml"
    page.unlink()
    page.with_name(page.name + ".gz").unlink()
    line = one_finding(rules, "missing", "sitemap.xml")
    assert f"{BASE}/sitemap-testapp-tag-1.xml" in line
    assert line.endswith("(entry 4)")


def test_a_gz_twin_that_differs(good_build: Path, rules: list[str]) -> None:
    gz = good_build / "current" / "sitemap-testapp-article-2.xml.gz"
    data = gzip.decompress(gz.read_bytes()).replace(b"a1", b"b1", 1)
    rewrite(gz, gzip.compress(data), twin=False)
    one_finding(rules, "gzip", gz.name)


def test_a_url_on_another_host(good_build: Path, rules: list[str]) -> None:
    page = good_build / "current" / "sitemap-testapp-article-1.xml"
    edit(page, f"<loc>{BASE}/articles/a", "<loc>https://elsewhere.example.org/articles/a")
    line = one_finding(rules, "scope", page.name)
    assert "https://elsewhere.example.org/articles/a" in line


def test_a_duplicate_url_across_two_files(good_build: Path, rules: list[str]) -> None:
    folder = good_build / "current"
    first = re.search(r"<loc>([^<]+)</loc>", (folder / "sitemap-testapp-article-1.xml").read_text())
    assert first is not None
    page = folder / "sitemap-testapp-article-2.xml"
    second = re.search(r"<loc>([^<]+)</loc>", page.read_text())
    assert second is not None
    edit(page, second.group(0), first.group(0))
    line = one_finding(rules, "duplicate", page.name)
    assert f"{first.group(1)} is listed twice (also in sitemap-testapp-article-1.xml)" in line


def test_a_row_whose_url_is_a_static_page_s(
    sitemaps: Any, settings: Any, tmp_path: Path, rules: list[str]
) -> None:
    """Issue #24, defect 12: a URL listed in two files of the set, by two sections."""
    settings.SITEMAPKIT = {**settings.SITEMAPKIT, "BUILD_DIR": str(tmp_path)}
    sitemapkit.register(Event)

    @sitemapkit.register(section="pages")
    class PageSitemap(sitemapkit.StaticViewSitemap):
        url_names = ["home", "about"]

    Event.objects.create(url="/about/")
    build()
    status, output = validate(*rules)
    assert (status, finding_lines(output)) == (
        1,
        [
            f"sitemap-pages-1.xml: [duplicate] {BASE}/about/ is listed twice "
            "(also in sitemap-testapp-event-1.xml) (entry 2)"
        ],
    )


def test_a_file_of_50001_urls(good_build: Path, rules: list[str]) -> None:
    folder = good_build / "current"
    entries = "".join(f"<url><loc>{BASE}/big/{i}</loc></url>\n" for i in range(50_001))
    big = f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{NS}">\n{entries}</urlset>\n'
    (folder / "sitemap-big-1.xml").write_bytes(big.encode())
    edit(
        folder / "sitemap.xml",
        "</sitemapindex>",
        f"<sitemap><loc>{BASE}/sitemap-big-1.xml</loc></sitemap>\n</sitemapindex>",
    )
    line = one_finding(rules, "limit", "sitemap-big-1.xml")
    assert "50,001 URLs, more than 50,000" in line


def test_a_lastmod_next_year(good_build: Path, rules: list[str]) -> None:
    page = good_build / "current" / "sitemap-testapp-article-3.xml"
    next_year = datetime.datetime.now(tz=datetime.UTC).year + 1
    edit(page, "<lastmod>2026-01-01T", f"<lastmod>{next_year}-01-01T")
    line = one_finding(rules, "lastmod", page.name)
    assert f"lastmod {next_year}-01-01T" in line


def test_a_robots_txt_without_the_line(good_build: Path, rules: list[str]) -> None:
    robots = good_build.parent / "robots.txt"
    robots.write_text("User-agent: *\nDisallow:\n\nSitemap: https://www.example.com/other.xml\n")
    line = one_finding(rules, "robots", str(robots))
    assert f"has no 'Sitemap: {BASE}/sitemap.xml' line" in line


def test_a_duplicate_within_one_file(good_build: Path) -> None:
    page = good_build / "current" / "sitemap-pages-1.xml"
    locs = re.findall(r"<loc>[^<]+</loc>", page.read_text())
    edit(page, locs[1], locs[0])
    assert "(earlier in this file)" in one_finding([], "duplicate", page.name)


def test_a_location_outside_the_file_s_directory(tmp_path: Path) -> None:
    (tmp_path / "sitemap.xml").write_text(
        f'<urlset xmlns="{NS}"><url><loc>{BASE}/other/page</loc></url></urlset>'
    )
    status, output = validate(str(tmp_path), "--base-url", f"{BASE}/blog")
    assert (status, finding_lines(output)) == (
        1,
        [f"sitemap.xml: [scope] {BASE}/other/page is outside {BASE}/blog/ (entry 1)"],
    )


GOOD_PAGE = (
    f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{NS}">'
    f"<url><loc>{BASE}/a</loc><lastmod>2026-01-01</lastmod><changefreq>daily</changefreq>"
    f"<priority>0.5</priority></url><url><loc>{BASE}/b</loc></url></urlset>\n"
).encode()


@settings(max_examples=150, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    cuts=st.lists(
        st.tuples(st.integers(0, len(GOOD_PAGE)), st.integers(0, 8), st.binary(max_size=8)),
        max_size=4,
    )
)
def test_random_mutations_never_crash(tmp_path: Path, cuts: list[tuple[int, int, bytes]]) -> None:
    data = GOOD_PAGE
    for at, drop, insert in cuts:
        data = data[:at] + insert + data[at + drop :]
    (tmp_path / "sitemap.xml").write_bytes(data)
    (tmp_path / "sitemap.xml.gz").write_bytes(gzip.compress(data))
    status, output = validate("--format", "json", str(tmp_path))
    findings = json.loads(output)["sets"][0]["findings"]
    assert status == (1 if findings else 0)
    if data == GOOD_PAGE:
        assert findings == []
    assert all(f["rule"] in RULES and f["file"].startswith("sitemap.xml") for f in findings)
