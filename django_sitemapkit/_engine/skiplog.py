"""Skip warnings: each skipped item logged once per render, and at most a few per section.

One render passes over a section's items more than once (a list section is
measured entry by entry to cut its pages, then the page is written), and a
section with a broken ``location()`` skips every item: without this, one
render logs the same skip several times, and a large section floods the log.
Within ``one_render()``, a skip (section, item, reason) is logged once, and
each section logs at most :data:`MAX_PER_SECTION` skip warnings, then one
line saying how many more it skipped, as the validator caps its findings.
Outside a render (an entry built on its own) every skip is logged.

What is remembered for that is bounded: a model or QuerySet section reads
each row once per page, so its skips are remembered only for the page being
read (``new_page()`` forgets them), never for a whole build of millions of
rows; a list section's, for the render (its items are in memory anyway).
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

logger = logging.getLogger("django_sitemapkit")

#: Skip warnings logged per section in one render; the rest are counted.
MAX_PER_SECTION = 10


class _SkipLog:
    """The skips of one render: those logged, and each section's warnings."""

    def __init__(self) -> None:
        # Per section, the (item, reason) of each skip logged (see the module).
        self.seen: dict[str | None, set[tuple[str, str]]] = {}
        self.warnings: Counter[str | None] = Counter()

    def report(self, section: str | None, item: str, reason: str, quiet: bool) -> None:
        seen = self.seen.setdefault(section, set())
        if (item, reason) in seen:
            return
        seen.add((item, reason))
        if not quiet:
            self.warnings[section] += 1
            if self.warnings[section] > MAX_PER_SECTION:
                return
        _log(section, item, reason, quiet)

    def close(self) -> None:
        for section, count in self.warnings.items():
            if count > MAX_PER_SECTION:
                logger.warning(
                    "Sitemap section %r: ... and %d more skipped.",
                    section,
                    count - MAX_PER_SECTION,
                )


_current: ContextVar[_SkipLog | None] = ContextVar("sitemapkit_skip_log", default=None)


@contextmanager
def one_render() -> Iterator[None]:
    """Log the skips within as one render's (see the module); nested, the outer render's."""
    if _current.get() is not None:
        yield
        return
    log = _SkipLog()
    token = _current.set(log)
    try:
        yield
    finally:
        _current.reset(token)
        log.close()


def new_page(section: str | None) -> None:
    """A page of ``section`` whose rows are read once is starting: forget its earlier skips."""
    log = _current.get()
    if log is not None:
        log.seen.pop(section, None)


def remembered() -> int:
    """How many skips the current render remembers (0 outside one): what it holds in memory."""
    log = _current.get()
    return 0 if log is None else sum(map(len, log.seen.values()))


def log_skip(section: str | None, item: str, reason: str, *, quiet: bool = False) -> None:
    """Log that ``item`` of ``section`` was skipped for ``reason`` (at debug level when
    ``quiet``: expected), once per render."""
    log = _current.get()
    if log is None:
        _log(section, item, reason, quiet)
    else:
        log.report(section, item, reason, quiet)


def _log(section: str | None, item: str, reason: str, quiet: bool) -> None:
    logger.log(
        logging.DEBUG if quiet else logging.WARNING,
        "Sitemap section %r: %s %s: %s.",
        section,
        "left out" if quiet else "skipped",
        item,
        reason,
    )
