"""The sitemap classes a project subclasses and registers: hooks only, in
``django.contrib.sitemaps``' API; ``_engine`` pages, renders and publishes them."""

from __future__ import annotations

import datetime
import functools
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, ClassVar, NamedTuple

from django.core.checks import CheckMessage
from django.core.exceptions import FieldDoesNotExist
from django.db import models
from django.db.models import QuerySet
from django.template import TemplateDoesNotExist
from django.template.loader import select_template
from django.urls import NoReverseMatch, Resolver404, get_script_prefix, resolve, reverse

from django_sitemapkit._protocol.w3c import Lastmod
from django_sitemapkit._protocol.writer import MAX_ENTRIES_PER_FILE
from django_sitemapkit._reversing import site_languages
from django_sitemapkit._siteconfig import SiteConfig
from django_sitemapkit._sitemapchecks import ModelSitemapChecks, SitemapChecks


class Sitemap:
    """A section of the sitemap: a sequence of items, each one ``<url>``.

    As in ``django.contrib.sitemaps``: subclasses override ``items()`` and
    ``location()``; ``lastmod``, ``changefreq`` and ``priority`` are attributes
    or methods taking the item; ``limit``, ``protocol``, ``i18n``, ``languages``,
    ``alternates`` and ``x_default`` have contrib's meaning.
    """

    #: The section's name in file names and URLs; registering sets it.
    section: ClassVar[str | None] = None
    model: ClassVar[type[models.Model] | None] = None
    #: URLs per file (at most 50,000, the protocol's limit).
    limit: int = MAX_ENTRIES_PER_FILE
    changefreq: str | Callable[[Any], str | None] | None = None
    priority: float | Callable[[Any], float | None] | None = None
    lastmod: Lastmod | Callable[[Any], Lastmod | None] | None = None
    #: Extension namespaces declared on ``<urlset>`` (prefix -> URI), for ``extra_xml()``.
    namespaces: ClassVar[Mapping[str, str]] = {}
    #: The scheme of the section's URLs, ``"http"`` or ``"https"``; None: the site's.
    protocol: str | None = None
    #: List each item once per language, reversed in that language.
    i18n: bool = False
    #: The languages of an ``i18n`` section; None: every code of ``settings.LANGUAGES``.
    languages: Sequence[str] | None = None
    #: Give each ``i18n`` entry ``<xhtml:link rel="alternate" hreflang=...>`` to its languages.
    alternates: bool = False
    #: Add the ``x-default`` alternate: ``LANGUAGE_CODE``'s URL without its language prefix.
    x_default: bool = False

    def items(self) -> Sequence[Any] | QuerySet[Any]:
        return []

    def get_languages(self) -> list[str]:
        """The section's languages: ``languages``, or those of ``settings.LANGUAGES``."""
        return list(self.languages) if self.languages is not None else site_languages()

    # django.contrib.sitemaps' name for it, which its users' overrides call.
    _languages = get_languages

    def get_languages_for_item(self, item: Any) -> Sequence[str]:
        """The languages ``item`` is listed in (``i18n`` sections): all the section's by default."""
        return self.get_languages()

    def get_model(self) -> type[models.Model] | None:
        """The model whose saves change this section: ``model``, else that of ``items()``'s QuerySet."""
        return self.model if self.model is not None else self._items_model

    @functools.cached_property
    def _items_model(self) -> type[models.Model] | None:
        items = self.items()
        return items.model if isinstance(items, QuerySet) else None

    def for_site(self, items: Any, site: SiteConfig) -> Any:
        """The part of ``items`` (what ``items()`` or ``get_queryset()`` gives) ``site`` lists.

        Every item by default; override to narrow a section shared by several
        sites (``SITEMAPKIT["SITES"]``), e.g. ``items.filter(site=site.name)``.
        """
        return items

    def location(self, item: Any) -> str:
        return str(item.get_absolute_url())

    def is_indexable(self, item: Any) -> bool:
        """Whether ``item`` may be indexed: False leaves it out, counted as excluded, not skipped.

        Every item by default. ``{% robots_meta item %}`` writes ``noindex`` where it is False.
        Defined on a ``ModelSitemap``, it needs an instance per row (no column rows): a
        boolean column is cheaper as ``noindex_field``.
        """
        return True

    def extra_xml(self, item: Any) -> tuple[str, ...]:
        """Serialised extension elements for ``item`` (none by default).

        Checked: an item whose fragment is not well-formed or uses an undeclared prefix is skipped.
        """
        return ()

    def images(self, item: Any) -> Iterable[str | Mapping[str, Any]]:
        """``item``'s image URLs (or dicts with ``"loc"``): ``<image:image>``, at most 1,000."""
        return ()

    def videos(self, item: Any) -> Iterable[Mapping[str, Any]]:
        """``item``'s videos: dicts of Google's video tags (``thumbnail_loc``, ``title``, ...)."""
        return ()

    def news(self, item: Any) -> Mapping[str, Any] | None:
        """``item``'s ``publication_name``, ``publication_language``, ``publication_date``, ``title``.

        Defining it makes a news section: articles of the last two days, 1,000 a file.
        """
        return None

    @property
    def name(self) -> str:
        assert self.section is not None, "a Sitemap is used through a SitemapSite"
        return self.section

    checks_class: ClassVar[type[SitemapChecks]] = SitemapChecks

    def check(self, **kwargs: Any) -> list[CheckMessage]:
        """System check messages about this section, as ``ModelAdmin.check()`` gives."""
        return self.checks_class().check(self)


