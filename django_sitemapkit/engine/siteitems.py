"""A section's items on the site being rendered (``SITEMAPKIT["SITES"]``)."""

from __future__ import annotations

import hashlib
from typing import Any, TypeVar

from django_sitemapkit.siteconfig import current_site
from django_sitemapkit.sitemaps import Sitemap

Items = TypeVar("Items")

# SitemapPage.section's max_length.
PAGE_TABLE_NAME_LENGTH = 64


def narrows_per_site(sitemap: Sitemap) -> bool:
    """Whether the section lists other items on each site (it overrides ``for_site()``)."""
    return type(sitemap).for_site is not Sitemap.for_site


def narrowed(sitemap: Sitemap, items: Items) -> Items:
    """``items`` as the current site lists them: ``for_site()``'s, when a site is rendering."""
    site = current_site()
    if site is None or not narrows_per_site(sitemap):
        return items
    result: Any = sitemap.for_site(items, site)
    return result  # type: ignore[no-any-return]


def page_table_name(sitemap: Sitemap) -> str:
    """The name the section's page boundaries are recorded under: per site where its rows are."""
    site = current_site()
    if site is None or not narrows_per_site(sitemap):
        return sitemap.name
    name = f"{sitemap.name}@{site.name}"
    if len(name) <= PAGE_TABLE_NAME_LENGTH:
        return name
    digest = hashlib.sha256(name.encode()).hexdigest()[:16]
    return f"{name[: PAGE_TABLE_NAME_LENGTH - 17]}~{digest}"
