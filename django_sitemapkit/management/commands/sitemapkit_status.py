"""``manage.py sitemapkit_status``: per section, what is published and whether it is stale."""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from django_sitemapkit._siteconfig import add_site_option, chosen_sites
from django_sitemapkit._sites import site as default_registry
from django_sitemapkit.admin import site_status, status_lines


class Command(BaseCommand):
    help = (
        "Show the published sitemap build per section: URLs, files, newest lastmod, skipped "
        "URLs, build time and duration, and whether the data is newer than the build; then "
        "the last builds' figures (every kept build with -v 2). "
        "Exits 1 when a section is stale."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--format", choices=["text", "json"], default="text")
        add_site_option(
            parser, "Only this site of SITEMAPKIT['SITES'] (repeatable; default: every site)."
        )

    def handle(self, *args: Any, **options: Any) -> None:
        statuses = [site_status(default_registry, site) for site in chosen_sites(options["sites"])]
        if options["format"] == "json":
            self.stdout.write(json.dumps([s.as_dict() for s in statuses], indent=2))
        else:
            for status in statuses:
                # The last 10 builds, every one kept at -v 2.
                builds = None if options["verbosity"] >= 2 else 10
                for line in status_lines(status, builds):
                    self.stdout.write(line)
        if any(status.stale for status in statuses):
            raise SystemExit(1)
