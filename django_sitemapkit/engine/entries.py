"""Turning items into ``<url>`` elements: the per-row half of rendering a section."""

from __future__ import annotations

import datetime
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django_sitemapkit.engine.extensions import (
    EntryRejected,
    Extensions,
    max_entries,
    namespaces,
)
from django_sitemapkit.engine.skiplog import log_skip
from django_sitemapkit.engine.urltemplates import UrlTemplate
from django_sitemapkit.protocol.locations import InvalidLocation, LocationBuilder
from django_sitemapkit.protocol.w3c import Lastmod, format_lastmod, is_w3c_datetime
from django_sitemapkit.protocol.writer import (
    MAX_BYTES_PER_FILE,
    UrlsetWriter,
    changefreq_value,
    escape,
    format_priority,
    needs_escape,
    priority_value,
)
from django_sitemapkit.sitemaps import Sitemap

logger = logging.getLogger("django_sitemapkit")

# The "item" of a constant value, which warnings name as such.
EVERY_ITEM = object()


@dataclass
class RenderContext:
    """What turning items into entries needs: fixed for one render."""

    locations: LocationBuilder
    tz: datetime.tzinfo
    # The href of the XSL stylesheet every file references, or None.
    stylesheet: str | None = None


@dataclass(frozen=True)
class ItemAccess:
    """How to read each part of an entry from one item, fixed for a whole file.

    A value is either a constant or a callable taking the item; sitemaps
    resolve their attribute-or-method API into this once per file instead of
    once per row.
    """

    location: Callable[[Any], Any]
    lastmod: Callable[[Any], Lastmod | None]
    changefreq: str | Callable[[Any], str | None] | None
    priority: float | Callable[[Any], float | None] | None
    describe: Callable[[Any], str] = repr
    # The URL template of column rows, built once per file and shared with the
    # fused row loop.
    url_template: UrlTemplate | None = None
    # The location of an item in a language, for i18n sections whose
    # locations do not come from calling location() under that language.
    localized: Callable[[str], Callable[[Any], Any]] | None = None


