"""Registries of sitemap sections (``SitemapSite``) in ``django.contrib.admin``'s shape: what
``register()`` fills, ``site.urls`` serves and ``build()`` publishes.

``sitemapkit.site`` is the default registry; a second one is only for a second index under
another path (docs/sites.md), while the hosts of ``SITEMAPKIT["SITES"]`` are sites
(_siteconfig.py) each serving some sections of a registry.
"""

from __future__ import annotations

import contextlib
import weakref
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, TypeVar

from django.apps import AppConfig, apps
from django.core.checks import CheckMessage, Error
from django.db import models
from django.urls import URLPattern, get_resolver
from django.utils.module_loading import autodiscover_modules

from django_sitemapkit._building.builder import Builder, BuildResult
from django_sitemapkit._compat import is_contrib_sitemap, section_class
from django_sitemapkit._engine.rendering import URL_NAMESPACE
from django_sitemapkit._publishing.base import Publisher
from django_sitemapkit._serving.cache import (
    record_build,
    sections_of,
    sections_written,
    write_marks,
)
from django_sitemapkit._serving.views import url_patterns
from django_sitemapkit._siteconfig import SiteConfig
from django_sitemapkit._sitemapchecks import describe
from django_sitemapkit._sitemaps import (
    ModelSitemap,
    Sitemap,
    StaticViewSitemap,
    lastmod_source_problems,
)

# Every registry made, for what concerns them all: model signals and system checks.
_registries: weakref.WeakSet[SitemapSite] = weakref.WeakSet()

SitemapClass = TypeVar("SitemapClass")


class AlreadyRegistered(Exception):
    """The model or section is registered already."""


class NotRegistered(Exception):
    """The model or section is not registered."""


def default_section_name(model: type[models.Model]) -> str:
    """``shop_core.ProductVariant`` is ``shop-core-productvariant``."""
    opts = model._meta
    return f"{opts.app_label}-{opts.model_name}".lower().replace("_", "-")


class Registration:
    """What ``register()`` returns: a decorator that (re)places the section's class."""

    def __init__(
        self, registry: SitemapSite, model: type[models.Model] | None, section: str | None
    ) -> None:
        self.registry = registry
        self.model = model
        self.section = section
        self._installed_default: str | None = None

    def install(self, sitemap_class: type[Sitemap], *, is_default: bool = False) -> None:
        model = self.model or sitemap_class.model
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
        # A subclass per registration keeps class attributes of the user's
        # class untouched, so one class can serve several sections.
        attrs = {"section": name, "model": model}
        bound_class = type(sitemap_class.__name__, (sitemap_class,), attrs)
        bound_class.__module__ = sitemap_class.__module__
        bound_class.__qualname__ = sitemap_class.__qualname__
        self.registry.add(name, bound_class(), replacing=self._installed_default)
        self._installed_default = name if is_default else None

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
            raise TypeError(
                "register() takes a django_sitemapkit Sitemap subclass (Sitemap, ModelSitemap, "
                "StaticViewSitemap) or a django.contrib.sitemaps Sitemap subclass or instance "
                f"(GenericSitemap(...) included); got {sitemap_class!r}."
            )
        return sitemap_class


