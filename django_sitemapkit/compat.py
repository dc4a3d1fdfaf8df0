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
from django.core.exceptions import FieldDoesNotExist
from django.db import models
from django.db.models import QuerySet

from django_sitemapkit.sitemaps import ModelSitemap, Sitemap

__all__ = [
    "ContribModelSection",
    "ContribSection",
    "ContribSitemap",
    "is_contrib_sitemap",
    "section_class",
]


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


class ContribModelSection(ModelSitemap):
    """A section reading a ``GenericSitemap`` that says nothing a model section cannot:
    its QuerySet's rows, ``get_absolute_url()``, lastmod from ``date_field``.

    As a model section it is paged by key ranges (in key order, whatever the
    QuerySet's ordering), built incrementally, and takes the fast path when
    the model's ``get_absolute_url()`` is a plain ``reverse()`` (derivation.py).
    """

    contrib: ClassVar[GenericSitemap[Any]]

    def items(self) -> QuerySet[Any]:
        items: QuerySet[Any] = self.contrib.items()
        return items

    def get_languages(self) -> list[str]:
        return list(self.contrib._languages())  # type: ignore[attr-defined]


def section_class(
    contrib: ContribSitemap[Any] | type[ContribSitemap[Any]],
) -> type[Sitemap]:
    """A section class serving ``contrib`` (a class is instantiated once)."""
    instance = contrib() if isinstance(contrib, type) else contrib
    attrs: dict[str, Any] = {
        "contrib": instance,
        "limit": instance.limit,
        "protocol": instance.protocol,
        "i18n": instance.i18n,
        "languages": instance.languages,
        "alternates": instance.alternates,
        "x_default": instance.x_default,
        "changefreq": getattr(instance, "changefreq", None),
        "priority": getattr(instance, "priority", None),
        "__module__": type(instance).__module__,
        "__qualname__": type(instance).__qualname__,
    }
    if isinstance(instance, GenericSitemap) and reads_as_model_section(instance):
        model = instance.queryset.model
        attrs.update(model=model, lastmod_field=instance.date_field)
        return type(type(instance).__name__, (ContribModelSection,), attrs)
    # Attributes or methods, as contrib reads them; absent means none.
    attrs["lastmod"] = getattr(instance, "lastmod", None)
    if isinstance(instance, GenericSitemap):
        attrs["model"] = instance.queryset.model
        # Page lastmods in the index are then one aggregate a page (lists.py).
        attrs["date_field"] = instance.date_field
    return type(type(instance).__name__, (ContribSection,), attrs)


def reads_as_model_section(instance: GenericSitemap[Any]) -> bool:
    """Whether ``instance`` lists what a model section over its QuerySet lists.

    Its class keeps GenericSitemap's ``items()``, ``location()`` and
    ``lastmod()``, and nothing of it is per item but those; ``date_field``
    is a date or datetime column; the QuerySet can be paged by key ranges.
    """
    cls = type(instance)
    if (
        cls.items is not GenericSitemap.items
        or cls.location is not ContribSitemap.location
        or cls.lastmod is not GenericSitemap.lastmod
        or cls.get_languages_for_item is not ContribSitemap.get_languages_for_item
        or callable(getattr(instance, "changefreq", None))
        or callable(getattr(instance, "priority", None))
    ):
        return False
    queryset = instance.queryset
    query = queryset.query
    if query.is_sliced or query.combinator or query.values_select:
        return False
    if instance.date_field is None:
        return True
    try:
        field = queryset.model._meta.get_field(instance.date_field)
    except FieldDoesNotExist:
        return False
    return isinstance(field, models.DateField)
