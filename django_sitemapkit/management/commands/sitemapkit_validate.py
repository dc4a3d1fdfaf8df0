"""``manage.py sitemapkit_validate [PATH | URL]``: check a published set or a live site. Exit
status 0 when every file is right, 1 with findings or when there is nothing to check."""

from __future__ import annotations

import contextlib
from argparse import ArgumentTypeError
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from django_sitemapkit._siteconfig import add_site_option
from django_sitemapkit._validation.rules import SetCheck, as_json, as_text
from django_sitemapkit._validation.sources import DEFAULT_DEADLINE, target_sources
from django_sitemapkit._validation.xmlfile import load_schemas


class Command(BaseCommand):
    help = (
        "Validate sitemaps: a build folder or file (PATH), a live site (URL of its /sitemap.xml, "
        "its root or its /robots.txt), or by default the published build. Exit status 1 when "
        "anything is wrong."
    )
    requires_system_checks: list[str] = []

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("target", nargs="?", metavar="PATH | URL")
        add = parser.add_argument
        add("--storage", metavar="ALIAS", help="Validate the set published in this STORAGES alias.")
        add_site_option(
            parser, "Only this site of SITEMAPKIT['SITES'] (repeatable; default: every site)."
        )
        add("--base-url", metavar="URL", help="The site's URL, for a folder without a manifest.")
        add(
            "--robots",
            metavar="PATH",
            help="The robots.txt to check (default: SITEMAPKIT['ROBOTS_TXT_PATH']).",
        )
        add(
            "--xsd-dir",
            metavar="DIR",
            help="Validate against the XSDs in DIR with lxml, which the 'validate' extra installs "
            "(default: $SITEMAPKIT_XSD_DIR; without either, the same rules run in Python).",
        )
        add(
            "--deadline",
            metavar="SECONDS",
            type=seconds,
            default=DEFAULT_DEADLINE,
            help="For a live site (URL): the most the whole run may take; what is not read by "
            f"then is reported unchecked (default: {DEFAULT_DEADLINE:g}).",
        )
        add("--format", choices=("text", "json"), default="text")

    def handle(self, *args: Any, **options: Any) -> None:
        schemas = load_schemas(options["xsd_dir"])
        reports = [SetCheck(source, schemas).run() for source in target_sources(options)]
        render = as_json if options["format"] == "json" else as_text
        self.stdout.write(render(reports), ending="")
        if problems := sum(len(report.findings) for report in reports):
            raise CommandError(f"{problems:,} problem(s) found.", returncode=1)


def seconds(value: str) -> float:
    with contextlib.suppress(ValueError):
        if 0 < (seconds := float(value)) < float("inf"):
            return seconds
    raise ArgumentTypeError(f"not a positive number of seconds: {value!r}")
