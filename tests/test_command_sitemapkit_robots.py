"""Tests for the ``sitemapkit_robots`` management command."""

from __future__ import annotations

import os
import re
import stat
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.urls import include, path

from django_sitemapkit.management.commands.sitemapkit_robots import Command

LINE = b"Sitemap: https://www.example.com/sitemap.xml"

# CRLF line endings, comments, several groups, no blank line at the end.
ROBOTS_CRLF = (
    b"# robots.txt for www.example.com\r\n"
    b"User-agent: *\r\n"
    b"Disallow: /admin/\r\n"
    b"Allow: /admin/public/  # still crawlable\r\n"
    b"\r\n"
    b"# Google may see the drafts\r\n"
    b"User-agent: Googlebot\r\n"
    b"Disallow:\r\n"
    b"\r\n"
    b"User-agent: BadBot\r\n"
    b"Disallow: /\r\n"
)
# What a run adds to it: a blank line separating the last group, then the line.
ADDED_CRLF = b"\r\n" + LINE + b"\r\n"


def run(*args: str, verbosity: int = 1) -> str:
    out = StringIO()
    call_command("sitemapkit_robots", *args, stdout=out, verbosity=verbosity)
    return out.getvalue()


@pytest.fixture
def robots(tmp_path: Path) -> Path:
    return tmp_path / "robots.txt"


def age(path: Path) -> int:
    """Set the file's mtime well into the past and return it, so a rewrite would show."""
    past = 1_000_000_000_000_000_000
    os.utime(path, ns=(past, past))
    return path.stat().st_mtime_ns


# ------------------------------------------------------------------ acceptance


def test_hundred_runs_on_crlf_file_add_exactly_one_line(robots: Path) -> None:
    robots.write_bytes(ROBOTS_CRLF)
    run("--file", str(robots))
    after_first = robots.read_bytes()
    assert after_first == ROBOTS_CRLF + ADDED_CRLF
    mtime = age(robots)
    inode = robots.stat().st_ino
    for _ in range(99):
        run("--file", str(robots))
    assert robots.read_bytes() == ROBOTS_CRLF + ADDED_CRLF
    assert robots.stat().st_mtime_ns == mtime
    assert robots.stat().st_ino == inode


def test_second_run_does_not_rewrite(robots: Path) -> None:
    run("--file", str(robots))
    mtime = age(robots)
    out = run("--file", str(robots))
    assert robots.stat().st_mtime_ns == mtime
    assert out == f"{robots} already lists https://www.example.com/sitemap.xml.\n"


# ------------------------------------------------------------------ file shapes


@pytest.mark.parametrize(
    ("original", "expected"),
    [
        pytest.param(
            b"User-agent: *\nDisallow:\n", b"User-agent: *\nDisallow:\n\n" + LINE + b"\n", id="LF"
        ),
        pytest.param(
            b"User-agent: *\rDisallow:\r", b"User-agent: *\rDisallow:\r\r" + LINE + b"\r", id="CR"
        ),
        pytest.param(
            b"User-agent: *\r\nDisallow:",
            b"User-agent: *\r\nDisallow:\r\n\r\n" + LINE,
            id="no-final-newline",
        ),
        pytest.param(
            b"\xef\xbb\xbfUser-agent: *\nDisallow:\n",
            b"\xef\xbb\xbfUser-agent: *\nDisallow:\n\n" + LINE + b"\n",
            id="BOM",
        ),
        pytest.param(b"", LINE + b"\n", id="empty"),
        pytest.param(
            b"# caf\xe9\nDisallow: /\xff\n",
            b"# caf\xe9\nDisallow: /\xff\n\n" + LINE + b"\n",
            id="latin-1-bytes",
        ),
    ],
)
def test_file_shapes(robots: Path, original: bytes, expected: bytes) -> None:
    robots.write_bytes(original)
    out = run("--file", str(robots))
    assert robots.read_bytes() == expected
    assert out == f"Added '{LINE.decode()}' to {robots}.\n"
    run("--file", str(robots))
    assert robots.read_bytes() == expected


def test_missing_file_is_created(robots: Path) -> None:
    out = run("--file", str(robots))
    assert robots.read_bytes() == LINE + b"\n"
    assert "(creating the file)" in out
    if os.name == "posix":
        assert stat.S_IMODE(robots.stat().st_mode) == 0o644


