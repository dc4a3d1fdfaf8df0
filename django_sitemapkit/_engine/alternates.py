"""Entries of ``i18n`` sections: an item's ``<url>`` in each of its languages, with alternates.

As ``django.contrib.sitemaps`` does, an item is listed once per language of
``get_languages_for_item()``, its location reversed with that language
active, and with ``alternates`` every one of those entries links to all of
them (and to ``x-default`` with ``x_default``). Unlike contrib, an item's
entries are written together, never split across two files, and each
language's location is computed once per item, not once per entry.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from typing import Any

from django.conf import settings
from django.utils import translation

from django_sitemapkit._engine.entries import EntryFactory, alternate_link
from django_sitemapkit._protocol.w3c import Lastmod, later
from django_sitemapkit._protocol.writer import UrlsetWriter, url_element
from django_sitemapkit._reversing import site_languages
from django_sitemapkit._sitemaps import Sitemap

logger = logging.getLogger("django_sitemapkit")


class LanguageEntries:
    """Turns an item of an ``i18n`` section into its entries, one per language."""

    def __init__(self, sitemap: Sitemap, factory: EntryFactory) -> None:
        self.sitemap = sitemap
        self.factory = factory
        self.known = frozenset(site_languages())
        self.default = settings.LANGUAGE_CODE
        self._locators: dict[str, Callable[[Any], Any]] = {}
        self._refused: set[str] = set()
        #: The locations of the entries the last call returned.
        self.locs: list[str] = []

    def locator(self, language: str) -> Callable[[Any], Any]:
        """The location of an item in ``language``: reversed with it active."""
        found = self._locators.get(language)
        if found is None:
            localized = self.factory.access.localized
            if localized is not None:
                found = localized(language)
            else:
                location = self.factory.location

                def found(item: Any) -> Any:
                    with translation.override(language):
                        return location(item)

            self._locators[language] = found
        return found

    def languages_of(self, item: Any) -> list[str]:
        """The item's languages that ``settings.LANGUAGES`` offers (no URL may carry another)."""
        languages = []
        for code in self.sitemap.get_languages_for_item(item):
            if code in self.known:
                languages.append(code)
            elif code not in self._refused:
                self._refused.add(code)
                logger.warning(
                    "Sitemap section %r: left out language %r, which settings.LANGUAGES "
                    "does not list: its URLs would not resolve.",
                    self.sitemap.section,
                    code,
                )
        return languages

    def __call__(self, item: Any, listed: set[str]) -> str | None:
        """The entries of ``item`` whose locations ``listed`` lacks; None when it is skipped."""
        factory = self.factory
        try:
            languages = self.languages_of(item)
        except Exception as exc:  # a user's get_languages_for_item() may raise anything
            factory.skip(item, f"get_languages_for_item() raised {type(exc).__name__}: {exc}")
            return None
        if not languages:
            factory.skip(item, "it has no language of settings.LANGUAGES")
            return None
        located = []
        for code in languages:
            loc = factory.locate(item, self.locator(code))
            if loc is None:
                return None
            located.append((code, loc))
        lastmod_xml = factory.lastmod_xml(item)
        try:
            details = factory.details(item, self.links(located))
        except Exception as exc:  # so may changefreq(), priority() and extra_xml()
            factory.reject(item, exc)
            return None
        # Languages whose URL is the same (no i18n_patterns) are one page.
        locs = list(dict.fromkeys(loc for _code, loc in located))
        self.locs = [loc for loc in locs if loc not in listed]
        if not self.locs:
            factory.skip_duplicate(item, locs[0])
            return None
        return "".join(url_element(loc, lastmod_xml, details) for loc in self.locs)

    def links(self, located: list[tuple[str, str]]) -> str:
        if not self.sitemap.alternates:
            return ""
        links = list(located)
        if self.sitemap.x_default and any(code == self.default for code, _loc in located):
            loc = dict(located)[self.default]
            # contrib's rule: the default language's URL without its prefix.
            links.append(("x-default", loc.replace(f"/{self.default}/", "/", 1)))
        return "".join(alternate_link(code, loc) for code, loc in links)


def write_language_entries(
    sitemap: Sitemap,
    factory: EntryFactory,
    items: Iterable[tuple[Any, Any]],
    writer: UrlsetWriter,
) -> tuple[Lastmod | None, Any]:
    """Write each item's entries into ``writer``, all of an item's or none.

    Returns the newest lastmod written and the key of the first item that
    did not fit (None when all did).
    """
    entries = LanguageEntries(sitemap, factory)
    newest: Lastmod | None = None
    locs = writer.locs
    for key, item in items:
        xml = entries(item, locs)
        if xml is None:
            continue
        if not writer.add_xml(xml, entries=len(entries.locs)):
            return newest, key
        locs.update(entries.locs)
        newest = later(newest, factory.last_lastmod, factory.tz)
    return newest, None
