"""django-sitemapkit: sitemaps.org sitemaps for Django, at any size.

Everything a project imports is here::

    import django_sitemapkit as sitemapkit

    @sitemapkit.register(Article)
    class ArticleSitemap(sitemapkit.ModelSitemap):
        url_name = "article-detail"
        url_kwargs = {"slug": "slug"}

    urlpatterns = [path("", sitemapkit.site.urls)]
"""

from importlib.metadata import PackageNotFoundError, version

from django_sitemapkit._building.builder import BuildError, BuildResult
from django_sitemapkit._conf import BaseUrlError
from django_sitemapkit._publishing.base import BuildLocked, PublishError
from django_sitemapkit._serving.robots import robots_txt
from django_sitemapkit._siteconfig import SiteConfig, current_site
from django_sitemapkit._sitemaps import ModelSitemap, Sitemap, StaticViewSitemap
from django_sitemapkit._sites import (
    AlreadyRegistered,
    NotRegistered,
    SitemapSite,
    autodiscover,
    build,
    invalidate,
    register,
    register_sitemaps,
    site,
)

try:
    __version__ = version("django-sitemapkit")
except PackageNotFoundError:  # a checkout on sys.path, not installed
    __version__ = "0+unknown"


__all__ = [
    "AlreadyRegistered",
    "BaseUrlError",
    "BuildError",
    "BuildLocked",
    "BuildResult",
    "ModelSitemap",
    "NotRegistered",
    "PublishError",
    "SiteConfig",
    "Sitemap",
    "SitemapSite",
    "StaticViewSitemap",
    "__version__",
    "autodiscover",
    "build",
    "current_site",
    "invalidate",
    "register",
    "register_sitemaps",
    "robots_txt",
    "site",
]
