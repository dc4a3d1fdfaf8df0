"""Sitemap sites: sections registered on a site, served by the site's URLs (``django.contrib.admin``'s shape).

``site`` is the default; ``path("", site.urls)`` (or
``include("django_sitemapkit.urls")``) serves it. A project can make more
sites, each with its own name (its URL namespace) and sections.
"""

from __future__ import annotations

import weakref
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

from django.apps import AppConfig, apps
from django.core.checks import CheckMessage, Error
from django.db import models
from django.urls import URLPattern
from django.utils.module_loading import autodiscover_modules

from django_sitemapkit.building.builder import Builder, BuildResult, Progress
from django_sitemapkit.engine.rendering import URL_NAMESPACE
from django_sitemapkit.publishing.base import Publisher
from django_sitemapkit.registration import NotRegistered, Registration, check_free
from django_sitemapkit.serving import routes
from django_sitemapkit.serving.cache import invalidate_sections
from django_sitemapkit.serving.invalidation import target_sections
from django_sitemapkit.siteconfig import SiteConfig
from django_sitemapkit.sitemaps import ModelSitemap, Sitemap

# Every site made, for what concerns them all: model signals and system checks.
_sites: weakref.WeakSet[SitemapSite] = weakref.WeakSet()


class SitemapSite:
    """A set of sitemap sections, and the URLs, builds and checks that serve them."""

    def __init__(self, name: str = URL_NAMESPACE) -> None:
        #: The URL namespace of the site's views.
        self.name = name
        self._registry: dict[str, Sitemap] = {}
        # Names that two registrations asked for: reported by system check
        # E007 rather than raised at import time, so `manage.py check` can
        # explain the clash instead of the project failing to start.
        self.duplicate_sections: list[tuple[str, str]] = []
        _sites.add(self)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r}: {', '.join(self._registry) or 'empty'}>"

    # -- registration -------------------------------------------------------

    def register(
        self,
        model: type[models.Model] | None = None,
        sitemap_class: Any = None,
        *,
        section: str | None = None,
    ) -> Registration:
        """Register a section; works as a call and as a class decorator.

        ``register(Tag)`` registers a plain ModelSitemap for every row of Tag
        at once. ``@register(Article)`` above a ModelSitemap subclass replaces
        that default with the class, and ``@register(section="pages")`` above
        any Sitemap subclass registers it under that name. A model may have
        several sections: ``register(Photo, section="photo-news")`` beside
        ``register(Photo)``.
        """
        if model is None and sitemap_class is None and section is None:
            raise TypeError("register() needs a model, a sitemap class or section=.")
        if model is not None and sitemap_class is None:
            check_free(self._registry, model, section)
        registration = Registration(self, model, section)
        if sitemap_class is not None:
            registration(sitemap_class)
        elif model is not None:
            registration.install(ModelSitemap, is_default=True)
        return registration

    def register_sitemaps(self, sitemaps: Mapping[str, Any]) -> None:
        """Register the ``sitemaps`` dict of ``django.contrib.sitemaps.views``: a section per key.

        The values are what contrib takes -- its ``Sitemap`` subclasses and
        instances, ``GenericSitemap(info_dict, ...)`` included -- or
        sitemapkit's own classes.
        """
        for name, sitemap in sitemaps.items():
            self.register(sitemap_class=sitemap, section=name)

    def unregister(self, model_or_section: type[models.Model] | str) -> None:
        """Remove the section of that name, or every section of that model."""
        names = [
            n for n, sitemap in self._registry.items() if model_or_section in (n, sitemap.model)
        ]
        if not names:
            raise NotRegistered(f"{_describe(model_or_section)} is not registered.")
        for name in names:
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
        # Without this an empty site is falsy, and Django's
        # autodiscover_modules(register_to=...) then skips the snapshot it
        # restores when an app's sitemaps.py raises: the user would see an
        # UnboundLocalError instead of their own exception.
        return True

    def sections(self) -> list[str]:
        return list(self._registry)

    # -- serving ------------------------------------------------------------

    def get_urls(self) -> list[URLPattern]:
        """``/sitemap.xml``, ``/sitemap-<section>-<page>.xml`` and their ``.gz``."""
        return routes.patterns(self)

    @property
    def urls(self) -> tuple[list[URLPattern], str, str]:
        """For ``path("", site.urls)``: the patterns, app name and namespace."""
        return self.get_urls(), URL_NAMESPACE, self.name

    def invalidate(
        self, *targets: type[models.Model] | str, pks: Iterable[object] | None = None
    ) -> None:
        """Drop the cached files of the given models' or sections' names; all when none are given.

        Call it after writes that send no signals (``QuerySet.update()``,
        ``bulk_create()``, raw SQL). Under ``CHANGE_LOG`` it also tells the
        next build: the rows ``pks`` changed, or (without ``pks``) anything
        in those sections may have, which has the build scan them.
        """
        names = target_sections(self, targets)
        invalidate_sections(names)

    def pages_changed(self, section: str) -> None:
        # The index lists the section's pages: its cached copy must go.
        invalidate_sections([section])

    # -- building -----------------------------------------------------------

    def builder(
        self,
        *,
        publisher: Publisher | None = None,
        full: bool = False,
        rerender: bool = False,
        dry_run: bool = False,
        progress: Progress | None = None,
        site: str | SiteConfig | None = None,
    ) -> Builder:
        """A build of the sections; of one site's, into its folder, under ``SITEMAPKIT["SITES"]``."""
        return Builder(
            publisher=publisher,
            sitemaps=self,
            full=full,
            rerender=rerender,
            dry_run=dry_run,
            progress=progress,
            site=site,
        )

    def build(
        self,
        sections: Sequence[str] | None = None,
        *,
        publisher: Publisher | None = None,
        full: bool = False,
        rerender: bool = False,
        dry_run: bool = False,
        wait: float = 0,
        site: str | SiteConfig | None = None,
    ) -> BuildResult:
        """Render every file into the storage and publish them at once: ``sitemapkit_build``.

        Under ``SITEMAPKIT["SITES"]`` one site is built: ``site`` names it
        (it may be left out when only one is configured).

        Raises BuildError, BuildLocked or PublishError; nothing is published then.
        """
        builder = self.builder(
            publisher=publisher,
            full=full,
            rerender=rerender,
            dry_run=dry_run,
            site=site,
        )
        return builder.run(list(sections) if sections else None, wait=wait)

    # -- checks -------------------------------------------------------------

    def check(self, app_configs: Sequence[AppConfig] | None = None) -> list[CheckMessage]:
        """The system check messages of the site and of its sections in ``app_configs``."""
        errors: list[CheckMessage] = [
            Error(
                f"Two sitemaps are registered as section {name!r}; {class_name} was ignored.",
                hint="Pass a distinct section= to register().",
                id="sitemapkit.E007",
            )
            for name, class_name in self.duplicate_sections
        ]
        for sitemap in self:
            if app_configs is None or _app_config(sitemap) in app_configs:
                errors.extend(sitemap.check())
        return errors

    # -- internals ----------------------------------------------------------

    def _find(self, model_or_section: type[models.Model] | str) -> str | None:
        if isinstance(model_or_section, str):
            return model_or_section if model_or_section in self._registry else None
        for name, sitemap in self._registry.items():
            if sitemap.model is model_or_section:
                return name
        return None

    def add(self, name: str, sitemap: Sitemap, *, replacing: str | None = None) -> None:
        """Add ``sitemap`` as section ``name`` (in place of section ``replacing``)."""
        if replacing is not None:
            self._registry.pop(replacing, None)
        if name in self._registry:
            self.duplicate_sections.append((name, type(sitemap).__qualname__))
            return
        self._registry[name] = sitemap