def test_path_from_settings(robots: Path, settings: Any) -> None:
    settings.SITEMAPKIT = {"BASE_URL": "https://www.example.com", "ROBOTS_TXT_PATH": str(robots)}
    run()
    assert robots.read_bytes() == LINE + b"\n"


def test_file_option_wins_over_settings(robots: Path, tmp_path: Path, settings: Any) -> None:
    other = tmp_path / "other.txt"
    settings.SITEMAPKIT = {"BASE_URL": "https://www.example.com", "ROBOTS_TXT_PATH": str(other)}
    run("--file", str(robots))
    assert robots.exists()
    assert not other.exists()


# ------------------------------------------------------------------ stale and other lines


@pytest.mark.parametrize(
    ("base_url", "stale"),
    [
        pytest.param(
            "https://www.example.com", b"http://www.example.com/sitemap.xml", id="http-to-https"
        ),
        pytest.param("https://www.example.com", b"https://example.com/sitemap.xml", id="www-added"),
        pytest.param(
            "https://example.com", b"https://www.example.com/sitemap.xml", id="www-dropped"
        ),
        pytest.param(
            "https://www.example.com", b"https://www.example.com/blog/sitemap.xml", id="old-prefix"
        ),
    ],
)
def test_stale_line_replaced_in_place(
    robots: Path, settings: Any, base_url: str, stale: bytes
) -> None:
    settings.SITEMAPKIT = {"BASE_URL": base_url}
    robots.write_bytes(b"User-agent: *\r\nDisallow:\r\n\r\nSitemap: " + stale + b"\r\n# end\r\n")
    out = run("--file", str(robots))
    index = f"{base_url}/sitemap.xml".encode()
    assert (
        robots.read_bytes()
        == b"User-agent: *\r\nDisallow:\r\n\r\nSitemap: " + index + b"\r\n# end\r\n"
    )
    assert out == f"Replaced stale {stale.decode()} with {index.decode()} in {robots}.\n"


def test_other_sitemaps_kept(robots: Path) -> None:
    original = (
        b"User-agent: *\n"
        b"Disallow:\n"
        b"\n"
        b"Sitemap: https://www.example.com/news-sitemap.xml\n"
        b"Sitemap: https://blog.example.org/sitemap.xml\n"
    )
    robots.write_bytes(original)
    run("--file", str(robots))
    assert robots.read_bytes() == original + LINE + b"\n"


def test_equivalent_line_left_alone(robots: Path) -> None:
    original = (
        b"User-agent: *\nDisallow:\n\nsitemap :  https://www.example.com/sitemap.xml  # ours\n"
    )
    robots.write_bytes(original)
    mtime = age(robots)
    run("--file", str(robots))
    assert robots.read_bytes() == original
    assert robots.stat().st_mtime_ns == mtime


def test_stale_duplicate_removed_when_already_listed(robots: Path) -> None:
    robots.write_bytes(b"Sitemap: http://example.com/sitemap.xml\n" + LINE + b"\n")
    out = run("--file", str(robots))
    assert robots.read_bytes() == LINE + b"\n"
    assert out.startswith("Removed stale http://example.com/sitemap.xml from ")


# ------------------------------------------------------------------ --check


def test_check_passes_when_listed(robots: Path) -> None:
    robots.write_bytes(b"User-agent: *\n\n" + LINE + b"\n")
    mtime = age(robots)
    assert (
        run("--check", "--file", str(robots))
        == f"{robots} lists https://www.example.com/sitemap.xml.\n"
    )
    assert robots.stat().st_mtime_ns == mtime


def test_check_fails_when_missing_and_writes_nothing(robots: Path) -> None:
    robots.write_bytes(ROBOTS_CRLF)
    mtime = age(robots)
    with pytest.raises(
        CommandError, match=re.escape("has no 'Sitemap: https://www.example.com/sitemap.xml' line")
    ) as exc:
        run("--check", "--file", str(robots))
    assert exc.value.returncode == 1
    assert robots.read_bytes() == ROBOTS_CRLF
    assert robots.stat().st_mtime_ns == mtime