class EntryFactory:
    """Turns each item of one sitemap into its ``<url>`` element, or a logged skip.

    Everything that is the same for every item -- attribute-or-method
    lookups, constant ``changefreq``/``priority`` elements, the time zone --
    is settled once per file, so the per-row work is reading the item and
    formatting two values. The date format of a file is fixed by its first
    lastmod, so a file never mixes formats.
    """

    def __init__(
        self,
        sitemap: Sitemap,
        context: RenderContext,
        access: ItemAccess,
        *,
        date_only: bool | None = None,
    ) -> None:
        self.sitemap = sitemap
        self.context = context
        self.tz = context.tz
        self.access = access
        self.location = access.location
        self.build_location = context.locations.build
        self.lastmod = access.lastmod
        self.date_only = date_only
        self.changefreq_attr = access.changefreq
        self.priority_attr = access.priority
        # Constant elements are formatted once; a method is called per item.
        self.changefreq_xml = (
            ""
            if callable(access.changefreq)
            else self._changefreq_xml(EVERY_ITEM, access.changefreq)
        )
        self.priority_xml = (
            "" if callable(access.priority) else self._priority_xml(EVERY_ITEM, access.priority)
        )
        # Images, videos, news and extra_xml(): whether any, and the XML of each item.
        self.extensions = Extensions(
            sitemap, context.locations.base_url, context.tz, access.describe
        )
        self.has_extra_xml = self.extensions.active
        # Whether details() differ per item; when not, they are formatted once.
        self.details_vary = (
            callable(access.changefreq) or callable(access.priority) or self.has_extra_xml
        )
        self.constant_details = self.changefreq_xml + self.priority_xml
        self.skipped = 0
        # Entries listed without the lastmod they had, because it could not be
        # written (see lastmod_xml()).
        self.lastmods_dropped = 0
        # The location and lastmod value of the last entry built, so callers
        # can check for duplicates and track a file's newest lastmod without
        # asking the sitemap twice.
        self.last_loc = ""
        self.last_lastmod: Lastmod | None = None

    def format_lastmod(self, value: Lastmod) -> str:
        if not isinstance(value, datetime.date):
            raise TypeError(f"{type(value).__name__} is not a date or datetime")
        if self.date_only is None:
            self.date_only = not isinstance(value, datetime.datetime)
        if not self.date_only and type(value) is datetime.datetime and value.tzinfo is self.tz:
            # Already in the site's zone (database values usually are): the
            # common case, without the general conversion's calls.
            text = value.isoformat(timespec="seconds")
            if is_w3c_datetime(text):
                return text
        return format_lastmod(value, self.tz, date_only=self.date_only)

    def __call__(self, item: Any) -> str | None:
        """The ``<url>`` element of ``item``, or None when it is skipped."""
        # locate()'s body, inline: this runs once per row of the general path.
        try:
            loc = self.build_location(self.location(item))
        except InvalidLocation as exc:
            self.skip(item, str(exc))
            return None
        except Exception as exc:  # a user's location() may raise anything
            self.skip(item, f"location() raised {type(exc).__name__}: {exc}")
            return None
        self.last_loc = loc
        lastmod_xml = self.lastmod_xml(item)
        try:
            return self._element(item, loc, lastmod_xml)
        except Exception as exc:  # so may changefreq(), priority() and extra_xml()
            self.reject(item, exc)
            return None

    def reject(self, item: Any, exc: Exception) -> None:
        """Skip ``item``, whose details raised ``exc``; old news is left out without a warning."""
        if isinstance(exc, EntryRejected) and exc.quiet:
            self.skip(item, str(exc), quiet=True)
        elif isinstance(exc, EntryRejected):
            self.skip(item, str(exc))
        else:
            self.skip(item, f"{type(exc).__name__}: {exc}")

    def locate(self, item: Any, location: Callable[[Any], Any]) -> str | None:
        """The ``<loc>`` of ``item`` from ``location``; None (skipped, logged) when it has none."""
        try:
            return self.build_location(location(item))
        except InvalidLocation as exc:
            self.skip(item, str(exc))
        except Exception as exc:  # a user's location() may raise anything
            self.skip(item, f"location() raised {type(exc).__name__}: {exc}")
        return None

    def lastmod_xml(self, item: Any) -> str:
        """The ``<lastmod>`` of ``item``; empty (logged and counted) when it cannot be written.

        One row's date out of the zone's range (``0001-01-01 00:00`` UTC read in
        a zone behind UTC), or a ``lastmod()`` that fails, costs that entry its
        lastmod, never the file.
        """
        self.last_lastmod = None
        try:
            value = self.lastmod(item)
            if value is None:
                return ""
            text = self.format_lastmod(value)
        except Exception as exc:
            self.lastmods_dropped += 1
            logger.warning(
                "Sitemap section %r: listed %s without lastmod: %s: %s.",
                self.sitemap.section,
                self.access.describe(item),
                type(exc).__name__,
                exc,
            )
            return ""
        self.last_lastmod = value
        return f"<lastmod>{text}</lastmod>"

    def _element(self, item: Any, loc: str, lastmod_xml: str) -> str:
        details = self.details(item) if self.details_vary else self.constant_details
        if needs_escape(loc):
            loc = escape(loc)
        return f"<url><loc>{loc}</loc>{lastmod_xml}{details}</url>\n"

    def details(self, item: Any, links: str = "") -> str:
        """What follows ``<lastmod>`` in ``item``'s entry: changefreq, priority, ``links``, extensions."""
        changefreq_xml = self.changefreq_xml
        if callable(self.changefreq_attr):
            changefreq_xml = self._changefreq_xml(item, self.changefreq_attr(item))
        priority_xml = self.priority_xml
        if callable(self.priority_attr):
            priority_xml = self._priority_xml(item, self.priority_attr(item))
        extra = self.extensions(item) if self.has_extra_xml else ""
        return f"{changefreq_xml}{priority_xml}{links}{extra}"

    def _changefreq_xml(self, item: Any, changefreq: Any) -> str:
        if changefreq is None:
            return ""
        try:
            return f"<changefreq>{changefreq_value(changefreq)}</changefreq>"
        except ValueError as exc:
            self._ignored("changefreq", item, exc)
            return ""

    def _priority_xml(self, item: Any, priority: Any) -> str:
        if priority is None:
            return ""
        try:
            return f"<priority>{format_priority(priority_value(priority))}</priority>"
        except ValueError as exc:
            self._ignored("priority", item, exc)
            return ""

    def _ignored(self, name: str, item: Any, exc: ValueError) -> None:
        described = "every item" if item is EVERY_ITEM else self.access.describe(item)
        logger.warning(
            "Sitemap section %r: ignored the %s of %s: %s.",
            self.sitemap.section,
            name,
            described,
            exc,
        )

    def skip_duplicate(self, item: Any, loc: str) -> None:
        """Count ``item`` as skipped: its location ``loc`` is listed in the file already."""
        self.skip(item, f"{loc} is listed already in this file")

    def skip(self, item: Any, reason: str, *, quiet: bool = False) -> None:
        """Count ``item`` as skipped, and log why (at debug level when ``quiet``: expected)."""
        self.skipped += 1
        log_skip(self.sitemap.section, self.access.describe(item), reason, quiet=quiet)


def new_writer(sitemap: Sitemap, stylesheet: str | None = None) -> UrlsetWriter:
    """An empty ``<urlset>`` for ``sitemap``: its limit, the byte limit, the namespaces it uses.

    ``stylesheet`` is the href of the XSL the file references (None: none).
    """
    return UrlsetWriter(
        max_entries=max_entries(sitemap),
        max_bytes=MAX_BYTES_PER_FILE,
        namespaces=namespaces(sitemap),
        stylesheet=stylesheet,
    )
