"""Which pages of a section hold the rows a change log names (see changelog.py).

An incremental build under ``CHANGE_LOG`` scans these pages only, instead of
every page of the section: each noted key lies in exactly one page's range.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Collection, Sequence
from typing import Any

from django_sitemapkit.engine.pages import Page


class PagesHolding:
    """A page choice for ``KeysetPages.summaries``: the pages to scan again after ``keys`` changed.

    Those are the pages holding one of ``keys``, and any page numbered past
    those the last build published (``known``): a page split off since, with
    the page it was split from (a split takes the next free number). A page
    below them that the last build did not publish was empty then; only a
    key brings it back. Should a page the last build published be recorded
    no more, every page is chosen.

    Keys are compared in Python: the caller asks only for integer keys, which
    every database orders the same way.
    """

    def __init__(
        self, keys: Collection[str], known: Collection[int], to_key: Callable[[str], Any]
    ) -> None:
        self.keys = keys
        self.known = frozenset(known)
        self.to_key = to_key
        #: The keys of each page holding some, by page number, as last chosen.
        self.by_page: dict[int, list[str]] = {}
        #: The pages new or cut short since the last build, as last chosen: their ranges
        #: are not those of the last build's records.
        self.reshaped: set[int] = set()

    def __call__(self, pages: Sequence[Page]) -> set[int]:
        numbers = {page.number for page in pages}
        if not self.known <= numbers:
            self.by_page = {}
            self.reshaped = numbers
            return numbers
        newest = max(self.known, default=0)
        new = {page.number: page.start_key for page in pages if page.number > newest}
        new_starts = {start for start in new.values() if start is not None}
        chosen = set(new) | {page.number for page in pages if page.end_key in new_starts}
        self.reshaped = chosen
        # Page 1 is open below; the others, by where they start.
        first = min(numbers)
        bounds = sorted(
            (self.to_key(page.start_key), page.number)
            for page in pages
            if page.start_key is not None
        )
        starts = [start for start, _number in bounds]
        self.by_page = {}
        for key in self.keys:
            index = bisect.bisect_right(starts, self.to_key(key)) - 1
            self.by_page.setdefault(first if index < 0 else bounds[index][1], []).append(key)
        return chosen | set(self.by_page)
