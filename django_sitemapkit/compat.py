"""Sections from ``django.contrib.sitemaps`` classes, registered as they are.

A project moving over keeps its ``sitemaps.py``: its ``Sitemap`` subclasses
and ``GenericSitemap`` instances become sections that read them through
contrib's own API (``items()``, ``location()``, ``lastmod``, ``changefreq``,
``priority``, ``limit``, ``protocol``, ``i18n``, ``languages``,
``alternates``, ``x_default``, ``get_languages_for_item()``), so they list
what contrib's views list.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from django.contrib.sitemaps import GenericSitemap
from django.contrib.sitemaps import Sitemap as ContribSitemap
from django.db.models import QuerySet

from django_sitemapkit.sitemaps import Sitemap

__all__ = ["ContribSection", "ContribSitemap", "is_contrib_sitemap", "section_class"]


def is_contrib_sitemap(value: object) -> bool:
    """Whether ``value`` is a ``django.contrib.sitemaps.Sitemap`` subclass or instance."""
    if isinstance(value, type):
        return issubclass(value, ContribSitemap)
    return isinstance(value, ContribSitemap)


class ContribSection(Sitemap):
    """A section reading a ``django.contrib.sitemaps.Sitemap`` instance, ``contrib``."""

    contrib: ClassVar[ContribSitemap[Any]]

    def items(self) -> Sequence[Any] | QuerySet[Any]:
        items: Sequence[Any] | QuerySet[Any] = self.contrib.items()  # type: ignore[assignment]
        return items

    def location(self, item: Any) -> str:
        # contrib reads location, like lastmod, as a method or a value.
        location = self.contrib.location
        return str(location(item) if callable(location) else location)

    def get_languages(self) -> list[str]:
        # contrib's own (private) name for it, which its users' classes may override.
        return list(self.contrib._languages())  # type: ignore[attr-defined]

    def get_languages_for_item(self, item: Any) -> Sequence[str]:
        return self.contrib.get_languages_for_item(item)


def section_class(
    contrib: ContribSitemap[Any] | type[ContribSitemap[Any]],
) -> type[ContribSection]:
    """A ``ContribSection`` subclass serving ``contrib`` (a class is instantiated once)."""
    instance = contrib() if isinstance(contrib, type) else contrib
    attrs: dict[str, Any] = {
        "contrib": instance,
        "limit": instance.limit,
        "protocol": instance.protocol,
        "i18n": instance.i18n,
        "languages": instance.languages,
        "alternates": instance.alternates,
        "x_default": instance.x_default,
        # Attributes or methods, as contrib reads them; absent means none.
        "lastmod": getattr(instance, "lastmod", None),
        "changefreq": getattr(instance, "changefreq", None),
        "priority": getattr(instance, "priority", None),
        "__module__": type(instance).__module__,
        "__qualname__": type(instance).__qualname__,
    }
    if isinstance(instance, GenericSitemap):
        attrs["model"] = instance.queryset.model
        # Page lastmods in the index are then one aggregate a page (lists.py).
        attrs["date_field"] = instance.date_field
    return type(type(instance).__name__, (ContribSection,), attrs)
