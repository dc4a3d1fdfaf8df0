"""Whether the published build is older than the committed data: stale sections.

A model section's pages are compared with the fingerprints the manifest
recorded for them: the row count and newest lastmod of each page, which the
index's own per-page aggregate gives (one query per section; a live page the
build did not publish is probed for an entry, as the live index probes it:
a page whose every row is skipped has no file). A row added
by ``bulk_create``, which sends no signal, changes a count; an edit saved
through the ORM moves a lastmod. A model section without a lastmod field is
compared by row counts only (an edit of such a row is not seen), and a list
section (``Sitemap.items()`` returning a list) is never stale: its items are
the project's code, published as they were at the build.

The answer is kept in the Django cache (``CACHE_ALIAS``) for
``CHECK_SECONDS`` per site, section and published generation, and salted by
the section's cache token, so that most requests cost no query and a save
through the ORM is seen at once; without a cache it is kept in the process.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable
from dataclasses import dataclass

from django.core.cache import BaseCache, caches

from django_sitemapkit.conf import CACHE_KEY_PREFIX, get_settings
from django_sitemapkit.engine import rows
from django_sitemapkit.engine.rendering import (
    URL_NAMESPACE,
    Sections,
    make_context,
    site_time_zone,
)
from django_sitemapkit.engine.sections import pages_listing
from django_sitemapkit.engine.skiplog import one_render
from django_sitemapkit.languages import rendering_language
from django_sitemapkit.publishing.base import PublishError
from django_sitemapkit.publishing.manifest import Manifest
from django_sitemapkit.publishing.selection import get_publisher
from django_sitemapkit.siteconfig import SiteConfig, rendering_site
from django_sitemapkit.sitemaps import ModelSitemap, Sitemap

logger = logging.getLogger("django_sitemapkit")

# How long one process trusts an answer, and how often it warns about one section.
CHECK_SECONDS = 30
WARN_SECONDS = 600

_local: dict[str, tuple[float, bool]] = {}
_warned: dict[tuple[str, str], float] = {}


@dataclass(frozen=True)
class Staleness:
    """How a section's live data compares with its published pages."""

    section: str
    stale: bool
    # Why, in a few words ("3,001 rows more", "newer rows on page 2"), or "".
    reason: str = ""


def section_staleness(
    sitemap: Sitemap, manifest: Manifest, namespace: str = URL_NAMESPACE
) -> Staleness:
    """Compare ``sitemap``'s live pages with what ``manifest`` published of it (queries)."""
    name = sitemap.name
    if not isinstance(sitemap, ModelSitemap):
        return Staleness(name, False)
    published = {r.number: r.fingerprint for r in manifest.pages if r.section == name}
    tz = site_time_zone()
    live = {f.number: f.fingerprint for f in rows.keyset_pages(sitemap).figures(tz)}
    by_count = sitemap.get_lastmod_field() is None
    was = sum(_count(f) for f in published.values())
    now = sum(_count(f) for f in live.values())
    unpublished = listing(sitemap, set(live) - set(published), manifest.base_url, namespace)
    if unpublished:
        return Staleness(name, True, f"{len(unpublished)} pages not published")
    if set(published) - set(live):
        return Staleness(name, True, f"{len(set(published) - set(live))} pages now empty")
    for number, fingerprint in sorted(live.items()):
        before = published.get(number)
        if before is None:
            # A page split off while rendering (its next build records it), or
            # one whose every row is skipped (see listing()).
            continue
        changed = _count(before) != _count(fingerprint) if by_count else before != fingerprint
        if changed:
            return Staleness(name, True, f"page {number} changed ({now - was:+,} rows in all)")
    return Staleness(name, False)


def listing(sitemap: ModelSitemap, numbers: set[int], base_url: str, namespace: str) -> set[int]:
    """Which of pages ``numbers`` list a URL: a build leaves out (and the index does not name)
    a page whose every row is skipped, which is not stale for that. Probed as the index probes
    them: one small query a page, more only for a page whose first rows are skipped."""
    if not numbers:
        return set()
    with rendering_language(), one_render():
        return pages_listing(sitemap, make_context(base_url, namespace), sorted(numbers))


def stale_sections(
    sitemaps: Sections,
    names: Iterable[str],
    site: SiteConfig | None,
    manifest: Manifest,
    *,
    salts: dict[str, str] | None = None,
) -> list[str]:
    """Which of the sections ``names`` are stale, as answered at most ``CHECK_SECONDS`` ago."""
    stale = []
    for name in names:
        sitemap = sitemaps.get(name)
        if sitemap is None:
            continue
        salt = (salts or {}).get(name, "")
        key = f"{CACHE_KEY_PREFIX}:stale:{site and site.name}:{manifest.generation}:{name}:{salt}"
        known = _remembered(key)
        if known is None:
            with rendering_site(site):
                known = section_staleness(sitemap, manifest, sitemaps.name).stale
            _remember(key, known)
        if known:
            stale.append(name)
    return stale


def may_serve_build(
    sitemaps: Sections, names: list[str], site: SiteConfig | None, salts: dict[str, str]
) -> bool:
    """Whether the views may serve the published files of sections ``names``.

    Yes when none is stale; when some are, as ``STALE_BUILD`` says: "serve"
    serves them with a logged warning, "render" (the default) renders live.
    """
    manifest = published_manifest(site, sitemaps.name)
    if manifest is None:
        return True
    stale = stale_sections(sitemaps, names, site, manifest, salts=salts)
    if not stale:
        return True
    if get_settings().STALE_BUILD == "serve":
        warn_stale(site, stale)
        return True
    return False


def published_manifest(site: SiteConfig | None, registry: str = URL_NAMESPACE) -> Manifest | None:
    try:
        return get_publisher(site, registry).manifest()
    except PublishError:
        return None


def warn_stale(site: SiteConfig | None, sections: list[str]) -> None:
    """Log that the build served is older than the data, once per section per ``WARN_SECONDS``."""
    now = time.monotonic()
    where = "" if site is None else f" of site {site.name!r}"
    for name in sections:
        key = ("" if site is None else site.name, name)
        if now - _warned.get(key, -WARN_SECONDS) < WARN_SECONDS:
            continue
        _warned[key] = now
        logger.warning(
            "Serving the published build of sitemap section %r%s, which is older than the "
            "data (STALE_BUILD = 'serve'): run sitemapkit_build.",
            name,
            where,
        )


def _count(fingerprint: str | None) -> int:
    text = (fingerprint or "").partition("|")[0]
    return int(text) if text.isdigit() else 0


def _remembered(key: str) -> bool | None:
    cache = _cache()
    if cache is not None:
        value = cache.get(key)
        return None if value is None else bool(value)
    expires, value = _local.get(key, (0.0, False))
    return value if expires > time.monotonic() else None


def _remember(key: str, value: bool) -> None:
    cache = _cache()
    if cache is not None:
        cache.set(key, value, CHECK_SECONDS)
    else:
        _local[key] = (time.monotonic() + CHECK_SECONDS, value)


def _cache() -> BaseCache | None:
    conf = get_settings()
    if conf.CACHE_TIMEOUT == 0 or conf.CACHE_ALIAS is None:
        return None
    return caches[conf.CACHE_ALIAS]
