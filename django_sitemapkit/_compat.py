"""The contrib drop-in: ``django.contrib.sitemaps`` classes registered as they are.

A project moving over keeps its ``sitemaps.py``: its ``Sitemap`` subclasses and
``GenericSitemap`` instances become sections reading them through contrib's own
API, so they list what contrib's views list. A class that builds its entries in
``get_urls()`` or ``_urls()`` (Wagtail's does) is listed from what its
``get_urls()`` returns, page by page.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from types import SimpleNamespace
from typing import Any, ClassVar

from django.contrib.sitemaps import GenericSitemap
from django.contrib.sitemaps import Sitemap as ContribSitemap
from django.core.checks import CheckMessage, Warning
from django.core.exceptions import FieldDoesNotExist
from django.db import models
from django.db.models import QuerySet

from django_sitemapkit._protocol.extensionxml import XHTML_NS
from django_sitemapkit._protocol.writer import MAX_ENTRIES_PER_FILE
from django_sitemapkit._sitemapchecks import ModelSitemapChecks, SitemapChecks, describe
from django_sitemapkit._sitemaps import ModelSitemap, Sitemap


def is_contrib_sitemap(value: object) -> bool:
    if isinstance(value, type):
        return issubclass(value, ContribSitemap)
    return isinstance(value, ContribSitemap)


# contrib's hooks sitemapkit does not call, and what it does instead (docs/migrating.md).
UNUSED_HOOKS = {
    "get_latest_lastmod": "the index dates each file by the newest lastmod the file lists",
    "get_domain": "every URL takes the host of BASE_URL (or of the site of SITES)",
    "get_protocol": "every URL takes the scheme of BASE_URL",
    "paginator": "files are cut at limit, by count and by size",
}


def unused_hooks(sitemap: Any) -> list[CheckMessage]:
    """W006: a contrib class overrides a hook sitemapkit does not call."""
    cls = type(sitemap.contrib)
    return [
        Warning(
            f"{describe(sitemap)}: {cls.__qualname__}.{name} is not used: {instead}.",
            hint="Remove the override, or see docs/migrating.md for what replaces it.",
            obj=cls,
            id="sitemapkit.W006",
        )
        for name, instead in UNUSED_HOOKS.items()
        if getattr(cls, name) is not getattr(ContribSitemap, name)
        and not (name == "paginator" and isinstance(sitemap, ContribUrlsSection))
    ]


class ContribChecks(SitemapChecks):
    def check(self, sitemap: Any) -> list[CheckMessage]:
        return [*super().check(sitemap), *unused_hooks(sitemap)]


class ContribModelChecks(ModelSitemapChecks):
    def check(self, sitemap: Any) -> list[CheckMessage]:
        return [*super().check(sitemap), *unused_hooks(sitemap)]


class ContribSection(Sitemap):
    """A section reading a ``django.contrib.sitemaps.Sitemap`` instance, ``contrib``."""

    contrib: ClassVar[ContribSitemap[Any]]
    checks_class: ClassVar[type[SitemapChecks]] = ContribChecks

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
    """A ``GenericSitemap`` that says nothing a model section cannot (its rows,
    ``get_absolute_url()``, ``date_field``), read as one: paged by key ranges in
    key order, built incrementally, on the fast path where it can."""

    contrib: ClassVar[GenericSitemap[Any]]
    checks_class: ClassVar[type[SitemapChecks]] = ContribModelChecks

    def items(self) -> QuerySet[Any]:
        items: QuerySet[Any] = self.contrib.items()
        return items

    def get_languages(self) -> list[str]:
        return list(self.contrib._languages())  # type: ignore[attr-defined]


class ContribUrlsSection(ContribSection):
    """A section listing what ``contrib.get_urls()`` returns, one contrib page a file.

    For classes that build their entries in ``get_urls()`` or ``_urls()``:
    each entry is contrib's dict (``location``, ``lastmod``, ``changefreq``,
    ``priority``, ``alternates``), written with every protocol rule on top
    (_engine/entries.py). ``items()`` and ``location()`` stay contrib's,
    for what reads the items themselves (which model, a sample location).
    """

    # The alternates' <xhtml:link>, declared whether or not a page has any.
    namespaces: ClassVar[Mapping[str, str]] = {"xhtml": XHTML_NS}
    # contrib's paginator pages the items; an item may give several entries.
    limit = MAX_ENTRIES_PER_FILE
    # contrib's get_urls() writes the languages itself.
    i18n = False

    def page_numbers(self) -> range:
        return self.contrib.paginator.page_range

    def url_infos(self, number: int, scheme: str, domain: str) -> list[Mapping[str, Any]]:
        """The entries of page ``number`` as ``get_urls()`` gives them, for ``scheme://domain``
        (the site's scheme over the class's ``protocol``: one scheme a site)."""
        contrib = copy.copy(self.contrib)
        contrib.protocol = None
        # Any object with a domain is the site (a Site or RequestSite) get_urls() reads.
        site: Any = SimpleNamespace(domain=domain, name=domain)
        return list(contrib.get_urls(page=number, site=site, protocol=scheme))


def builds_own_urls(instance: ContribSitemap[Any]) -> bool:
    cls = type(instance)
    own_urls: bool = cls._urls is not ContribSitemap._urls  # type: ignore[attr-defined]
    return own_urls or cls.get_urls is not ContribSitemap.get_urls


def section_class(
    contrib: ContribSitemap[Any] | type[ContribSitemap[Any]],
) -> type[Sitemap]:
    """A section class serving ``contrib`` (a class is instantiated once)."""
    instance = contrib() if isinstance(contrib, type) else contrib
    if builds_own_urls(instance):
        named = _named(instance, {"contrib": instance, "protocol": instance.protocol})
        return type(type(instance).__name__, (ContribUrlsSection,), named)
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
    }
    attrs = _named(instance, attrs)
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


def _named(instance: ContribSitemap[Any], attrs: dict[str, Any]) -> dict[str, Any]:
    """``attrs`` with the module and name of ``instance``'s class, which messages show."""
    cls = type(instance)
    return {**attrs, "__module__": cls.__module__, "__qualname__": cls.__qualname__}


def reads_as_model_section(instance: GenericSitemap[Any]) -> bool:
    """Whether ``instance`` lists what a model section over its QuerySet lists: its class
    keeps GenericSitemap's per-item methods, ``date_field`` is a date column, the
    QuerySet can be paged by key ranges."""
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