def _describe(model_or_section: type[models.Model] | str) -> str:
    if isinstance(model_or_section, str):
        return f"The section {model_or_section!r}"
    return f"The model {model_or_section._meta.label}"


def _app_config(sitemap: Sitemap) -> AppConfig | None:
    """The app a section belongs to: its model's, or the one defining its class."""
    if sitemap.model is not None:
        return sitemap.model._meta.app_config
    return apps.get_containing_app_config(type(sitemap).__module__)


def all_sites() -> list[SitemapSite]:
    return list(_sites)


#: The default site: what ``register()``, ``sitemapkit_build`` and ``django_sitemapkit.urls`` use.
site = SitemapSite()


def register(
    model: type[models.Model] | None = None,
    sitemap_class: Any = None,
    *,
    section: str | None = None,
) -> Registration:
    """Register on the default site; see :meth:`SitemapSite.register`."""
    return site.register(model, sitemap_class, section=section)


def register_sitemaps(sitemaps: Mapping[str, Any]) -> None:
    """Register contrib's ``sitemaps`` dict on the default site; see :meth:`SitemapSite.register_sitemaps`."""
    site.register_sitemaps(sitemaps)


def invalidate(*targets: type[models.Model] | str, pks: Iterable[object] | None = None) -> None:
    """Drop cached files of the default site; see :meth:`SitemapSite.invalidate`."""
    site.invalidate(*targets, pks=pks)


#: Build the default site: ``sitemapkit_build`` from Python; see :meth:`SitemapSite.build`.
build = site.build


def autodiscover() -> None:
    """Import every installed app's ``sitemaps`` module so it can register."""
    autodiscover_modules("sitemaps", register_to=site)
