"""Pages of every kind ``sitemapkit_audit`` reports, and good ones (tests/test_command_sitemapkit_audit.py)."""

from django.urls import path

import django_sitemapkit as sitemapkit
from tests.testapp import views

urlpatterns = [
    path("ok/", views.audit_ok, name="ok"),
    path("ok/<str:slug>/", views.detail, name="ok-plain"),
    path("missing/", views.audit_missing, name="missing"),
    path("gone/<str:slug>/", views.audit_missing, name="gone"),
    path("moved/", views.audit_moved, name="moved"),
    path("meta/<str:name>/<str:content>/", views.audit_meta, name="meta"),
    path("header/<str:value>/", views.audit_header, name="header"),
    path("canonical/<path:href>", views.audit_canonical, name="canonical"),
    path("private/page/", views.detail, name="private"),
    path("raises/", views.audit_raises, name="raises"),
    path("slow/", views.audit_slow, name="slow"),
    path("", sitemapkit.site.urls),
]
