"""contrib's sitemaps dict registered in urls.py; its class has an error (check E004)."""

from django.contrib import sitemaps
from django.urls import include, path

import django_sitemapkit as sitemapkit


class PagesSitemap(sitemaps.Sitemap):
    priority = 2.0

    def items(self) -> list[str]:
        return ["/"]

    def location(self, item: str) -> str:
        return item


sitemapkit.register_sitemaps({"pages": PagesSitemap})

urlpatterns = [path("", include("django_sitemapkit.urls"))]
