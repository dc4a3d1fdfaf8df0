from __future__ import annotations

from django.apps import AppConfig
from django.core import checks
from django.db.models.signals import post_delete, post_save

from django_sitemapkit import checks as sitemap_checks
from django_sitemapkit import rebuilds, routechecks
from django_sitemapkit.serving.cache import check_cache_across_processes
from django_sitemapkit.sites import autodiscover, on_model_change


class SimpleSitemapkitConfig(AppConfig):
    """The app without autodiscovery of ``sitemaps`` modules."""

    name = "django_sitemapkit"
    verbose_name = "Sitemaps"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        checks.register(sitemap_checks.check_settings, "sitemapkit")
        checks.register(sitemap_checks.check_sites, "sitemapkit")
        checks.register(sitemap_checks.check_index_directory, "sitemapkit", checks.Tags.urls)
        checks.register(check_cache_across_processes, "sitemapkit", deploy=True)
        checks.register(routechecks.check_url_routes, "sitemapkit", deploy=True)
        post_save.connect(on_model_change, dispatch_uid="sitemapkit-post-save")
        post_delete.connect(on_model_change, dispatch_uid="sitemapkit-post-delete")
        checks.register(rebuilds.check_rebuilds, "sitemapkit")
        checks.register(rebuilds.check_immediate_backend, "sitemapkit", deploy=True)
        post_save.connect(rebuilds.on_model_change, dispatch_uid="sitemapkit-rebuild-save")
        post_delete.connect(rebuilds.on_model_change, dispatch_uid="sitemapkit-rebuild-delete")


class SitemapkitConfig(SimpleSitemapkitConfig):
    """The default config: imports every installed app's ``sitemaps`` module."""

    default = True

    def ready(self) -> None:
        super().ready()
        autodiscover()
