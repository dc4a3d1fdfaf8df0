"""The EntryFactory of a section: how its items are read, settled once per file."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from django_sitemapkit.compat import ContribUrlsSection
from django_sitemapkit.conf import get_settings
from django_sitemapkit.engine import rows, urlinfos
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
    """``context`` for ``sitemap``'s URLs: under its ``protocol`` only where no base URL is set.

    One scheme a site: where URLs are built from ``BASE_URL`` (or a site of
    ``SITES``), its scheme wins over a section's ``protocol`` (check W005
    says so), in the views, builds and what ``sitemapkit_validate`` expects
    alike. Only a site whose URLs take the request's host (``USE_REQUEST_HOST``
    without ``BASE_URL``: behind a proxy ending TLS, the request says http)
    takes the scheme from ``protocol``.
    """
    conf = get_settings()
    if sitemap.protocol is None or conf.BASE_URL or conf.SITES:
        return context
    return replace(context, locations=context.locations.with_scheme(sitemap.protocol))


def entry_factory(sitemap: Sitemap, context: RenderContext) -> EntryFactory:
    if isinstance(sitemap, ContribUrlsSection):
        return urlinfos.UrlInfoFactory(sitemap, section_context(sitemap, context), urlinfos.ACCESS)
    date_only = rows.lastmod_date_only(sitemap) if isinstance(sitemap, ModelSitemap) else None
    return EntryFactory(
        sitemap, section_context(sitemap, context), item_access(sitemap), date_only=date_only
    )
