"""The URL patterns of a site's views: what ``SitemapSite.get_urls()`` returns."""

from __future__ import annotations

from typing import Any

from django.urls import URLPattern, re_path

from django_sitemapkit.engine.rendering import PAGE_NUMBER, SectionRegistry
from django_sitemapkit.serving import stylesheet, views
from django_sitemapkit.serving.keyfile import key_file_pattern

_SECTION = r"(?P<section>[a-z0-9](?:[a-z0-9_-]*[a-z0-9])?)"
_PAGE = rf"sitemap-{_SECTION}-(?P<page>{PAGE_NUMBER})"


def patterns(sitemaps: SectionRegistry) -> list[URLPattern]:
    """``/sitemap.xml``, ``/sitemap-<section>-<page>.xml``, their ``.gz``, and contrib's old URLs."""
    kwargs: dict[str, Any] = {"sitemaps": sitemaps}
    return [
        re_path(r"^sitemap\.xml$", views.index, kwargs, name="index"),
        re_path(r"^sitemap\.xml\.gz$", views.index, {**kwargs, "gz": True}, name="index-gz"),
        # The XSL the files reference: beside the index, on the site's own origin.
        re_path(r"^sitemap\.xsl$", stylesheet.stylesheet, kwargs, name="stylesheet"),
        re_path(rf"^{_PAGE}\.xml$", views.section, kwargs, name="section"),
        re_path(rf"^{_PAGE}\.xml\.gz$", views.section, {**kwargs, "gz": True}, name="section-gz"),
        # django.contrib.sitemaps' section URL, which crawlers may still know.
        re_path(
            rf"^sitemap-{_SECTION}\.xml$", views.contrib_section, kwargs, name="contrib-section"
        ),
        # IndexNow's key file, matched only while INDEXNOW names that key.
        key_file_pattern(),
    ]
