"""The EntryFactory of a section: how its items are read, settled once per file."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from django_sitemapkit.engine import rows
from django_sitemapkit.engine.entries import EntryFactory, ItemAccess, RenderContext
from django_sitemapkit.sitemaps import ModelSitemap, Sitemap


def item_access(sitemap: Sitemap) -> ItemAccess:
    """How entries read ``sitemap``'s items: its attribute-or-method API, resolved once."""
    if isinstance(sitemap, ModelSitemap):
        return rows.item_access(sitemap)
    return ItemAccess(
        sitemap.location, lastmod_reader(sitemap), sitemap.changefreq, sitemap.priority
    )


def lastmod_reader(sitemap: Sitemap) -> Any:
    """``lastmod`` as a callable taking the item, whether a method or a value."""
    lastmod = sitemap.lastmod
    if callable(lastmod):
        return lastmod
    return lambda item: lastmod


def section_context(sitemap: Sitemap, context: RenderContext) -> RenderContext:
    """``context`` for ``sitemap``'s URLs: under its ``protocol`` where it names one."""
    if sitemap.protocol is None:
        return context
    return replace(context, locations=context.locations.with_scheme(sitemap.protocol))


def entry_factory(sitemap: Sitemap, context: RenderContext) -> EntryFactory:
    date_only = rows.lastmod_date_only(sitemap) if isinstance(sitemap, ModelSitemap) else None
    return EntryFactory(
        sitemap, section_context(sitemap, context), item_access(sitemap), date_only=date_only
    )
