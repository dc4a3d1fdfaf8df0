"""Which URLs a build changed: the ``<url>`` entries of the pages it overwrote, old and new.

A URL is changed when it is new, gone, or its entry (``<loc>``, ``<lastmod>``
and everything else between ``<url>`` and ``</url>``) differs. The diff runs
over every page the build wrote, not page by page: a URL moved from one page to
another (a page split) with the same entry is no change.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator
from xml.sax.saxutils import unescape

# Entries as the writer makes them; text is escaped, so no "<" but a tag's.
_ENTRY = re.compile(rb"<url>(.*?)</url>", re.DOTALL)
_LOC = re.compile(rb"<loc>([^<]*)</loc>")
_ENTITIES = {"&quot;": '"', "&apos;": "'"}


def entries(xml: bytes | None) -> Iterator[tuple[str, bytes]]:
    """Each ``<url>`` of a ``<urlset>`` file: its location and a digest of the whole entry."""
    if not xml:
        return
    for match in _ENTRY.finditer(xml):
        loc = _LOC.search(match.group(1))
        if loc is not None:
            url = unescape(loc.group(1).decode("utf-8").strip(), _ENTITIES)
            yield url, hashlib.blake2b(match.group(1), digest_size=16).digest()


class UrlDiff:
    """The URLs whose entries differ between the old and new bytes of the pages given.

    Entries equal on the same page cancel at once, so what is held is only
    the URLs that changed or moved: a build's diff costs memory in
    proportion to its changes, not to the pages it rewrote.
    """

    def __init__(self) -> None:
        self._edited: set[str] = set()
        # URLs only in an old page, or only in a new one, with their entry's digest.
        self._gone: dict[str, bytes] = {}
        self._came: dict[str, bytes] = {}

    def page(self, old: bytes | None, new: bytes | None) -> None:
        """Compare a page's old bytes (None: it is new) with its new ones (None: removed)."""
        before = dict(entries(old))
        for url, digest in entries(new):
            was = before.pop(url, None)
            if was is None:
                self._came[url] = digest
            elif was != digest:
                self._edited.add(url)
        self._gone.update(before)

    def changed(self) -> list[str]:
        """Every URL added, edited or removed, sorted."""
        urls = set(self._edited)
        for url in self._gone.keys() | self._came.keys():
            digest = self._gone.get(url)
            if digest is None or digest != self._came.get(url):
                urls.add(url)
        return sorted(urls)
