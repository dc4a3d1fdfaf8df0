"""The URL diff: changed entries found across every page a build wrote, moves across pages not."""

from __future__ import annotations

from xml.sax.saxutils import escape

from hypothesis import given
from hypothesis import strategies as st

from django_sitemapkit._indexnow import UrlDiff, entries

HEAD = b'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'


def page(items: list[tuple[str, str]]) -> bytes:
    body = "".join(
        f"<url><loc>{escape(loc)}</loc><lastmod>{lastmod}</lastmod></url>\n"
        for loc, lastmod in items
    )
    return HEAD + body.encode() + b"</urlset>\n"


def diff(old_pages: list[bytes | None], new_pages: list[bytes | None]) -> list[str]:
    urls = UrlDiff()
    for old, new in zip(old_pages, new_pages, strict=True):
        urls.page(old, new)
    return urls.changed()


def test_entries_read_the_location_unescaped_and_the_whole_entry() -> None:
    xml = (
        HEAD + b"<url><loc>https://e.com/?a=1&amp;b=&quot;2&quot;</loc>"
        b"<image:image><image:loc>https://e.com/i.png</image:loc></image:image></url>\n"
        b"<url><loc>https://e.com/x</loc><priority>0.5</priority></url>\n</urlset>\n"
    )
    found = dict(entries(xml))
    assert sorted(found) == ['https://e.com/?a=1&b="2"', "https://e.com/x"]
    changed = xml.replace(b"i.png", b"j.png")
    assert dict(entries(changed))["https://e.com/x"] == found["https://e.com/x"]
    assert dict(entries(changed))['https://e.com/?a=1&b="2"'] != found['https://e.com/?a=1&b="2"']
    assert list(entries(None)) == [] and list(entries(b"")) == []


def test_an_edit_an_insert_and_a_removal_are_changes_a_move_is_not() -> None:
    old = [page([("https://e.com/1", "2026-01-01"), ("https://e.com/2", "2026-01-01")])]
    old.append(page([("https://e.com/3", "2026-01-01"), ("https://e.com/4", "2026-01-01")]))
    new = [page([("https://e.com/2", "2026-01-01"), ("https://e.com/3", "2026-02-01")])]
    new.append(page([("https://e.com/4", "2026-01-01"), ("https://e.com/5", "2026-01-01")]))
    assert diff(old, new) == ["https://e.com/1", "https://e.com/3", "https://e.com/5"]


def test_a_removed_page_removes_its_urls_and_a_new_page_adds_its_own() -> None:
    gone = page([("https://e.com/a", "2026-01-01")])
    came = page([("https://e.com/b", "2026-01-01")])
    assert diff([gone, None], [None, came]) == ["https://e.com/a", "https://e.com/b"]


_LOCS = st.sampled_from([f"https://e.com/{c}?q=<&>" for c in "abcdefghij"])
_SITE = st.dictionaries(_LOCS, st.sampled_from(["2026-01-01", "2026-01-02"]))


@given(old=_SITE, new=_SITE, old_size=st.integers(1, 4), new_size=st.integers(1, 4))
def test_the_changed_urls_are_those_added_removed_or_edited_however_paged(
    old: dict[str, str], new: dict[str, str], old_size: int, new_size: int
) -> None:
    def paged(urls: dict[str, str], size: int) -> list[bytes | None]:
        items = sorted(urls.items())
        return [page(items[i : i + size]) for i in range(0, len(items), size)]

    old_pages, new_pages = paged(old, old_size), paged(new, new_size)
    length = max(len(old_pages), len(new_pages))
    old_pages += [None] * (length - len(old_pages))
    new_pages += [None] * (length - len(new_pages))
    expected = {url for url in old.keys() | new.keys() if old.get(url) != new.get(url)}
    assert diff(old_pages, new_pages) == sorted(expected)
