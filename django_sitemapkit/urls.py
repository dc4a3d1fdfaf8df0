"""``path("", include("django_sitemapkit.urls"))`` serves ``/sitemap.xml``."""

from django.urls import re_path

from django_sitemapkit.serving import views

app_name = "sitemapkit"

# Page numbers are canonical (no 0, no leading zeros), so one file has one URL.
_SECTION = r"sitemap-(?P<section>[a-z0-9](?:[a-z0-9_-]*[a-z0-9])?)-(?P<page>[1-9][0-9]{0,8})"

urlpatterns = [
    re_path(r"^sitemap\.xml$", views.index, name="index"),
    re_path(r"^sitemap\.xml\.gz$", views.index, {"gz": True}, name="index-gz"),
    re_path(rf"^{_SECTION}\.xml$", views.section, name="section"),
    re_path(rf"^{_SECTION}\.xml\.gz$", views.section, {"gz": True}, name="section-gz"),
]
