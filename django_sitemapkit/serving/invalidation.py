"""Dropping cached sitemap files when the data behind them changes."""

from __future__ import annotations

from typing import Any

from django.db import models, transaction

from django_sitemapkit.registry import SitemapRegistry, registry
from django_sitemapkit.serving.cache import invalidate_sections


def sections_of(model: type[models.Model], sitemaps: SitemapRegistry = registry) -> list[str]:
    concrete = model._meta.concrete_model
    return [
        sitemap.name
        for sitemap in sitemaps
        if sitemap.model is not None and sitemap.model._meta.concrete_model is concrete
    ]


def invalidate(*targets: type[models.Model] | str) -> None:
    """Drop the cached files of the given models' or sections' names; all when none are given.

    Call it after writes that send no signals (``QuerySet.update()``,
    ``bulk_create()``, raw SQL).
    """
    if not targets:
        invalidate_sections(registry.sections())
        return
    names: list[str] = []
    for target in targets:
        names.extend([target] if isinstance(target, str) else sections_of(target))
    invalidate_sections(names)


def on_model_change(sender: type[models.Model], using: str = "default", **kwargs: Any) -> None:
    """post_save / post_delete receiver: invalidate once the write is committed.

    Before the commit another request could re-render from the old data and
    cache it under the new token; on_commit runs at once outside a transaction.
    """
    names = sections_of(sender)
    if names:
        transaction.on_commit(lambda: invalidate_sections(names), using=using)