class ModelSitemap(Sitemap):
    """Every row of ``get_queryset()``, paged by primary-key ranges.

    By default each row is a model instance and ``<loc>`` is its
    ``get_absolute_url()``. Naming the URL pattern and the fields that fill it
    (``url_name = "article-detail"``, ``url_kwargs = {"slug": "slug"}``)
    selects column rows: tuples of just those columns, with the pattern
    reversed once per file instead of once per row, for the same URLs.
    ``changefreq_field`` and ``priority_field`` read those values from columns.
    """

    checks_class: ClassVar[type[SitemapChecks]] = ModelSitemapChecks
    #: The date or datetime field lastmod is read from; None for no lastmod.
    lastmod_field: str | None = "updated_at"
    url_name: str | None = None
    #: URL pattern keyword -> model field filling it.
    url_kwargs: Mapping[str, str] = {}
    changefreq_field: str | None = None
    priority_field: str | None = None
    #: A field holding an image URL or file (``"cover"``), or a related one (``"photos__file"``).
    images_field: str | None = None
    #: A news section's publication date field: the two-day window is applied in SQL.
    news_date_field: str | None = None
    #: A boolean field: rows where it is true are never listed (filtered in SQL; NULL is indexable).
    noindex_field: str | None = None

    def items(self) -> QuerySet[Any]:
        return self.get_queryset()

    def get_queryset(self) -> QuerySet[Any]:
        """The rows listed: those of ``items()`` where a subclass defines it, else every row."""
        if type(self).items is not ModelSitemap.items:
            # A contrib-style items() says which rows to list (no drafts, say).
            queryset = self.items()
            if not isinstance(queryset, QuerySet):
                raise TypeError(
                    f"{type(self).__qualname__}.items() returned {type(queryset).__name__}: "
                    "a ModelSitemap's items() must return a QuerySet (subclass Sitemap for lists)."
                )
            return queryset
        assert self.model is not None, f"{type(self).__qualname__} has no model"
        return self.model._default_manager.all()

    def defines_lastmod(self) -> bool:
        """Whether the class gives lastmod itself (a ``lastmod()`` or a value) over ``lastmod_field``."""
        return type(self).lastmod is not None

    def get_lastmod_field(self) -> models.Field[Any, Any] | None:
        """The model field lastmod is read from, or None when there is none."""
        if self.lastmod_field is None or self.model is None:
            return None
        return date_field(self.model, self.lastmod_field)


def listed_rows(sitemap: ModelSitemap) -> QuerySet[Any]:
    """``get_queryset()`` less the rows ``noindex_field`` marks: the rows every path reads.

    Not inside ``get_queryset()``: projects override it (the README's classes do).
    """
    queryset = sitemap.get_queryset()
    if sitemap.noindex_field is None:
        return queryset
    # exclude(): NOT (field AND field IS NOT NULL) keeps NULL rows, as on every backend.
    return queryset.exclude(**{sitemap.noindex_field: True})


def exclusion(sitemap: Sitemap, item: Any) -> str | None:
    """Why the section's rules leave ``item`` out, or None if they list it: its ``noindex_field``
    is true (the attribute ``listed_rows()`` filters in SQL), or ``is_indexable(item)`` is False."""
    field = getattr(sitemap, "noindex_field", None)
    if field is not None and getattr(item, field, None):
        return f"noindex_field {field!r} is true for it"
    return None if sitemap.is_indexable(item) else "is_indexable() returned False"


def date_field(model: type[models.Model], name: str) -> models.Field[Any, Any] | None:
    """``model``'s field ``name`` if it is a date or datetime field, else None."""
    try:
        field = model._meta.get_field(name)
    except FieldDoesNotExist:
        return None
    return field if isinstance(field, models.DateField) else None


