"""List the sitemap's sections, by app, with the pages the index names.

    python example_project/manage.py show_sitemaps

Reads the index through the sitemap views (``Client``), so it shows what the
server serves: the files of the last ``sitemapkit_build``.  ``scripts/example.sh``
runs it before starting the server.
"""

from __future__ import annotations

import re
from typing import Any
from xml.etree import ElementTree

from django.apps import apps
from django.core.management.base import BaseCommand, CommandError
from django.test import Client

import django_sitemapkit as sitemapkit

SITEMAP_NS = "{http://www.sitemaps.org/schemas/sitemap/0.9}"
PAGE_RE = re.compile(r"/sitemap-(?P<section>[a-z0-9_-]+)-(?P<page>[0-9]+)\.xml$")


def app_label(sitemap: Any) -> str:
    """The app a section belongs to: its model's, else the one defining its class."""
    model = sitemap.get_model()
    if model is not None:
        return model._meta.app_label
    config = apps.get_containing_app_config(type(sitemap).__module__)
    return config.label if config is not None else "?"


def class_name(cls: type, package: str) -> str:
    """``cls``, with the class of ``package`` it derives from: "ArticleSitemap (a ...ModelSitemap)"."""
    base = next(c for c in cls.__mro__ if c.__module__.startswith(package))
    if base is cls:
        return f"{package}.{cls.__name__}"
    return f"{cls.__qualname__} (a {package}.{base.__name__})"


def describe(sitemap: Any) -> str:
    if hasattr(sitemap, "contrib"):  # registered with register_sitemaps(): contrib's class
        kind = class_name(type(sitemap.contrib), "django.contrib.sitemaps")
    else:
        kind = class_name(type(sitemap), "django_sitemapkit")
    if sitemap.i18n:
        extras = [", ".join(sitemap.get_languages())]
        if sitemap.alternates:
            extras.append("hreflang alternates" + (" + x-default" if sitemap.x_default else ""))
        kind += f", i18n: {'; '.join(extras)}"
    return kind


class Command(BaseCommand):
    help = "List the sitemap's sections by app, with the pages the index names."

    requires_system_checks: list[str] = []

    def handle(self, *args: Any, **options: Any) -> None:
        response = Client().get("/sitemap.xml", HTTP_HOST="localhost")
        if response.status_code != 200:
            raise CommandError(f"/sitemap.xml answered {response.status_code}.")
        index = ElementTree.fromstring(response.content)
        pages: dict[str, list[str]] = {}
        for loc in index.iter(f"{SITEMAP_NS}loc"):
            match = PAGE_RE.search(loc.text or "")
            if match:
                pages.setdefault(match["section"], []).append(loc.text or "")
        sitemaps = sorted(sitemapkit.site, key=lambda sitemap: app_label(sitemap))
        width = max(len(sitemap.name) for sitemap in sitemaps)
        for sitemap in sitemaps:
            listed = pages.get(sitemap.name, [])
            where = listed[0] if listed else "(no pages: the section is empty)"
            if len(listed) > 1:
                where += f" (+{len(listed) - 1} more)"
            self.stdout.write(
                f"  {app_label(sitemap):<7} {sitemap.name:<{width}}  {where}\n"
                f"  {'':<7} {'':<{width}}  {describe(sitemap)}"
            )
