"""Where a model section's locations come from: a URL pattern and the fields filling it.

A section names its pattern (``url_name`` + ``url_kwargs``), or its model's
``get_absolute_url()`` is read as one (reversing.py) when the class leaves
every per-row value to columns. Either way it reads column rows and fills
the pattern once reversed; otherwise it reads instances and calls
``location()`` for each.
"""

from __future__ import annotations

from dataclasses import dataclass

from django_sitemapkit.engine.internals import yields_instances
from django_sitemapkit.engine.urltemplates import UrlTemplate
from django_sitemapkit.reversing import Derived, Refused, derive_location
from django_sitemapkit.sitemaps import ModelSitemap, Sitemap

# Methods taking an item: a section defining one needs instances.
_ITEM_METHODS = ("location", "images", "videos", "news", "extra_xml", "get_languages_for_item")


@dataclass(frozen=True)
class UrlRoute:
    """A URL pattern and the model fields filling it, in argument order."""

    url_name: str
    fields: tuple[str, ...]
    #: The URL keyword each field fills; None: positional ``args``.
    kwargs: tuple[str, ...] | None
    #: Read from get_absolute_url() rather than named by the class.
    derived: bool = False

    def template(self) -> UrlTemplate:
        """The pattern reversed once (in the active language)."""
        if self.kwargs is None:
            return UrlTemplate(self.url_name, len(self.fields))
        return UrlTemplate(self.url_name, self.kwargs)


def url_route(sitemap: ModelSitemap) -> UrlRoute | None:
    """The section's URL route, or None when each location is ``location(instance)``."""
    if sitemap.url_name is not None:
        return UrlRoute(
            sitemap.url_name, tuple(sitemap.url_kwargs.values()), tuple(sitemap.url_kwargs)
        )
    derived = derivation(sitemap)
    if isinstance(derived, Refused):
        return None
    return UrlRoute(derived.url_name, derived.fields, derived.kwargs, derived=True)


def derivation(sitemap: ModelSitemap) -> Derived | Refused:
    """``get_absolute_url()`` read as a URL pattern, where the class needs nothing else per row."""
    refusal = needs_instances(sitemap)
    if refusal is not None:
        return Refused(refusal)
    if sitemap.model is None:
        return Refused("the section has no model")
    queryset = sitemap.get_queryset()
    if queryset.model is not sitemap.model:
        # A proxy's (or another model's) rows answer with their own method.
        return Refused(
            f"the rows are {queryset.model._meta.label}'s, not {sitemap.model._meta.label}'s"
        )
    if not yields_instances(queryset):
        return Refused("the QuerySet yields its own kind of rows (a polymorphic manager?)")
    return derive_location(sitemap.model)


def needs_instances(sitemap: ModelSitemap) -> str | None:
    """What in the class takes an instance per row (None: nothing)."""
    cls = type(sitemap)
    for name in _ITEM_METHODS:
        if getattr(cls, name) is not getattr(Sitemap, name):
            return f"{cls.__qualname__}.{name}() takes instances"
    if sitemap.defines_lastmod():
        return f"{cls.__qualname__} gives lastmod itself rather than lastmod_field"
    for name in ("changefreq", "priority"):
        if callable(getattr(sitemap, name)):
            return f"{cls.__qualname__}.{name}() takes instances"
    return None


def route_report(sitemap: Sitemap) -> tuple[bool, str] | None:
    """Whether a model section fills a URL pattern (the fast path), and how it got it or what
    stopped it; None for other sections. For ``sitemapkit_status`` and ``check --deploy``."""
    if not isinstance(sitemap, ModelSitemap):
        return None
    if sitemap.url_name is not None:
        return True, f"URL pattern {sitemap.url_name!r} (url_name)"
    derived = derivation(sitemap)
    if isinstance(derived, Derived):
        return (
            True,
            f"URL pattern {derived.url_name!r} read from get_absolute_url() ({derived.where})",
        )
    return False, f"location() per row: {derived.describe()}"
