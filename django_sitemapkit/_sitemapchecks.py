"""What a sitemap class checks about itself: ``Sitemap.check()``, as ``ModelAdmin.check()``
runs its ``checks_class``. docs/checks.md lists the ids."""

from __future__ import annotations

import re
from typing import Any

from django.core.checks import CheckMessage, Error, Warning
from django.core.exceptions import FieldDoesNotExist
from django.db import models

from django_sitemapkit._conf import get_settings
from django_sitemapkit._protocol.writer import (
    CHANGEFREQS,
    MAX_ENTRIES_PER_FILE,
    accepts,
    changefreq_value,
    priority_value,
)
from django_sitemapkit._reversing import site_languages

# Names go into file names and URLs: only characters that need no escaping anywhere.
SECTION_NAME_RE = re.compile(r"^[a-z0-9](?:[a-z0-9_-]{0,62}[a-z0-9])?$")
_OWN_CLASSES_MODULE = "django_sitemapkit._sitemaps"


def describe(sitemap: Any) -> str:
    return f"Sitemap section {sitemap.name!r} ({type(sitemap).__qualname__})"


def _defined_by_project(cls: type, name: str) -> bool:
    """Whether a class of the project's, not sitemapkit's own, defines ``name``."""
    return any(name in vars(base) for base in cls.__mro__ if base.__module__ != _OWN_CLASSES_MODULE)


class SitemapChecks:
    """The checks of any sitemap: its name and its constant values."""

    #: Run in this order: ``_check_<name>(sitemap, label)`` return a message or None.
    checks: tuple[str, ...] = ("name", "priority", "changefreq", "limit", "languages", "protocol")

    def check(self, sitemap: Any) -> list[CheckMessage]:
        label = describe(sitemap)
        found = [getattr(self, f"_check_{name}")(sitemap, label) for name in self.checks]
        return [message for message in found if message is not None]

    def _check_languages(self, sitemap: Any, label: str) -> CheckMessage | None:
        codes = sitemap.get_languages() if sitemap.i18n else []
        unknown = [code for code in codes if code not in site_languages()]
        if not unknown:
            return None
        return Error(
            f"{label}: languages {', '.join(map(repr, unknown))} are not in "
            "settings.LANGUAGES: their URLs would not resolve.",
            hint="List only codes of settings.LANGUAGES in languages.",
            id="sitemapkit.E016",
        )

    def _check_protocol(self, sitemap: Any, label: str) -> CheckMessage | None:
        protocol = sitemap.protocol
        if protocol is None:
            return None
        if protocol not in ("http", "https"):
            return Error(
                f"{label}: protocol {protocol!r} is neither 'http' nor 'https'.",
                hint="Remove protocol: URLs take the scheme of BASE_URL.",
                id="sitemapkit.E017",
            )
        scheme = str(get_settings().BASE_URL or "").partition("://")[0].lower()
        if not scheme or scheme == protocol:
            return None
        return Warning(
            f"{label}: protocol {protocol!r} is ignored: its URLs take BASE_URL's scheme "
            f"{scheme!r}, as every URL of a sitemap does.",
            hint="Remove protocol, or make BASE_URL use that scheme.",
            id="sitemapkit.W005",
        )

    def _check_name(self, sitemap: Any, label: str) -> CheckMessage | None:
        if SECTION_NAME_RE.match(sitemap.name):
            return None
        hint = "Use lowercase letters, digits, '-' and '_', at most 64 characters."
        return Error(f"{label}: the name is not URL-safe.", hint=hint, id="sitemapkit.E008")

    def _check_priority(self, sitemap: Any, label: str) -> CheckMessage | None:
        priority = type(sitemap).priority
        if priority is None or callable(priority) or accepts(priority_value, priority):
            return None
        message = f"{label}: priority {priority!r} is not a number from 0.0 to 1.0."
        return Error(message, id="sitemapkit.E004")

    def _check_changefreq(self, sitemap: Any, label: str) -> CheckMessage | None:
        changefreq = type(sitemap).changefreq
        if changefreq is None or callable(changefreq) or accepts(changefreq_value, changefreq):
            return None
        hint = "One of: " + ", ".join(sorted(CHANGEFREQS)) + "."
        message = f"{label}: changefreq {changefreq!r} is not allowed."
        return Error(message, hint=hint, id="sitemapkit.E005")

    def _check_limit(self, sitemap: Any, label: str) -> CheckMessage | None:
        limit = sitemap.limit
        if (
            isinstance(limit, int)
            and not isinstance(limit, bool)
            and 1 <= limit <= MAX_ENTRIES_PER_FILE
        ):
            return None
        message = f"{label}: limit {limit!r} must be an integer from 1 to {MAX_ENTRIES_PER_FILE:,}."
        return Error(message, id="sitemapkit.E006")


