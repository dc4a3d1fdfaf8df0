"""What a build reports: its one-line summary."""

from __future__ import annotations

from django_sitemapkit._building.builder import BuildResult


def test_summary_counts_files_urls_and_bytes() -> None:
    result = BuildResult(
        sections=2,
        written=["sitemap-a-1.xml", "sitemap.xml"],
        unchanged=3,
        removed=["sitemap-b-1.xml"],
        urls=1234,
        skipped=5,
        bytes=67890,
        bytes_written=1500,
        seconds=1.234,
    )
    assert result.summary() == (
        "2 sections built: 2 files written, 3 unchanged, 1 removed; "
        "1,234 URLs (5 skipped), 1,500 bytes written (67,890 rendered) in 1.23 s."
    )


def test_summary_of_named_sections_counts_the_kept_ones_apart() -> None:
    result = BuildResult(sections=1, sections_kept=1, unchanged=4, bytes=437171)
    assert result.summary() == (
        "1 section built, 1 kept: 0 files written, 4 unchanged, 0 removed; "
        "0 URLs (0 skipped), 0 bytes written (437,171 rendered) in 0.00 s."
    )


def test_summary_of_a_dry_run_with_unwritable_lastmods() -> None:
    result = BuildResult(sections=1, written=["sitemap.xml"], dry_run=True, lastmods_dropped=1200)
    assert result.summary() == (
        "1 section built: 1 files would be written, 0 unchanged, 0 removed; "
        "0 URLs (0 skipped, 1,200 without their unwritable lastmod), "
        "0 bytes would be written (0 rendered) in 0.00 s."
    )


def test_summary_counts_dropped_images() -> None:
    result = BuildResult(sections=1, urls=10, lastmods_dropped=2, images_dropped=1001)
    assert "10 URLs (0 skipped, 2 without their unwritable lastmod, 1,001 images dropped)" in (
        result.summary()
    )
