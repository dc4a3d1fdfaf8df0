"""The manifest of a published set and its JSON."""

from __future__ import annotations

import datetime
import json

import pytest

from django_sitemapkit._publishing.base import FileRecord, Manifest


def make_manifest() -> Manifest:
    return Manifest(
        generation="g2",
        built_at="2026-01-01T00:00:00+00:00",
        base_url="https://www.example.com",
        gzip=True,
        pages=[
            FileRecord(
                section="blog-article",
                number=1,
                sha256="ab",
                size=1450,
                urls=1500,
                lastmod="2026-01-01T00:00:00+00:00",
                skipped=2,
                fingerprint="1502|2026-01-01T00:00:00+00:00",
            ),
            FileRecord(section="pages", number=1, sha256="cd", size=10, urls=3, lastmod=None),
        ],
        index_sha256="ef",
        index_lastmod="2026-01-01T00:00:00+00:00",
        previous_generation="g1",
    )


def test_json_round_trip() -> None:
    manifest = make_manifest()
    assert Manifest.from_json(manifest.to_json()) == manifest


def test_json_has_one_line_per_page() -> None:
    lines = make_manifest().to_json().decode().splitlines()
    assert len(lines) == 4  # the head, two pages, the end
    assert json.loads(lines[1].rstrip(","))["fingerprint"] == "1502|2026-01-01T00:00:00+00:00"
    assert json.loads(lines[2])["fingerprint"] is None


def test_what_earlier_versions_recorded_and_this_one_does_not_use_is_left_out() -> None:
    raw = json.loads(make_manifest().to_json())
    raw["change_log"] = True
    raw["pages"][0]["layout"] = {"cuts": ["1000"], "sizes": [40, 900, 500, 10]}
    assert Manifest.from_json(json.dumps(raw).encode()) == make_manifest()


def test_an_unknown_version_is_refused() -> None:
    raw = json.loads(make_manifest().to_json())
    raw["version"] = 99
    with pytest.raises(ValueError, match="unknown manifest version"):
        Manifest.from_json(json.dumps(raw).encode())


def test_files_and_records() -> None:
    manifest = make_manifest()
    assert manifest.files() == [
        "sitemap-blog-article-1.xml",
        "sitemap-pages-1.xml",
        "sitemap.xml",
        "sitemap-blog-article-1.xml.gz",
        "sitemap-pages-1.xml.gz",
        "sitemap.xml.gz",
    ]
    assert manifest.record_for("sitemap-pages-1.xml.gz") is manifest.pages[1]
    assert manifest.record_for("sitemap.xml") is None
    manifest.gzip = False
    assert manifest.files() == ["sitemap-blog-article-1.xml", "sitemap-pages-1.xml", "sitemap.xml"]


def test_a_record_reads_its_dates_back() -> None:
    first, second = make_manifest().pages
    moment = datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC)
    assert first.lastmod_value() == moment
    assert second.lastmod_value() is None
