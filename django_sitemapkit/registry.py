"""The registry of sitemap sections, shaped like ``django.contrib.admin.site``."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, TypeVar

from django.db import models
from django.utils.module_loading import autodiscover_modules

if TYPE_CHECKING:
    from django_sitemapkit.sitemaps import Sitemap

SitemapClass = TypeVar("SitemapClass", bound="type[Sitemap]")

# Section names appear in file names and URLs (``sitemap-<section>-<page>.xml``),
# so they are restricted to characters that need no escaping anywhere.
SECTION_NAME_RE = re.compile(r"^[a-z0-9](?:[a-z0-9_-]{0,62}[a-z0-9])?$")


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


class SitemapRegistry:
    """Maps section names to sitemap instances."""

    def __init__(self) -> None:
        self._registry: dict[str, Sitemap] = {}
        # Names that two registrations asked for: reported by system check
        # E007 rather than raised at import time, so `manage.py check` can
        # explain the clash instead of the project failing to start.
        self.duplicate_sections: list[tuple[str, str]] = []

    # -- registration -------------------------------------------------------

    def register(
        self,
        model: type[models.Model] | None = None,
        sitemap_class: type[Sitemap] | None = None,
        *,
        section: str | None = None,
    ) -> _Registration:
        """Register a section; works as a call and as a class decorator.

        ``register(Tag)`` registers a plain ModelSitemap for every row of Tag
        at once. ``@register(Article)`` above a ModelSitemap subclass replaces
        that default with the class, and ``@register(section="pages")`` above
        any Sitemap subclass registers it under that name.
        """
        if model is None and sitemap_class is None and section is None:
            raise TypeError("register() needs a model, a sitemap class or section=.")
        if model is not None and self.is_registered(model):
            raise AlreadyRegistered(f"The model {model._meta.label} is already registered.")
        registration = _Registration(self, model, section)
        if sitemap_class is not None:
            registration(sitemap_class)
        elif model is not None:
            from django_sitemapkit.sitemaps import ModelSitemap

            registration.install(ModelSitemap, is_default=True)
        return registration

    def unregister(self, model_or_section: type[models.Model] | str) -> None:
        name = self._find(model_or_section)
        if name is None:
            raise NotRegistered(f"{self._describe(model_or_section)} is not registered.")
        del self._registry[name]

    def is_registered(self, model_or_section: type[models.Model] | str) -> bool:
        return self._find(model_or_section) is not None

    # -- lookup -------------------------------------------------------------

    def get(self, section: str) -> Sitemap | None:
        return self._registry.get(section)

    def __getitem__(self, section: str) -> Sitemap:
        try:
            return self._registry[section]
        except KeyError:
            raise NotRegistered(f"No section named {section!r} is registered.") from None

    def __iter__(self) -> Iterator[Sitemap]:
        return iter(list(self._registry.values()))

    def __len__(self) -> int:
        return len(self._registry)

    def __bool__(self) -> bool:
        # Without this an empty registry is falsy, and Django's
        # autodiscover_modules(register_to=...) then skips the snapshot it
        # restores when an app's sitemaps.py raises: the user would see an
        # UnboundLocalError instead of their own exception.
        return True

    def sections(self) -> list[str]:
        return list(self._registry)

    # -- internals ----------------------------------------------------------

    def _find(self, model_or_section: type[models.Model] | str) -> str | None:
        if isinstance(model_or_section, str):
            return model_or_section if model_or_section in self._registry else None
        for name, sitemap in self._registry.items():
            if getattr(sitemap, "model", None) is model_or_section:
                return name
        return None

    @staticmethod
    def _describe(model_or_section: type[models.Model] | str) -> str:
        if isinstance(model_or_section, str):
            return f"The section {model_or_section!r}"
        return f"The model {model_or_section._meta.label}"

    def _add(self, name: str, sitemap: Sitemap, *, replacing: str | None = None) -> None:
        if replacing is not None:
            self._registry.pop(replacing, None)
        if name in self._registry:
            self.duplicate_sections.append((name, type(sitemap).__qualname__))
            return
        self._registry[name] = sitemap


class _Registration:
    """What ``register()`` returns: a decorator that (re)places the section's class."""

    def __init__(
        self, registry: SitemapRegistry, model: type[models.Model] | None, section: str | None
    ) -> None:
        self.registry = registry
        self.model = model
        self.section = section
        self._installed_default: str | None = None

    def install(self, sitemap_class: type[Sitemap], *, is_default: bool = False) -> str:
        model = self.model if self.model is not None else getattr(sitemap_class, "model", None)
        name = self.section or getattr(sitemap_class, "section", None)
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
        self.registry._add(name, bound_class(), replacing=self._installed_default)
        self._installed_default = name if is_default else None
        return name

    def __call__(self, sitemap_class: SitemapClass) -> SitemapClass:
        from django_sitemapkit.sitemaps import Sitemap

        if not (isinstance(sitemap_class, type) and issubclass(sitemap_class, Sitemap)):
            raise TypeError("@register() decorates a Sitemap subclass.")
        self.install(sitemap_class)
        return sitemap_class


registry = SitemapRegistry()


def register(
    model: type[models.Model] | None = None,
    sitemap_class: type[Sitemap] | None = None,
    *,
    section: str | None = None,
) -> _Registration:
    """Register on the default registry; see :meth:`SitemapRegistry.register`."""
    return registry.register(model, sitemap_class, section=section)


def autodiscover() -> None:
    """Import every installed app's ``sitemaps`` module so it can register."""
    autodiscover_modules("sitemaps", register_to=registry)
