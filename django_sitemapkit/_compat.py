"""``django.contrib.sitemaps`` classes registered as they are: sections reading them through
contrib's API list what contrib's views list; a class building its entries in ``get_urls()``
or ``_urls()`` (Wagtail's) is listed from what its ``get_urls()`` returns, page by page."""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from types import SimpleNamespace
from typing import Any, ClassVar

from django.contrib.sitemaps import GenericSitemap
from django.contrib.sitemaps import Sitemap as ContribSitemap
from django.core.checks import CheckMessage, Warning
from django.db.models import QuerySet

from django_sitemapkit._protocol.extensionxml import XHTML_NS
from django_sitemapkit._protocol.writer import MAX_ENTRIES_PER_FILE
from django_sitemapkit._sitemapchecks import describe
from django_sitemapkit._sitemaps import ModelSitemap, Sitemap, date_field


def is_contrib_sitemap(value: object) -> bool:
    return issubclass(value if isinstance(value, type) else type(value), ContribSitemap)


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


class ContribSection(Sitemap):
    """A section reading a ``django.contrib.sitemaps.Sitemap`` instance, ``contrib``."""

    contrib: ClassVar[ContribSitemap[Any]]

    def check(self, **kwargs: Any) -> list[CheckMessage]:
        return [*super().check(**kwargs), *unused_hooks(self)]

    def items(self) -> Sequence[Any] | QuerySet[Any]:
        return self.contrib.items()  # type: ignore[return-value]

    def location(self, item: Any) -> str:
        location = self.contrib.location  # contrib reads it, like lastmod, as method or value
        return str(location(item) if callable(location) else location)

    def get_languages(self) -> list[str]:
        # contrib's own (private) name for it, which its users' classes may override.
        return list(self.contrib._languages())  # type: ignore[attr-defined]

    def get_languages_for_item(self, item: Any) -> Sequence[str]:
        return self.contrib.get_languages_for_item(item)


class ContribModelSection(ModelSitemap):
    """A ``GenericSitemap`` saying no more than a model section (rows, ``get_absolute_url()``,
    ``date_field``), read as one: paged by key ranges, built incrementally, fast path if it can."""

    contrib: ClassVar[GenericSitemap[Any]]

    def check(self, **kwargs: Any) -> list[CheckMessage]:
        return [*super().check(**kwargs), *unused_hooks(self)]

    def items(self) -> QuerySet[Any]:
        return self.contrib.items()

    def get_languages(self) -> list[str]:
        return list(self.contrib._languages())  # type: ignore[attr-defined]


class ContribUrlsSection(ContribSection):
    """Lists contrib's ``get_urls()`` dicts, one contrib page a file, with every protocol rule
    on top (_engine/entries.py); ``items()`` and ``location()`` stay for what reads items."""

    # The alternates' <xhtml:link>, declared whether or not a page has any.
    namespaces: ClassVar[Mapping[str, str]] = {"xhtml": XHTML_NS}
    limit = MAX_ENTRIES_PER_FILE  # contrib pages the items; an item may give several entries
    i18n = False  # contrib's get_urls() writes the languages itself

    def page_numbers(self) -> range:
        return self.contrib.paginator.page_range

    def url_infos(self, number: int, scheme: str, domain: str) -> list[Mapping[str, Any]]:
        """Page ``number``'s ``get_urls()`` for ``scheme://domain``: one scheme a site."""
        contrib = copy.copy(self.contrib)
        contrib.protocol = None
        site: Any = SimpleNamespace(domain=domain, name=domain)  # any object with a domain will do
        return list(contrib.get_urls(page=number, site=site, protocol=scheme))


_ATTRIBUTES = ("limit", "protocol", "i18n", "languages", "alternates", "x_default")


def builds_own_urls(instance: ContribSitemap[Any]) -> bool:
    cls = type(instance)
    own_urls: bool = cls._urls is not ContribSitemap._urls  # type: ignore[attr-defined]
    return own_urls or cls.get_urls is not ContribSitemap.get_urls


def section_class(contrib: ContribSitemap[Any] | type[ContribSitemap[Any]]) -> type[Sitemap]:
    instance = contrib() if isinstance(contrib, type) else contrib
    cls = type(instance)
    # The module and name of the contrib class, for messages.
    attrs = {"contrib": instance, "__module__": cls.__module__, "__qualname__": cls.__qualname__}
    if builds_own_urls(instance):
        return type(cls.__name__, (ContribUrlsSection,), {**attrs, "protocol": instance.protocol})
    # As contrib reads them: attributes, or methods (changefreq, priority); absent means none.
    attrs.update({n: getattr(instance, n, None) for n in (*_ATTRIBUTES, "changefreq", "priority")})
    if isinstance(instance, GenericSitemap) and reads_as_model_section(instance):
        attrs.update(model=instance.queryset.model, lastmod_field=instance.date_field)
        return type(cls.__name__, (ContribModelSection,), attrs)
    attrs["lastmod"] = getattr(instance, "lastmod", None)  # as changefreq
    if isinstance(instance, GenericSitemap):
        attrs["model"] = instance.queryset.model
        attrs["date_field"] = instance.date_field  # index: a lastmod aggregate per page
    return type(cls.__name__, (ContribSection,), attrs)


def reads_as_model_section(instance: GenericSitemap[Any]) -> bool:
    """Whether a model section over its QuerySet lists the same: GenericSitemap's per-item
    methods, ``date_field`` a date column, a QuerySet paged by key ranges."""
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
    query = instance.queryset.query
    if query.is_sliced or query.combinator or query.values_select:
        return False
    name = instance.date_field
    return name is None or date_field(instance.queryset.model, name) is not None
