"""The admin's read-only sitemap status page: what ``sitemapkit_status`` prints, per site.

It hangs on a proxy model (``SitemapStatus``) so that it appears in the admin
index, under the app, for staff with its "view" permission; nothing can be
added, changed or deleted, and its only URL is the changelist's, which shows
the status instead of rows.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse, HttpResponseNotAllowed
from django.template.response import TemplateResponse
from django.urls import URLPattern, path

from django_sitemapkit.models import SitemapStatus
from django_sitemapkit.siteconfig import selected_sites
from django_sitemapkit.sites import site
from django_sitemapkit.status import site_status

TEMPLATE = "admin/django_sitemapkit/status.html"

if TYPE_CHECKING:
    StatusAdminBase = admin.ModelAdmin[SitemapStatus]
else:  # ModelAdmin is generic only in django-stubs
    StatusAdminBase = admin.ModelAdmin


@admin.register(SitemapStatus)
class SitemapStatusAdmin(StatusAdminBase):
    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def get_urls(self) -> list[URLPattern]:
        opts = self.model._meta
        view = self.admin_site.admin_view(self.changelist_view)
        return [path("", view, name=f"{opts.app_label}_{opts.model_name}_changelist")]

    def changelist_view(
        self, request: HttpRequest, extra_context: dict[str, Any] | None = None
    ) -> HttpResponse:
        if not self.has_view_permission(request):
            raise PermissionDenied
        if request.method not in ("GET", "HEAD"):
            return HttpResponseNotAllowed(["GET", "HEAD"])
        statuses = [site_status(site, target) for target in selected_sites(None)]
        context = {
            **self.admin_site.each_context(request),
            "title": "Sitemap status",
            "opts": self.model._meta,
            "statuses": statuses,
            **(extra_context or {}),
        }
        return TemplateResponse(request, TEMPLATE, context)