def test_check_fails_on_a_stale_line(robots: Path) -> None:
    robots.write_bytes(b"Sitemap: http://www.example.com/sitemap.xml\n")
    with pytest.raises(
        CommandError, match=r"stale sitemap index \(http://www.example.com/sitemap.xml\)"
    ):
        run("--check", "--file", str(robots))


def test_check_fails_on_a_missing_file_without_creating_it(robots: Path) -> None:
    with pytest.raises(CommandError, match="does not exist"):
        run("--check", "--file", str(robots))
    assert not robots.exists()


def test_check_exit_status_from_the_command_line(robots: Path, capsys: Any) -> None:
    robots.write_bytes(b"User-agent: *\n")
    with pytest.raises(SystemExit) as exc:
        Command().run_from_argv(
            ["manage.py", "sitemapkit_robots", "--check", "--file", str(robots)]
        )
    assert exc.value.code == 1
    assert "has no 'Sitemap: " in capsys.readouterr().err
    run("--file", str(robots))
    Command().run_from_argv(["manage.py", "sitemapkit_robots", "--check", "--file", str(robots)])


# ------------------------------------------------------------------ --print and --dry-run


def test_print_prints_the_line_only(robots: Path, settings: Any) -> None:
    settings.SITEMAPKIT = {"BASE_URL": "https://www.example.com"}  # no file configured
    assert run("--print") == LINE.decode() + "\n"
    assert run("--print", "--file", str(robots), verbosity=0) == LINE.decode() + "\n"
    assert not robots.exists()


def test_dry_run_shows_a_diff_and_leaves_the_file_untouched(robots: Path) -> None:
    robots.write_bytes(ROBOTS_CRLF)
    mtime = age(robots)
    out = run("--dry-run", "--file", str(robots))
    assert robots.read_bytes() == ROBOTS_CRLF
    assert robots.stat().st_mtime_ns == mtime
    assert f"--- {robots}\n+++ {robots}\n" in out
    assert " Disallow: /\n+\n+Sitemap: https://www.example.com/sitemap.xml\n" in out
    assert out.endswith(f"Dry run, nothing written: Would add '{LINE.decode()}' to {robots}.\n")


def test_dry_run_does_not_create_a_missing_file(robots: Path) -> None:
    out = run("--dry-run", "--file", str(robots))
    assert not robots.exists()
    assert "--- /dev/null" in out
    assert "(creating the file)" in out


def test_dry_run_on_a_stale_line(robots: Path) -> None:
    robots.write_bytes(b"Sitemap: http://www.example.com/sitemap.xml\n")
    out = run("--dry-run", "--file", str(robots))
    assert (
        "-Sitemap: http://www.example.com/sitemap.xml\n+Sitemap: https://www.example.com/sitemap.xml"
        in out
    )
    assert robots.read_bytes() == b"Sitemap: http://www.example.com/sitemap.xml\n"


def test_modes_are_exclusive(robots: Path) -> None:
    with pytest.raises(CommandError, match="not allowed with argument"):
        run("--check", "--dry-run", "--file", str(robots))


# ------------------------------------------------------------------ verbosity


def test_verbosity_zero_is_silent(robots: Path) -> None:
    assert run("--file", str(robots), verbosity=0) == ""
    assert run("--file", str(robots), verbosity=0) == ""
    assert robots.read_bytes() == LINE + b"\n"


def test_verbosity_two_gives_details(robots: Path) -> None:
    robots.write_bytes(ROBOTS_CRLF)
    out = run("--file", str(robots), verbosity=2)
    assert out.splitlines() == [
        "Index URL: https://www.example.com/sitemap.xml",
        f"File: {robots} ({len(ROBOTS_CRLF)} bytes, CRLF line endings)",
        f"Wrote {len(ROBOTS_CRLF + ADDED_CRLF)} bytes to {robots} (atomic replace).",
        f"Added '{LINE.decode()}' to {robots}.",
    ]


# ------------------------------------------------------------------ writing


@pytest.mark.skipif(os.name != "posix", reason="POSIX permission bits")
def test_permissions_preserved(robots: Path) -> None:
    robots.write_bytes(b"User-agent: *\n")
    robots.chmod(0o604)
    run("--file", str(robots))
    assert stat.S_IMODE(robots.stat().st_mode) == 0o604


