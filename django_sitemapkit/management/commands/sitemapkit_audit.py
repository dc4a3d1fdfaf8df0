"""``manage.py sitemapkit_audit``: request every URL the sitemaps list, in-process, and report
those a search engine would not index. Exit status 0 on a clean site, 1 when anything is found."""

from __future__ import annotations

import json
import sys
from argparse import ArgumentTypeError
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from django_sitemapkit._audit import DEFAULT_SEED, DEFAULT_TIMEOUT, Report, audit, kinds
from django_sitemapkit._siteconfig import add_site_option, chosen_sites
from django_sitemapkit.management.commands.sitemapkit_build import progress_bar
from django_sitemapkit.management.commands.sitemapkit_validate import seconds


class Command(BaseCommand):
    help = (
        "Request every URL the sitemaps list through Django's test client (the project's "
        "middleware, no network) and report each that answers other than 200, redirects, says "
        "noindex, names another canonical URL or is disallowed by robots.txt. Exit status 1 when "
        "any is found."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        add = parser.add_argument
        add_site_option(
            parser, "Audit only this site of SITEMAPKIT['SITES'] (repeatable; default: every site)."
        )
        add("--sample", type=_count, metavar="N", help="Audit N listed URLs chosen at random.")
        add(
            "--seed",
            type=int,
            default=DEFAULT_SEED,
            help=f"The seed choosing --sample's URLs, so that runs repeat (default: {DEFAULT_SEED}).",
        )
        add(
            "--timeout",
            type=seconds,
            default=DEFAULT_TIMEOUT,
            metavar="SECONDS",
            help="The longest a page may take; a slower one is reported as timed out "
            f"(default: {DEFAULT_TIMEOUT:g}).",
        )
        add("--json", action="store_true", help="Print the report as JSON.")
        add("--no-progress", action="store_true", help="No progress bar, even on a terminal.")

    def handle(self, *args: Any, **options: Any) -> None:
        verbosity: int = options["verbosity"]
        show_progress = verbosity >= 1 and not options["no_progress"] and sys.stderr.isatty()
        reports = []
        for target in chosen_sites(options["sites"]):
            try:
                reports.append(
                    audit(
                        target,
                        sample=options["sample"],
                        seed=options["seed"],
                        timeout=options["timeout"],
                        progress=progress_bar("URLs") if show_progress else None,
                    )
                )
            finally:
                if show_progress:
                    sys.stderr.write("\n")
        if options["json"]:
            found = {
                "ok": not any(r.findings for r in reports),
                "sites": [r.as_dict() for r in reports],
            }
            self.stdout.write(json.dumps(found, indent=2))
        else:
            for report in reports:
                self._write(report, verbosity)
        if problems := sum(len(report.findings) for report in reports):
            raise CommandError(f"{problems:,} listed URL(s) with problems.", returncode=1)

    def _write(self, report: Report, verbosity: int) -> None:
        if verbosity >= 1:
            for entry in report.findings:
                where = f" [{entry.section}: {entry.file}]" if verbosity >= 2 else ""
                found = "; ".join(f"{p.kind}: {p.detail}" for p in entry.problems)
                self.stdout.write(f"{entry.url}{where} {found}")
            for section, counts in report.sections().items():
                self.stdout.write(f"Section {section!r}: {kinds(counts)}")
            self.stdout.write(report.summary())


def _count(value: str) -> int:
    if value.isdigit() and int(value) > 0:
        return int(value)
    raise ArgumentTypeError(f"not a positive number of URLs: {value!r}")
