"""``{% load sitemapkit %}``: ``{% robots_meta obj %}`` writes ``<meta name="robots"
content="noindex">`` for exactly the objects the sitemap leaves out by their section's
``noindex_field`` or ``is_indexable()``, so a page and the sitemap never disagree."""

from __future__ import annotations

import logging
from typing import Any

from django import template
from django.db import models
from django.utils.safestring import SafeString, mark_safe

from django_sitemapkit._serving.cache import sections_of
from django_sitemapkit._sitemaps import exclusion
from django_sitemapkit._sites import registries

register = template.Library()
logger = logging.getLogger("django_sitemapkit")

NOINDEX = mark_safe('<meta name="robots" content="noindex">')


@register.simple_tag
def robots_meta(obj: Any) -> SafeString:
    """``noindex`` when a section listing ``obj``'s model, in any registry, excludes it;
    "" otherwise, also for an object no section lists by model (a list section's items)."""
    if not isinstance(obj, models.Model):
        return mark_safe("")
    for registry in registries():
        for name in sections_of(type(obj), registry):
            sitemap = registry[name]
            try:
                if exclusion(sitemap, obj) is not None:
                    return NOINDEX
            except Exception as exc:  # a user's is_indexable(): a page must still render
                logger.warning(
                    "Sitemap section %r: robots_meta wrote nothing for %r: is_indexable() "
                    "raised %s: %s.",
                    name,
                    obj,
                    type(exc).__name__,
                    exc,
                )
    return mark_safe("")