class SitemapSite:
    """A registry: sitemap sections, and the URLs, builds and checks that serve them."""

    def __init__(self, name: str = URL_NAMESPACE) -> None:
        #: The URL namespace of the registry's views, and its build folder's name.
        self.name = name
        self._registry: dict[str, Sitemap] = {}
        # Names that two registrations asked for: reported by system check
        # E007 rather than raised at import time, so `manage.py check` can
        # explain the clash instead of the project failing to start.
        self.duplicate_sections: list[tuple[str, str]] = []
        _registries.add(self)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r}: {', '.join(self._registry) or 'empty'}>"

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
            name = section or default_section_name(model)
            # A section of that name listing something else is E007 instead.
            taken = self._registry.get(name)
            if taken is not None and taken.model is model:
                raise AlreadyRegistered(
                    f"The model {model._meta.label} is already registered as section {name!r}. "
                    "To list it in a second section as well, give that section another name: "
                    f"register({model.__name__}, section='<another name>')."
                )
        registration = Registration(self, model, section)
        if sitemap_class is not None:
            registration(sitemap_class)
        elif model is not None:
            registration.install(ModelSitemap, is_default=True)
        return registration

    def register_sitemaps(self, sitemaps: Mapping[str, Any]) -> None:
        """Register the ``sitemaps`` dict of ``django.contrib.sitemaps.views``: a section per key.

        The values are what contrib takes (``GenericSitemap(info_dict, ...)``
        included) or sitemapkit's own classes.
        """
        for name, sitemap in sitemaps.items():
            self.register(sitemap_class=sitemap, section=name)

    def unregister(self, model_or_section: type[models.Model] | str) -> None:
        """Remove the section of that name, or every section of that model."""
        names = [n for n, s in self._registry.items() if model_or_section in (n, s.model)]
        if not names:
            if isinstance(model_or_section, str):
                raise NotRegistered(f"The section {model_or_section!r} is not registered.")
            raise NotRegistered(f"The model {model_or_section._meta.label} is not registered.")
        for name in names:
            del self._registry[name]

    def is_registered(self, model_or_section: type[models.Model] | str) -> bool:
        return any(model_or_section in (n, s.model) for n, s in self._registry.items())

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
        # An empty registry must not be falsy: autodiscover_modules(register_to=...)
        # would then skip the snapshot it restores when an app's sitemaps.py raises,
        # and the user would see an UnboundLocalError instead of their own exception.
        return True

    def sections(self) -> list[str]:
        return list(self._registry)

    def add(self, name: str, sitemap: Sitemap, *, replacing: str | None = None) -> None:
        """Add ``sitemap`` as section ``name`` (in place of section ``replacing``)."""
        if replacing is not None:
            self._registry.pop(replacing, None)
        if name in self._registry:
            self.duplicate_sections.append((name, type(sitemap).__qualname__))
        else:
            self._registry[name] = sitemap

    def get_urls(self) -> list[URLPattern]:
        """``/sitemap.xml``, ``/sitemap-<section>-<page>.xml`` and their ``.gz``."""
        return url_patterns(self)

    @property
    def urls(self) -> tuple[list[URLPattern], str, str]:
        """For ``path("", site.urls)``: the patterns, app name and namespace."""
        return self.get_urls(), URL_NAMESPACE, self.name

    def invalidate(self, *targets: type[models.Model] | str) -> None:
        """Tell of writes the app cannot see: of the given models or sections; of all for none.

        Call it after writes that send no signals (``QuerySet.update()``,
        ``bulk_create()``, raw SQL): the sections' cached files go, and until
        the next build the views render them live instead of serving the
        published build.
        """
        if not targets:
            sections_written(self.sections())
        for target in targets:
            sections_written([target] if isinstance(target, str) else sections_of(target, self))

    def invalidate_listing(self, section: str) -> None:
        sections_written([section], build_stale=False)

    def builder(self, *, site: str | SiteConfig | None = None, **options: Any) -> Builder:
        """A build: :meth:`build`'s options, and ``progress`` called with (pages done, pages)."""
        return _RecordingBuilder(sitemaps=self, site=site, **options)

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
        force: bool = False,
    ) -> BuildResult:
        """Render every file into the storage and publish them at once: ``sitemapkit_build``.

        Under ``SITEMAPKIT["SITES"]`` one site is built: ``site`` names it (unless it is the
        only one). Raises BuildError, BuildLocked or PublishError; nothing is published then.
        A set that lost more than ``SHRINK_GUARD`` of a section's URLs raises BuildError
        unless ``force``.
        """
        return self.builder(
            publisher=publisher,
            full=full,
            rerender=rerender,
            dry_run=dry_run,
            site=site,
            force=force,
        ).run(list(sections) if sections else None, wait=wait)

    def check(self, app_configs: Sequence[AppConfig] | None = None) -> list[CheckMessage]:
        """The system check messages of the registry and of its sections in ``app_configs``."""
        errors: list[CheckMessage] = [
            Error(
                f"Two sitemaps are registered as section {name!r}; {class_name} was ignored.",
                hint="Pass a distinct section= to register().",
                id="sitemapkit.E007",
            )
            for name, class_name in self.duplicate_sections
        ]
        for sitemap in self:
            # The app a section belongs to: its model's, or the one defining its class.
            app = (
                apps.get_containing_app_config(type(sitemap).__module__)
                if sitemap.model is None
                else sitemap.model._meta.app_config
            )
            if app_configs is None or app in app_configs:
                errors.extend(sitemap.check())
                errors.extend(self._check_lastmod_sources(sitemap))
        return errors

    def _check_lastmod_sources(self, sitemap: Sitemap) -> list[CheckMessage]:
        """E027: a ``lastmod_sources`` entry that cannot date its page (its model's section
        is looked up in this registry)."""
        if not isinstance(sitemap, StaticViewSitemap):
            return []
        return [
            Error(
                f"{describe(sitemap)}: {problem}.",
                hint="Map URL names of url_names to a QuerySet, or to a model a ModelSitemap "
                "section of this registry lists, with a date field (the section's "
                "lastmod_field, or updated_at).",
                id="sitemapkit.E027",
            )
            for problem in lastmod_source_problems(sitemap, self)
        ]


class _RecordingBuilder(Builder):
    """A build that records which writes its files hold, for the views (_serving/cache.py)."""

    def run(self, sections: list[str] | None = None, *, wait: float = 0) -> BuildResult:
        previous = self.publisher.manifest()
        # Read before the build reads any row: a write after this is not in its files.
        marks = write_marks(self.sitemaps.sections())
        result = super().run(sections, wait=wait)
        manifest = None if self.dry_run else self.publisher.manifest()
        if manifest is not None:
            built = set(marks)
            if sections and result.every_section_because is None:
                built = {*sections, *result.first_published}
            record_build(self.sitemaps, manifest.generation, marks, built=built, previous=previous)
        return result


def registries(*, load_urlconf: bool = True) -> list[SitemapSite]:
    """Every registry, by default after the URLconf registered what it registers
    (docs/migrating.md does, and a system check may run before any request imports it)."""
    if load_urlconf:
        # A broken or missing URLconf is for Django's own URL checks to report.
        with contextlib.suppress(Exception):
            get_resolver().url_patterns  # noqa: B018 -- imports ROOT_URLCONF
    return list(_registries)


#: The default registry: what ``register()``, ``sitemapkit_build`` and ``django_sitemapkit.urls`` use.
site = SitemapSite()


#: Register on the default registry; see :meth:`SitemapSite.register`.
register = site.register
#: Register contrib's ``sitemaps`` dict on the default registry.
register_sitemaps = site.register_sitemaps
#: Tell the default registry of writes it cannot see; see :meth:`SitemapSite.invalidate`.
invalidate = site.invalidate
#: Build the default registry: ``sitemapkit_build`` from Python; see :meth:`SitemapSite.build`.
build = site.build


def autodiscover() -> None:
    """Import every installed app's ``sitemaps`` module so it can register."""
    autodiscover_modules("sitemaps", register_to=site)
