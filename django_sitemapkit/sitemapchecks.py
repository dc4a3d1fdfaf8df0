"""What a sitemap class checks about itself: ``Sitemap.check()``, as ``ModelAdmin.check()``.

The ids are listed in checks.py, with the site-wide checks.
"""

from __future__ import annotations

import re
from typing import Any

from django.core.checks import CheckMessage, Error, Warning
from django.core.exceptions import FieldDoesNotExist

from django_sitemapkit.protocol.writer import CHANGEFREQS, MAX_ENTRIES_PER_FILE, valid_priority

# Section names appear in file names and URLs (``sitemap-<section>-<page>.xml``),
# so they are restricted to characters that need no escaping anywhere.
SECTION_NAME_RE = re.compile(r"^[a-z0-9](?:[a-z0-9_-]{0,62}[a-z0-9])?$")


def describe(sitemap: Any) -> str:
    """How messages name a registered section."""
    return f"Sitemap section {sitemap.name!r} ({type(sitemap).__qualname__})"


class SitemapChecks:
    """The checks of any sitemap: its name and its constant values."""

    def check(self, sitemap: Any) -> list[CheckMessage]:
        label = describe(sitemap)
        return [
            *self._check_name(sitemap, label),
            *self._check_priority(sitemap, label),
            *self._check_changefreq(sitemap, label),
            *self._check_limit(sitemap, label),
        ]

    def _check_name(self, sitemap: Any, label: str) -> list[CheckMessage]:
        if SECTION_NAME_RE.match(sitemap.name):
            return []
        return [
            Error(
                f"{label}: the name is not URL-safe.",
                hint="Use lowercase letters, digits, '-' and '_', at most 64 characters.",
                id="sitemapkit.E008",
            )
        ]

    def _check_priority(self, sitemap: Any, label: str) -> list[CheckMessage]:
        priority = type(sitemap).priority
        if priority is None or callable(priority) or valid_priority(priority):
            return []
        return [
            Error(
                f"{label}: priority {priority!r} is not a number from 0.0 to 1.0.",
                id="sitemapkit.E004",
            )
        ]

    def _check_changefreq(self, sitemap: Any, label: str) -> list[CheckMessage]:
        changefreq = type(sitemap).changefreq
        if changefreq is None or callable(changefreq) or changefreq in CHANGEFREQS:
            return []
        return [
            Error(
                f"{label}: changefreq {changefreq!r} is not allowed.",
                hint="One of: " + ", ".join(sorted(CHANGEFREQS)) + ".",
                id="sitemapkit.E005",
            )
        ]

    def _check_limit(self, sitemap: Any, label: str) -> list[CheckMessage]:
        limit = sitemap.limit
        if (
            isinstance(limit, int)
            and not isinstance(limit, bool)
            and 1 <= limit <= MAX_ENTRIES_PER_FILE
        ):
            return []
        return [
            Error(
                f"{label}: limit {limit!r} must be an integer from 1 to {MAX_ENTRIES_PER_FILE:,}.",
                id="sitemapkit.E006",
            )
        ]


class ModelSitemapChecks(SitemapChecks):
    """A model section's checks: the above, and the field its lastmod is read from."""

    def check(self, sitemap: Any) -> list[CheckMessage]:
        messages = super().check(sitemap)
        if sitemap.model is not None:
            messages.extend(self._check_lastmod_field(sitemap, describe(sitemap)))
        return messages

    def _check_lastmod_field(self, sitemap: Any, label: str) -> list[CheckMessage]:
        field_name = sitemap.lastmod_field
        if field_name is None or sitemap.get_lastmod_field() is not None:
            return []
        model_label = sitemap.model._meta.label
        # Set by a subclass, not the ModelSitemap default ("updated_at").
        explicit = sum("lastmod_field" in vars(cls) for cls in type(sitemap).__mro__) > 1
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