class ModelSitemapChecks(SitemapChecks):
    """A model section's checks: the above, its QuerySet and the fields it reads."""

    checks = (
        *SitemapChecks.checks,
        "column_rows",
        "items",
        "news_date_field",
        "lastmod_field",
        "noindex_field",
    )

    def _check_column_rows(self, sitemap: Any, label: str) -> CheckMessage | None:
        if sitemap.url_name is None:
            return None
        methods = [
            f"{name}()"
            for name in ("location", "lastmod", "is_indexable")
            if callable(getattr(sitemap, name)) and _defined_by_project(type(sitemap), name)
        ]
        if not methods:
            return None
        return Error(
            f"{label}: url_name reads columns, not instances, so {' and '.join(methods)} "
            "would never be called.",
            hint="Remove url_name to list instances through those methods, or read the "
            "values from columns (url_kwargs, lastmod_field) and remove the methods.",
            id="sitemapkit.E018",
        )

    def _check_news_date_field(self, sitemap: Any, label: str) -> CheckMessage | None:
        if sitemap.news_date_field is not None or not _defined_by_project(type(sitemap), "news"):
            return None
        return Warning(
            f"{label}: news() makes it a news section, but without news_date_field every "
            "row is read to find the last two days' articles, by the live index too (to "
            "leave out pages of old rows).",
            hint="Name the publication date field: news_date_field = 'published_at'.",
            id="sitemapkit.W002",
        )

    def _check_items(self, sitemap: Any, label: str) -> CheckMessage | None:
        try:
            sitemap.get_queryset()
        except TypeError as exc:
            return Error(f"{label}: {exc}", id="sitemapkit.E019")
        except Exception:  # a database not ready yet: rendering will say
            pass
        return None

    def _check_lastmod_field(self, sitemap: Any, label: str) -> CheckMessage | None:
        field_name = sitemap.lastmod_field
        model = sitemap.model
        if model is None or field_name is None or sitemap.get_lastmod_field() is not None:
            return None
        # Set by a subclass, not the ModelSitemap default ("updated_at").
        explicit = _defined_by_project(type(sitemap), "lastmod_field")
        if sitemap.defines_lastmod() and not explicit:
            return None  # entries take lastmod(); only the live index lacks per-file dates
        try:
            model._meta.get_field(field_name)
        except FieldDoesNotExist:
            if not explicit:
                return Warning(
                    f"{label}: {model._meta.label} has no {field_name!r} field, so its URLs are "
                    "listed without lastmod and crawlers cannot tell which pages changed.",
                    hint="Add an updated_at = DateTimeField(auto_now=True), name another field "
                    "with lastmod_field = '...', or set lastmod_field = None to silence this.",
                    obj=model,
                    id="sitemapkit.W001",
                )
        return Error(
            f"{label}: lastmod_field {field_name!r} is not a date or datetime field of "
            f"{model._meta.label}.",
            hint="Name a DateField/DateTimeField, or set lastmod_field = None.",
            obj=model,
            id="sitemapkit.E009",
        )

    def _check_noindex_field(self, sitemap: Any, label: str) -> CheckMessage | None:
        field_name, model = sitemap.noindex_field, sitemap.model
        if field_name is None or model is None:
            return None
        try:
            field = model._meta.get_field(field_name)
        except FieldDoesNotExist:
            field = None
        if isinstance(field, models.BooleanField):  # null=True too: NULL is indexable
            return None
        return Error(
            f"{label}: noindex_field {field_name!r} is not a BooleanField of {model._meta.label}.",
            hint="Name a BooleanField whose true rows are never listed, or remove noindex_field.",
            obj=model,
            id="sitemapkit.E026",
        )
