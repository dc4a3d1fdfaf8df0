"""The URLs a set has listed so far, in bounded memory: for the ``duplicate`` rule.

A URL is remembered by an 8-byte fingerprint (BLAKE2b) with the number of
the file that listed it first, in an open-addressing table of two arrays:
20 to 40 bytes a URL, where a dict of URLs took 135. The table doubles as it
fills, up to :data:`MAX_TRACKED` URLs (20 MB); past that, every URL is
still checked against those, and against the URLs of its own file, which
the protocol caps at 50,000 (a file holding more is reported as too large,
its URLs past 50,000 are not remembered).
"""

from __future__ import annotations

import hashlib
from array import array

from django_sitemapkit.protocol.writer import MAX_ENTRIES_PER_FILE

# The URLs of a set remembered for the duplicate rule across files: twenty full files.
MAX_TRACKED = 1_000_000
_FIRST_SLOTS = 1 << 16


def fingerprint(url: str) -> int:
    """A URL's 8-byte fingerprint, never 0 (the mark of an empty slot)."""
    return int.from_bytes(hashlib.blake2b(url.encode(), digest_size=8).digest()) or 1


class SeenUrls:
    """Which file first listed each URL of a set; bounded whatever the set's size."""

    def __init__(self, limit: int = MAX_TRACKED) -> None:
        self.limit = limit
        self.count = 0
        self._keys, self._files = array("Q"), array("H")  # file numbers: at most 50,001
        self._resize(_FIRST_SLOTS)
        # The URLs of the current file once the table is full.
        self._file = -1
        self._overflow: set[int] = set()

    def first(self, url: str, file: int) -> int | None:
        """The number of the file that listed ``url`` before, else None (and it is remembered)."""
        key = fingerprint(url)
        slot = self._slot(key)
        if self._keys[slot]:
            return self._files[slot]
        if self.count < self.limit:
            self._keys[slot], self._files[slot] = key, file
            self.count += 1
            if 2 * self.count > len(self._keys):
                self._resize(2 * len(self._keys))
            return None
        if file != self._file:
            self._file, self._overflow = file, set()
        if key in self._overflow:
            return file
        if len(self._overflow) < MAX_ENTRIES_PER_FILE:
            self._overflow.add(key)
        return None

    def _slot(self, key: int) -> int:
        """The slot holding ``key``, or the empty one where it would go."""
        mask = len(self._keys) - 1
        slot = key & mask
        while self._keys[slot] and self._keys[slot] != key:
            slot = (slot + 1) & mask
        return slot

    def _resize(self, slots: int) -> None:
        old = self._keys, self._files
        self._keys, self._files = array("Q", [0]) * slots, array("H", [0]) * slots
        for key, file in zip(*old, strict=True):
            if key:
                slot = self._slot(key)
                self._keys[slot], self._files[slot] = key, file