def test_atomic_write_leaves_no_temporary_files(robots: Path, tmp_path: Path) -> None:
    robots.write_bytes(ROBOTS_CRLF)
    run("--file", str(robots))
    run("--base-url", "https://example.org", "--file", str(robots))
    assert sorted(tmp_path.iterdir()) == [robots]


def test_write_failure_is_a_command_error(robots: Path, tmp_path: Path, monkeypatch: Any) -> None:
    robots.write_bytes(b"User-agent: *\n")

    def refuse(src: str, dst: str) -> None:
        raise PermissionError(13, "Permission denied")

    # Simulated: the suite may run as root, which no chmod would stop.
    monkeypatch.setattr(os, "replace", refuse)
    with pytest.raises(CommandError, match=re.escape(f"Cannot write {robots}: Permission denied.")):
        run("--file", str(robots))
    monkeypatch.undo()
    assert robots.read_bytes() == b"User-agent: *\n"
    assert sorted(tmp_path.iterdir()) == [robots]


# ------------------------------------------------------------------ configuration errors


def test_no_file_configured(settings: Any) -> None:
    settings.SITEMAPKIT = {"BASE_URL": "https://www.example.com"}
    with pytest.raises(
        CommandError, match=r"pass --file PATH or set SITEMAPKIT\['ROBOTS_TXT_PATH'\]"
    ):
        run()


def test_missing_directory(tmp_path: Path) -> None:
    path = tmp_path / "nowhere" / "robots.txt"
    with pytest.raises(
        CommandError, match=re.escape(f"the directory {tmp_path / 'nowhere'} does not exist")
    ):
        run("--file", str(path))


def test_file_is_a_directory(tmp_path: Path) -> None:
    with pytest.raises(CommandError, match="is a directory"):
        run("--file", str(tmp_path))


@pytest.mark.parametrize("sitemapkit", [{}, {"BASE_URL": None}, {"BASE_URL": ""}])
def test_base_url_missing(robots: Path, settings: Any, sitemapkit: dict[str, Any]) -> None:
    settings.SITEMAPKIT = sitemapkit
    with pytest.raises(CommandError, match=r"SITEMAPKIT\['BASE_URL'\] is not set"):
        run("--file", str(robots))
    with pytest.raises(CommandError, match=r"SITEMAPKIT\['BASE_URL'\] is not set"):
        run("--print")
    assert not robots.exists()


@pytest.mark.parametrize(
    "base_url", ["www.example.com", "ftp://example.com", "https://example.com/?q=1"]
)
def test_base_url_malformed(robots: Path, settings: Any, base_url: str) -> None:
    settings.SITEMAPKIT = {"BASE_URL": base_url}
    with pytest.raises(CommandError, match=r"SITEMAPKIT\['BASE_URL'\] is malformed: "):
        run("--file", str(robots))
    assert not robots.exists()


def test_base_url_option(robots: Path) -> None:
    run("--base-url", "https://Shop.Example.org/store/", "--file", str(robots))
    assert robots.read_bytes() == b"Sitemap: https://shop.example.org/store/sitemap.xml\n"
    with pytest.raises(CommandError, match="--base-url is malformed"):
        run("--base-url", "nonsense", "--print")


@pytest.mark.urls("tests.urls_without_sitemapkit")
def test_index_at_the_root_when_the_views_are_not_routed(robots: Path) -> None:
    # A web server serves the built files; the build puts the index at the root.
    run("--file", str(robots))
    assert robots.read_bytes() == LINE + b"\n"
    output = run("--print", "--base-url", "https://www.example.com/shop")
    assert output == "Sitemap: https://www.example.com/shop/sitemap.xml\n"


@pytest.mark.urls("tests.urls_sitemapkit_in_directory")
def test_index_where_the_views_are_routed(robots: Path) -> None:
    assert run("--print") == "Sitemap: https://www.example.com/sitemapkit/sitemap.xml\n"


# Another app's URLs under the 'sitemapkit' namespace, for the test below.
urlpatterns: list[Any] = [path("other/", include(([], "sitemapkit")))]


@pytest.mark.urls(__name__)
def test_namespace_taken_by_other_urls(robots: Path) -> None:
    with pytest.raises(CommandError, match=re.escape("namespace must be the one of")):
        run("--file", str(robots))
