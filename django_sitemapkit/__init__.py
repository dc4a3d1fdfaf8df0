"""django-sitemapkit: sitemaps.org sitemaps for Django, at any size."""

from django_sitemapkit.registry import (
    AlreadyRegistered,
    NotRegistered,
    SitemapRegistry,
    autodiscover,
    register,
    registry,
)
from django_sitemapkit.serving.invalidation import invalidate
from django_sitemapkit.sitemaps import ModelSitemap, Sitemap, StaticViewSitemap

__all__ = [
    "AlreadyRegistered",
    "ModelSitemap",
    "NotRegistered",
    "Sitemap",
    "SitemapRegistry",
    "StaticViewSitemap",
    "autodiscover",
    "invalidate",
    "register",
    "registry",
]
