"""Tests for django_sitemapkit._serving.robots: the robots.txt edit, the atomic write, the view."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

import pytest
from django.test import Client
from hypothesis import example, given
from hypothesis import strategies as st

from django_sitemapkit._serving import robots
from django_sitemapkit._serving.robots import (
    Action,
    decode,
    dominant_line_ending,
    encode,
    plan_update,
    sitemap_line,
    split_lines,
    write_atomically,
)

INDEX = "https://www.example.com/sitemap.xml"
LINE = "Sitemap: https://www.example.com/sitemap.xml"

GROUPS = (
    "# robots.txt for www.example.com\n"
    "User-agent: *\n"
    "Disallow: /admin/\n"
    "\n"
    "User-agent: Googlebot  # more for Google\n"
    "Disallow:\n"
)


def add_sitemap_line(text: str, index_url: str) -> str:
    return plan_update(text, index_url).text


def with_endings(text: str, eol: str) -> str:
    return text.replace("\n", eol)


# ------------------------------------------------------------------ sitemap_line


def test_sitemap_line() -> None:
    assert sitemap_line(INDEX) == "Sitemap: https://www.example.com/sitemap.xml"


# ------------------------------------------------------------------ appending


def test_empty_file_becomes_the_line_and_a_newline() -> None:
    assert add_sitemap_line("", INDEX) == LINE + "\n"


@pytest.mark.parametrize("eol", ["\n", "\r\n", "\r"])
def test_appended_with_the_files_line_ending_after_a_blank_line(eol: str) -> None:
    text = with_endings(GROUPS, eol)
    assert add_sitemap_line(text, INDEX) == text + eol + LINE + eol


@pytest.mark.parametrize("eol", ["\n", "\r\n", "\r"])
def test_no_final_newline_stays_without_one(eol: str) -> None:
    text = with_endings(GROUPS, eol).removesuffix(eol)
    assert add_sitemap_line(text, INDEX) == text + eol + eol + LINE


def test_no_extra_blank_line_when_the_file_ends_with_one() -> None:
    text = GROUPS + "\n"
    assert add_sitemap_line(text, INDEX) == text + LINE + "\n"


def test_whitespace_only_last_line_counts_as_blank() -> None:
    text = GROUPS + "  \t\n"
    assert add_sitemap_line(text, INDEX) == text + LINE + "\n"


def test_joins_a_trailing_block_of_sitemap_lines() -> None:
    text = GROUPS + "\nSitemap: https://www.example.com/news-sitemap.xml\n"
    assert add_sitemap_line(text, INDEX) == text + LINE + "\n"


def test_single_line_without_newline() -> None:
    assert add_sitemap_line("User-agent: *", INDEX) == "User-agent: *\n\n" + LINE


def test_dominant_line_ending_wins_in_a_mixed_file() -> None:
    text = "User-agent: *\r\nDisallow: /a\r\nDisallow: /b\n"
    assert add_sitemap_line(text, INDEX) == text + "\r\n" + LINE + "\r\n"


def test_dominant_line_ending_tie_goes_to_the_first_met() -> None:
    assert dominant_line_ending(split_lines("a\rb\nc")) == "\r"
    assert dominant_line_ending(split_lines("abc")) == "\n"


def test_bom_is_kept_in_front() -> None:
    data = b"\xef\xbb\xbfUser-agent: *\nDisallow:\n"
    result = encode(add_sitemap_line(decode(data), INDEX))
    assert result == data + b"\n" + LINE.encode() + b"\n"


def test_bom_only_file_is_treated_as_empty() -> None:
    assert add_sitemap_line("\ufeff", INDEX) == "\ufeff" + LINE + "\n"


def test_sitemap_line_right_after_a_bom_is_recognised() -> None:
    text = "\ufeff" + LINE + "\n"
    assert add_sitemap_line(text, INDEX) == text


def test_undecodable_bytes_survive_byte_for_byte() -> None:
    data = b"# caf\xe9 \xff\xfe\r\nUser-agent: *\r\nDisallow: /\x80\r\n"
    result = encode(add_sitemap_line(decode(data), INDEX))
    assert result == data + b"\r\n" + LINE.encode() + b"\r\n"


def test_only_cr_and_lf_end_lines() -> None:
    # str.splitlines() would also split on these and lose them on the way back.
    text = "# a\x0cb\x1cc\u2028d\x85e\n"
    assert split_lines(text) == [("# a\x0cb\x1cc\u2028d\x85e", "\n")]
    assert add_sitemap_line(text, INDEX) == text + "\n" + LINE + "\n"


def test_repeated_application_changes_nothing_after_the_first() -> None:
    original = with_endings(GROUPS, "\r\n")
    text = original
    for _ in range(100):
        text = add_sitemap_line(text, INDEX)
    assert text == original + "\r\n" + LINE + "\r\n"


# ------------------------------------------------------------------ already present


@pytest.mark.parametrize(
    "line",
    [
        LINE,
        "sitemap: https://www.example.com/sitemap.xml",
        "SITEMAP : https://www.example.com/sitemap.xml",
        "Sitemap:https://www.example.com/sitemap.xml",
        "  Sitemap:\thttps://www.example.com/sitemap.xml  # ours",
    ],
)
def test_equivalent_line_is_left_as_written(line: str) -> None:
    text = GROUPS + "\n" + line + "\n"
    update = plan_update(text, INDEX)
    assert update.action is Action.UNCHANGED
    assert update.text == text


def test_present_line_anywhere_counts() -> None:
    text = LINE + "\r\n" + with_endings(GROUPS, "\r\n")
    assert add_sitemap_line(text, INDEX) == text


def test_url_must_match_exactly_to_count_as_present() -> None:
    # A different path case is another URL (paths are case-sensitive).
    text = "Sitemap: https://www.example.com/Sitemap.xml\n"
    assert add_sitemap_line(text, INDEX) == text + LINE + "\n"


def test_sitemap_field_without_a_url_is_not_an_entry() -> None:
    text = "Sitemap:   # to do\n"
    assert add_sitemap_line(text, INDEX) == text + "\n" + LINE + "\n"


# ------------------------------------------------------------------ stale lines


@pytest.mark.parametrize(
    ("index", "stale"),
    [
        pytest.param(INDEX, "http://www.example.com/sitemap.xml", id="http-to-https"),
        pytest.param(INDEX, "https://example.com/sitemap.xml", id="no-www-to-www"),
        pytest.param(
            "https://example.com/sitemap.xml",
            "https://www.example.com/sitemap.xml",
            id="www-to-no-www",
        ),
        pytest.param(INDEX, "https://www.example.com/shop/sitemap.xml", id="old-prefix"),
        pytest.param("https://www.example.com/shop/sitemap.xml", INDEX, id="prefix-added"),
        pytest.param(INDEX, "https://www.example.com/sitemap.xml.gz", id="gzip-twin"),
        pytest.param(INDEX, "HTTP://WWW.Example.COM:8080/old/sitemap.xml", id="case-and-port"),
    ],
)
def test_stale_line_is_replaced_in_place(index: str, stale: str) -> None:
    text = with_endings(f"User-agent: *\nDisallow:\n\nSitemap: {stale}\n# end\n", "\r\n")
    update = plan_update(text, index)
    assert update.action is Action.REPLACED
    assert update.stale == (stale,)
    assert update.text == text.replace(f"Sitemap: {stale}", sitemap_line(index))


def test_replaced_line_keeps_its_own_line_ending() -> None:
    text = "User-agent: *\n\nsitemap : http://example.com/sitemap.xml  # old"
    assert add_sitemap_line(text, INDEX) == "User-agent: *\n\n" + LINE


def test_further_stale_lines_are_removed() -> None:
    text = (
        "Sitemap: http://example.com/sitemap.xml\n"
        "User-agent: *\n"
        "Disallow:\n"
        "Sitemap: https://example.com/sitemap.xml.gz\n"
    )
    update = plan_update(text, INDEX)
    assert update.action is Action.REPLACED
    assert update.text == LINE + "\nUser-agent: *\nDisallow:\n"


def test_stale_lines_are_removed_when_the_index_is_already_listed() -> None:
    text = "User-agent: *\n\nSitemap: http://example.com/sitemap.xml\n" + LINE + "\n"
    update = plan_update(text, INDEX)
    assert update.action is Action.REMOVED_STALE
    assert update.stale == ("http://example.com/sitemap.xml",)
    assert update.text == "User-agent: *\n\n" + LINE + "\n"


def test_removing_the_unterminated_last_line_keeps_no_final_newline() -> None:
    text = LINE + "\nUser-agent: *\nSitemap: http://example.com/sitemap.xml"
    assert add_sitemap_line(text, INDEX) == LINE + "\nUser-agent: *"


@pytest.mark.parametrize(
    "other",
    [
        "https://www.example.com/news-sitemap.xml",
        "https://www.example.com/sitemap-products.xml",
        "https://www.example.com/sitemap.xml.bak",
        "https://cdn.example.net/sitemap.xml",
        "https://shop.example.com/sitemap.xml",
        "https://www.example.com/sitemap.xml?lang=fr",
        "ftp://www.example.com/sitemap.xml",
        "/sitemap.xml",
        "https://[::1/sitemap.xml",
    ],
)
def test_other_sitemaps_are_kept(other: str) -> None:
    text = f"User-agent: *\nDisallow:\n\nSitemap: {other}\n"
    assert add_sitemap_line(text, INDEX) == text + LINE + "\n"


# ------------------------------------------------------------------ properties

# Lines built from the pieces that matter: fields, URLs, whitespace, endings.
_PIECES = st.sampled_from(
    [
        "Sitemap:",
        "sitemap :",
        " ",
        "\t",
        "#",
        "User-agent: *",
        "Disallow: /",
        INDEX,
        "http://example.com/sitemap.xml",
        "https://www.example.com/news.xml",
        "\n",
        "\r\n",
        "\r",
        "\ufeff",
        "\udcff",
        "é",
    ]
)
_TEXTS = st.lists(_PIECES, max_size=30).map("".join)


@given(_TEXTS)
@example("Sitemap: http://example.com/sitemap.xml")
@example("\r\n\r")
def test_idempotent(text: str) -> None:
    once = add_sitemap_line(text, INDEX)
    assert add_sitemap_line(once, INDEX) == once


@given(_TEXTS)
def test_the_index_is_listed_and_nothing_stale_survives(text: str) -> None:
    once = add_sitemap_line(text, INDEX).removeprefix("\ufeff")
    urls = [robots.sitemap_url(content) for content, _ in split_lines(once)]
    assert INDEX in urls
    assert not [url for url in urls if url and url != INDEX and robots.is_stale(url, INDEX)]


@given(_TEXTS)
def test_an_append_keeps_the_original_as_a_prefix(text: str) -> None:
    update = plan_update(text, INDEX)
    if update.action is Action.ADDED:
        assert update.text.startswith(text)
        assert update.text.endswith(LINE + update.line_ending) or update.text.endswith(LINE)


@given(st.binary(max_size=200))
def test_decode_encode_round_trip(data: bytes) -> None:
    assert encode(decode(data)) == data


# ------------------------------------------------------------------ write_atomically


def test_write_atomically_creates_a_readable_file(tmp_path: Path) -> None:
    target = tmp_path / "robots.txt"
    write_atomically(target, b"User-agent: *\n")
    assert target.read_bytes() == b"User-agent: *\n"
    assert list(tmp_path.iterdir()) == [target]
    if os.name == "posix":
        assert stat.S_IMODE(target.stat().st_mode) == robots.NEW_FILE_MODE


@pytest.mark.skipif(os.name != "posix", reason="POSIX permission bits")
def test_write_atomically_keeps_permission_bits(tmp_path: Path) -> None:
    target = tmp_path / "robots.txt"
    target.write_bytes(b"old\n")
    target.chmod(0o640)
    write_atomically(target, b"new\n")
    assert target.read_bytes() == b"new\n"
    assert stat.S_IMODE(target.stat().st_mode) == 0o640


def test_write_atomically_cleans_up_on_error(tmp_path: Path, monkeypatch: Any) -> None:
    target = tmp_path / "robots.txt"
    target.write_bytes(b"old\n")

    def failing_replace(src: str, dst: str) -> None:
        raise OSError("disk on fire")

    monkeypatch.setattr(os, "replace", failing_replace)
    with pytest.raises(OSError, match="disk on fire"):
        write_atomically(target, b"new\n")
    assert target.read_bytes() == b"old\n"
    assert list(tmp_path.iterdir()) == [target]


@pytest.mark.skipif(os.name != "posix", reason="symlinks")
def test_write_atomically_follows_a_symlink(tmp_path: Path) -> None:
    real = tmp_path / "real.txt"
    real.write_bytes(b"old\n")
    link = tmp_path / "robots.txt"
    link.symlink_to(real)
    write_atomically(link, b"new\n")
    assert link.is_symlink()
    assert real.read_bytes() == b"new\n"


# ------------------------------------------------------------------ the view

EXPECTED_BODY = "User-agent: *\nDisallow:\n\nSitemap: https://www.example.com/sitemap.xml\n"


@pytest.mark.urls("tests.robots_urls")
def test_view_serves_a_minimal_robots_txt(client: Client) -> None:
    response = client.get("/robots.txt")
    assert response.status_code == 200
    assert response["Content-Type"] == "text/plain; charset=utf-8"
    assert response.content.decode() == EXPECTED_BODY


@pytest.mark.urls("tests.robots_urls")
def test_view_body_is_what_the_command_would_add_to_an_empty_file(client: Client) -> None:
    body = client.get("/robots.txt").content.decode()
    assert add_sitemap_line(body, INDEX) == body


@pytest.mark.urls("tests.robots_urls")
def test_view_uses_the_base_url_prefix(client: Client, settings: Any) -> None:
    settings.SITEMAPKIT = {"BASE_URL": "https://shop.example.com/store/"}
    body = client.get("/robots.txt").content.decode()
    assert body.endswith("\nSitemap: https://shop.example.com/store/sitemap.xml\n")


@pytest.mark.urls("tests.robots_urls")
def test_view_head(client: Client) -> None:
    response = client.head("/robots.txt")
    assert response.status_code == 200
    assert response["Content-Type"] == "text/plain; charset=utf-8"


@pytest.mark.urls("tests.robots_urls")
@pytest.mark.parametrize("method", ["post", "put", "delete"])
def test_view_refuses_unsafe_methods(client: Client, method: str) -> None:
    assert getattr(client, method)("/robots.txt").status_code == 405
