"""System checks, registered in ``AppConfig.ready()``.

Ids: E001 BASE_URL missing, E002 BASE_URL malformed, E003 unknown setting,
E004 bad priority, E005 bad changefreq, E006 bad limit, E007 duplicate
section, E008 bad section name, E009 lastmod_field names no date field,
W001 model without a lastmod field, E010 SITEMAPKIT is not a dict, E011 index
links .gz files that builds do not write, E012 unknown STORAGE alias, E013
unknown CACHE_ALIAS, E014 a section lists URLs outside the index's directory.

E014 reads no database: a section whose URLs only rows can tell is checked
by ``sitemapkit_build`` instead, on its first row (see indexscope.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.apps import AppConfig
from django.conf import settings
from django.core.checks import CheckMessage, Error, Warning
from django.core.exceptions import FieldDoesNotExist

from django_sitemapkit.conf import (
    DEFAULTS,
    SETTINGS_NAME,
    BaseUrlError,
    base_url,
    clean_base_url,
)
from django_sitemapkit.engine.indexscope import INDEX_AT_ROOT_HINT, IndexDirectory, without_database
from django_sitemapkit.protocol.writer import CHANGEFREQS, MAX_ENTRIES_PER_FILE
from django_sitemapkit.registry import SECTION_NAME_RE, registry
from django_sitemapkit.sitemaps import ModelSitemap, _valid_priority


def check_settings(
    app_configs: Sequence[AppConfig] | None = None, **kwargs: Any
) -> list[CheckMessage]:
    errors: list[CheckMessage] = []
    raw = getattr(settings, SETTINGS_NAME, {})
    if not isinstance(raw, dict):
        return [
            Error(
                f"settings.{SETTINGS_NAME} must be a dict, not {type(raw).__name__}.",
                hint='SITEMAPKIT = {"BASE_URL": "https://www.example.com"}',
                id="sitemapkit.E010",
            )
        ]
    for key in sorted(set(raw) - set(DEFAULTS)):
        errors.append(
            Error(
                f"Unknown key {key!r} in settings.{SETTINGS_NAME}.",
                hint="Known keys: " + ", ".join(sorted(DEFAULTS)) + ".",
                id="sitemapkit.E003",
            )
        )
    if raw.get("INDEX_LINKS_GZIP") and raw.get("GZIP") is False:
        errors.append(
            Error(
                "INDEX_LINKS_GZIP names .xml.gz files in the index, but GZIP = False means "
                "sitemapkit_build does not write them.",
                hint="Set GZIP = True, or INDEX_LINKS_GZIP = False.",
                id="sitemapkit.E011",
            )
        )
    storage = raw.get("STORAGE")
    if storage is not None and storage not in settings.STORAGES:
        errors.append(
            Error(
                f"SITEMAPKIT['STORAGE'] names {storage!r}, which is not in settings.STORAGES.",
                hint="Name a STORAGES alias, or None for the local BUILD_DIR.",
                id="sitemapkit.E012",
            )
        )
    cache_alias = raw.get("CACHE_ALIAS", "default")
    if cache_alias not in settings.CACHES:
        errors.append(
            Error(
                f"SITEMAPKIT['CACHE_ALIAS'] names {cache_alias!r}, which is not in settings.CACHES.",
                id="sitemapkit.E013",
            )
        )
    errors.extend(_check_base_url(raw))
    return errors


def _check_base_url(raw: dict[str, Any]) -> list[CheckMessage]:
    try:
        clean_base_url(raw.get("BASE_URL"))
    except BaseUrlError as exc:
        if not exc.missing:
            hint = 'Use scheme and host, optionally a path: "https://www.example.com/shop".'
            return [Error(str(exc), hint=hint, id="sitemapkit.E002")]
        if not raw.get("USE_REQUEST_HOST"):
            hint = 'Set it to the site\'s absolute URL, e.g. "https://www.example.com".'
            return [Error(str(exc), hint=hint, id="sitemapkit.E001")]
    return []


def check_sitemaps(
    app_configs: Sequence[AppConfig] | None = None, **kwargs: Any
) -> list[CheckMessage]:
    errors: list[CheckMessage] = []
    for name, class_name in registry.duplicate_sections:
        errors.append(
            Error(
                f"Two sitemaps are registered as section {name!r}; {class_name} was ignored.",
                hint="Pass a distinct section= to register().",
                id="sitemapkit.E007",
            )
        )
    for sitemap in registry:
        label = f"Sitemap section {sitemap.name!r} ({type(sitemap).__qualname__})"
        if not SECTION_NAME_RE.match(sitemap.name):
            errors.append(
                Error(
                    f"{label}: the name is not URL-safe.",
                    hint="Use lowercase letters, digits, '-' and '_', at most 64 characters.",
                    id="sitemapkit.E008",
                )
            )
        priority = type(sitemap).priority
        if priority is not None and not callable(priority) and not _valid_priority(priority):
            errors.append(
                Error(
                    f"{label}: priority {priority!r} is not a number from 0.0 to 1.0.",
                    id="sitemapkit.E004",
                )
            )
        changefreq = type(sitemap).changefreq
        if changefreq is not None and not callable(changefreq) and changefreq not in CHANGEFREQS:
            errors.append(
                Error(
                    f"{label}: changefreq {changefreq!r} is not allowed.",
                    hint="One of: " + ", ".join(sorted(CHANGEFREQS)) + ".",
                    id="sitemapkit.E005",
                )
            )
        limit = sitemap.limit
        if (
            isinstance(limit, bool)
            or not isinstance(limit, int)
            or not 1 <= limit <= MAX_ENTRIES_PER_FILE
        ):
            errors.append(
                Error(
                    f"{label}: limit {limit!r} must be an integer from 1 to {MAX_ENTRIES_PER_FILE:,}.",
                    id="sitemapkit.E006",
                )
            )
        if isinstance(sitemap, ModelSitemap) and sitemap.model is not None:
            errors.extend(_check_lastmod_field(sitemap, label))
    return errors


def _check_lastmod_field(sitemap: ModelSitemap, label: str) -> list[CheckMessage]:
    field_name = sitemap.lastmod_field
    if field_name is None or sitemap.get_lastmod_field() is not None:
        return []
    assert sitemap.model is not None
    model_label = sitemap.model._meta.label
    explicit = "lastmod_field" in {
        attr for cls in type(sitemap).__mro__ if cls is not ModelSitemap for attr in vars(cls)
    }
    try:
        sitemap.model._meta.get_field(field_name)
        exists = True
    except FieldDoesNotExist:
        exists = False
    if explicit or exists:
        return [
            Error(
                f"{label}: lastmod_field {field_name!r} is not a date or datetime field of "
                f"{model_label}.",
                hint="Name a DateField/DateTimeField, or set lastmod_field = None.",
                obj=sitemap.model,
                id="sitemapkit.E009",
            )
        ]
    return [
        Warning(
            f"{label}: {model_label} has no {field_name!r} field, so its URLs are listed "
            "without lastmod and crawlers cannot tell which pages changed.",
            hint="Add an updated_at = DateTimeField(auto_now=True), name another field with "
            "lastmod_field = '...', or set lastmod_field = None to silence this.",
            obj=sitemap.model,
            id="sitemapkit.W001",
        )
    ]


def check_index_directory(
    app_configs: Sequence[AppConfig] | None = None, **kwargs: Any
) -> list[CheckMessage]:
    """E014: sections whose URLs the index's directory cannot list, as far as known without rows."""
    try:
        directory = IndexDirectory(base_url())
    except Exception:
        # No usable BASE_URL (E001/E002, or USE_REQUEST_HOST without one) or a
        # broken URLconf (Django's own URL checks report it): nothing to compare.
        return []
    errors: list[CheckMessage] = []
    for sitemap in registry:
        with without_database():
            misplaced = directory.misplaced(sitemap)
        if misplaced is not None:
            label = f"Sitemap section {sitemap.name!r} ({type(sitemap).__qualname__})"
            errors.append(
                Error(f"{label} {misplaced}", hint=INDEX_AT_ROOT_HINT, id="sitemapkit.E014")
            )
    return errors