class StaticViewSitemap(Sitemap):
    """Pages named by URL pattern, e.g. ``url_names = ["home", ("docs", {"slug": "faq"})]``.

    Each entry is a name, or a tuple of a name and args (a list) and/or kwargs
    (a dict). lastmod is the modification time of the template the view
    renders, as sitemaps.org advises for static pages; override ``lastmod``.
    A listing page changes when one of its children does: ``lastmod_sources``
    dates it by the newest of their rows instead.
    """

    url_names: Sequence[str | tuple[Any, ...]] = ()
    #: URL name -> a QuerySet, or a model a ``ModelSitemap`` section lists: the lastmod of that
    #: name's pages is the newest lastmod of those rows (one aggregate per render), not ``lastmod``.
    lastmod_sources: Mapping[str, QuerySet[Any] | type[models.Model]] = {}

    def items(self) -> Sequence[Any]:
        return [UrlName.of(entry) for entry in self.url_names]

    def location(self, item: Any) -> str:
        """Reverse ``item``: a ``UrlName``, or a URL name as contrib's examples list them."""
        if isinstance(item, UrlName):
            return reverse(item.name, args=item.args, kwargs=item.kwargs)
        return reverse(item)

    def lastmod(self, item: Any) -> datetime.datetime | None:
        # Only for the pages of url_names: items() of a project's own (a
        # contrib class rebased here) keep contrib's meaning, no lastmod.
        return template_mtime(self.location(item)) if isinstance(item, UrlName) else None


def lastmod_source(
    value: Any, sections: Iterable[Sitemap]
) -> tuple[ModelSitemap | None, models.Field[Any, Any]]:
    """The section of a ``lastmod_sources`` value's model in ``sections`` (its first
    ``ModelSitemap``; needed for a model, optional for a QuerySet) and the date field its rows
    are dated by: that section's lastmod field, else ``updated_at``. ValueError: why none."""
    model = source_model(value)
    if model is None:
        raise ValueError(f"{type(value).__name__} is neither a QuerySet nor a model")
    label = model._meta.label
    section = next((s for s in sections if isinstance(s, ModelSitemap) and s.model is model), None)
    if section is None and model is value:
        raise ValueError(f"no ModelSitemap section of the registry lists {label}")
    field = None if section is None else section.get_lastmod_field()
    field = field or date_field(model, str(ModelSitemap.lastmod_field))
    if field is None:
        whose = f"section {section.name!r}" if section is not None else "a section"
        raise ValueError(f"{label} has no lastmod field in {whose} and no updated_at")
    return section, field


def lastmod_source_problems(sitemap: StaticViewSitemap, sections: Iterable[Sitemap]) -> list[str]:
    """What is wrong with ``sitemap.lastmod_sources`` in the registry of ``sections``."""
    sources: Any = sitemap.lastmod_sources  # a project's value: anything
    if not isinstance(sources, Mapping):
        return [f"lastmod_sources is {type(sources).__name__}, not a dict"]
    try:
        names = {UrlName.of(entry).name for entry in sitemap.url_names}
    except Exception:  # a malformed entry: rendering says what is wrong with it
        names = None
    problems = []
    for name, value in sources.items():
        if names is not None and name not in names:
            problems.append(f"lastmod_sources names {name!r}, which is not in url_names")
        try:
            lastmod_source(value, sections)
        except ValueError as exc:
            problems.append(f"lastmod_sources[{name!r}]: {exc}")
    return problems


def source_models(sitemap: Sitemap) -> list[type[models.Model]]:
    """The models whose rows date pages of ``sitemap`` (``lastmod_sources``): their writes
    change its files as writes of its own model do."""
    sources = getattr(sitemap, "lastmod_sources", None)
    if not isinstance(sources, Mapping):
        return []
    return [model for value in sources.values() if (model := source_model(value)) is not None]


def source_model(value: Any) -> type[models.Model] | None:
    """The model of a ``lastmod_sources`` value: a QuerySet's, or the model itself."""
    if isinstance(value, QuerySet):
        return value.model
    return value if isinstance(value, type) and issubclass(value, models.Model) else None


class UrlName(NamedTuple):
    """One entry of ``StaticViewSitemap.url_names``: a URL name and its arguments."""

    name: str
    args: tuple[Any, ...] = ()
    kwargs: dict[str, Any] = {}

    @classmethod
    def of(cls, entry: Any) -> UrlName:
        name, *rest = (entry,) if isinstance(entry, str) else entry
        args = next((tuple(part) for part in rest if not isinstance(part, Mapping)), ())
        kwargs = next((dict(part) for part in rest if isinstance(part, Mapping)), {})
        return cls(name, args, kwargs)


def template_mtime(path: str) -> datetime.datetime | None:
    """Modification time of the template rendered by the view at ``path``, if any."""
    prefix = get_script_prefix()
    if path.startswith(prefix):
        path = "/" + path[len(prefix) :]
    try:
        match = resolve(path)
    except (Resolver404, NoReverseMatch):
        return None
    view = match.func
    template_name = (
        match.kwargs.get("template_name")
        or (getattr(view, "view_initkwargs", None) or {}).get("template_name")
        or getattr(getattr(view, "view_class", None), "template_name", None)
        or getattr(view, "template_name", None)
    )
    if not template_name:
        return None
    names = [template_name] if isinstance(template_name, str) else list(template_name)
    try:
        template = select_template(names)
    except TemplateDoesNotExist:
        return None
    filename = getattr(getattr(template, "origin", None), "name", None)
    if not filename or not os.path.exists(filename):
        return None
    return datetime.datetime.fromtimestamp(int(os.path.getmtime(filename)), tz=datetime.UTC)
