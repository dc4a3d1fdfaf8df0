"""Registering sitemap classes as sections: ``register()`` as a call and as a class decorator.

Besides sitemapkit's classes, ``django.contrib.sitemaps`` classes and
instances (``GenericSitemap``) register as they are (compat.py).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol, TypeVar

from django.db import models

from django_sitemapkit.compat import is_contrib_sitemap, section_class
from django_sitemapkit.sitemaps import ModelSitemap, Sitemap

SitemapClass = TypeVar("SitemapClass")

REGISTERABLE = (
    "a django_sitemapkit Sitemap subclass (Sitemap, ModelSitemap, StaticViewSitemap) or "
    "a django.contrib.sitemaps Sitemap subclass or instance (GenericSitemap(...) included)"
)


class SectionTarget(Protocol):
    """Where a registration puts its section: a ``SitemapSite``."""

    def add(self, name: str, sitemap: Sitemap, *, replacing: str | None = None) -> None: ...


class AlreadyRegistered(Exception):
    """The model or section is registered already."""


class NotRegistered(Exception):
    """The model or section is not registered."""


def default_section_name(model: type[models.Model]) -> str:
    """``<app_label>-<model_name>``, lowercased, underscores turned into hyphens.

    ``blog.Article`` becomes ``blog-article``; ``shop_core.ProductVariant``
    becomes ``shop-core-productvariant``.
    """
    opts = model._meta
    return f"{opts.app_label}-{opts.model_name}".lower().replace("_", "-")


def check_free(
    registry: Mapping[str, Sitemap], model: type[models.Model], section: str | None
) -> None:
    """Raise AlreadyRegistered when ``model`` has section ``section`` (default: its default) already.

    A model may have several sections, under several names; a section of
    that name listing something else is E007 instead (a check, not an
    import error).
    """
    name = section or default_section_name(model)
    taken = registry.get(name)
    if taken is not None and taken.model is model:
        raise AlreadyRegistered(
            f"The model {model._meta.label} is already registered as section {name!r}. "
            f"To list it in a second section as well, give that section another name: "
            f"register({model.__name__}, section='<another name>')."
        )


class Registration:
    """What ``register()`` returns: a decorator that (re)places the section's class."""

    def __init__(
        self, site: SectionTarget, model: type[models.Model] | None, section: str | None
    ) -> None:
        self.site = site
        self.model = model
        self.section = section
        self._installed_default: str | None = None

    def install(self, sitemap_class: type[Sitemap], *, is_default: bool = False) -> str:
        model = self.model if self.model is not None else sitemap_class.model
        if model is None and issubclass(sitemap_class, ModelSitemap):
            # A contrib-style items() names the model: its QuerySet's.
            model = sitemap_class().get_queryset().model
        name = self.section or sitemap_class.section
        if name is None:
            if model is None:
                raise TypeError(
                    f"{sitemap_class.__qualname__} has no model: register it with section=."
                )
            name = default_section_name(model)
        attrs: dict[str, Any] = {"section": name}
        if model is not None:
            attrs["model"] = model
        # A subclass per registration keeps class attributes of the user's
        # class untouched, so one class can serve several sections.
        bound_class = type(sitemap_class.__name__, (sitemap_class,), attrs)
        bound_class.__module__ = sitemap_class.__module__
        bound_class.__qualname__ = sitemap_class.__qualname__
        self.site.add(name, bound_class(), replacing=self._installed_default)
        self._installed_default = name if is_default else None
        return name

    def __call__(self, sitemap_class: SitemapClass) -> SitemapClass:
        if is_contrib_sitemap(sitemap_class):
            if self.section is None:
                raise TypeError(
                    f"{sitemap_class!r} is a django.contrib.sitemaps sitemap: register it "
                    "with section='name' (the key of contrib's sitemaps dict)."
                )
            self.install(section_class(sitemap_class))  # type: ignore[arg-type]
        elif isinstance(sitemap_class, type) and issubclass(sitemap_class, Sitemap):
            self.install(sitemap_class)
        else:
            raise TypeError(f"register() takes {REGISTERABLE}; got {sitemap_class!r}.")
        return sitemap_class
