"""Dropping cached sitemap files when the data behind them changes."""

from __future__ import annotations

from collections.abc import Iterable

from django.db import models

from django_sitemapkit.sitemaps import Sitemap


def sections_of(model: type[models.Model], sitemaps: Iterable[Sitemap]) -> list[str]:
    """The sections of ``sitemaps`` that list rows of ``model``, of its concrete model, or of
    a model it inherits from with a table of its own (a Wagtail page type's ``Page``)."""
    lineage = {model._meta.concrete_model, *model._meta.get_parent_list()}
    names = []
    for sitemap in sitemaps:
        listed = sitemap.get_model()
        if listed is not None and listed._meta.concrete_model in lineage:
            names.append(sitemap.name)
    return names


def target_sections(
    sitemaps: Iterable[Sitemap], targets: Iterable[type[models.Model] | str]
) -> list[str]:
    """Section names for ``invalidate()``'s targets: models and names; every section for none."""
    sitemaps = list(sitemaps)
    targets = list(targets)
    if not targets:
        return [sitemap.name for sitemap in sitemaps]
    names: list[str] = []
    for target in targets:
        names.extend([target] if isinstance(target, str) else sections_of(target, sitemaps))
    return names
