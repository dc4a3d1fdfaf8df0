"""Skip warnings: once per ``one_render()`` (which may read a list twice), MAX_PER_SECTION a
section (a broken ``location()`` skips all), then a count; remembered per page (``new_page()``)."""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field

logger = logging.getLogger("django_sitemapkit")

MAX_PER_SECTION = 10  # skip warnings logged per section in one render; the rest are counted


@dataclass
class _SkipLog:
    seen: dict[str | None, set[tuple[str, str]]] = field(default_factory=dict)
    warnings: Counter[str | None] = field(default_factory=Counter)


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
        for section, count in log.warnings.items():
            if count > MAX_PER_SECTION:
                logger.warning(
                    "Sitemap section %r: ... and %d more skipped.", section, count - MAX_PER_SECTION
                )


def new_page(section: str | None) -> None:
    """A page of ``section`` whose rows are read once is starting: forget its earlier skips."""
    log = _current.get()
    if log is not None:
        log.seen.pop(section, None)


def log_skip(section: str | None, item: str, reason: str, *, quiet: bool = False) -> None:
    """Log a skip of ``item`` once per render (at debug level when ``quiet``: expected)."""
    log = _current.get()
    if log is not None:
        seen = log.seen.setdefault(section, set())
        if (item, reason) in seen:
            return
        seen.add((item, reason))
        if not quiet:
            log.warnings[section] += 1
            if log.warnings[section] > MAX_PER_SECTION:
                return
    logger.log(
        logging.DEBUG if quiet else logging.WARNING,
        "Sitemap section %r: %s %s: %s.",
        section,
        "left out" if quiet else "skipped",
        item,
        reason,
    )
