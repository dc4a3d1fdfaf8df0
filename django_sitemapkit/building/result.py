"""What a build reports: its figures (``BuildResult``), its failure (``BuildError``), its progress."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field


class BuildError(Exception):
    """The build failed; nothing was published."""


@dataclass
class BuildResult:
    # Sections whose pages this build rendered or checked, and sections whose
    # published files it kept without looking (those --section left out).
    sections: int = 0
    sections_kept: int = 0
    written: list[str] = field(default_factory=list)
    unchanged: int = 0
    removed: list[str] = field(default_factory=list)
    urls: int = 0
    skipped: int = 0
    # Entries of the pages rendered by this build listed without their
    # lastmod, which could not be written.
    lastmods_dropped: int = 0
    # Images left out of the pages rendered (past 1,000 per URL, or not URLs).
    images_dropped: int = 0
    # Bytes of the files rendered, and of the files written (.gz included).
    bytes: int = 0
    bytes_written: int = 0
    seconds: float = 0.0
    dry_run: bool = False
    published: bool = False
    cleaned: int = 0
    # Why a build asked for some sections rebuilt every one, if it did.
    every_section_because: str | None = None
    # Sections built besides those asked for, because the last build published
    # no page of theirs (registered since, or empty then), that have pages now.
    first_published: list[str] = field(default_factory=list)
    # Sections rendered again whole because their sitemap class, URL patterns
    # or output settings changed since the last build.
    reconfigured: list[str] = field(default_factory=list)
    # Rows of the change log (CHANGE_LOG) this build read and is done with.
    changes_read: int = 0

    def summary(self) -> str:
        verb = "would be written" if self.dry_run else "written"
        kept = f", {self.sections_kept} kept" if self.sections_kept else ""
        return (
            f"{self.sections} section{'s' if self.sections != 1 else ''} built{kept}: "
            f"{len(self.written)} files {verb}, {self.unchanged} unchanged, "
            f"{len(self.removed)} removed; {self.urls:,} URLs ({self.skipped:,} skipped"
            f"{self._dropped()}), {self.bytes_written:,} bytes {verb} "
            f"({self.bytes:,} rendered) in {self.seconds:.2f} s.{self._changes()}"
        )

    def count_skipped(self, count: int) -> None:
        self.skipped += count

    def _changes(self) -> str:
        if not self.changes_read:
            return ""
        rows = "row" if self.changes_read == 1 else "rows"
        return f" {self.changes_read:,} change-log {rows} read."

    def _dropped(self) -> str:
        text = ""
        if self.lastmods_dropped:
            text += f", {self.lastmods_dropped:,} without their unwritable lastmod"
        if self.images_dropped:
            text += f", {self.images_dropped:,} images dropped"
        return text


# Told (pages done, pages in all) as each page of a build is done.
Progress = Callable[[int, int], None]


class PageProgress:
    """Pages done out of the pages to do, told to ``progress`` as each one is done."""

    def __init__(self, progress: Progress | None, total: int) -> None:
        self._progress = progress
        self._total = total
        self._done = 0

    def advance(self) -> None:
        self._done += 1
        if self._progress is not None:
            # Pages split off while rendering come on top of the total.
            self._progress(self._done, max(self._total, self._done))
