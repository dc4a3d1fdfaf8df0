"""``manage.py sitemapkit_explain URL_OR_PATH``: is the URL listed, where and with what; or why not."""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from django_sitemapkit._conf import BaseUrlError
from django_sitemapkit._explain import explain, explanation_lines
from django_sitemapkit._siteconfig import SiteConfig, add_site_option, chosen_sites, site_for_host
from django_sitemapkit._sites import site as default_registry


class Command(BaseCommand):
    help = (
        "Say whether a URL (or a path on the site) is listed in the sitemaps: in which section "
        "and file, with what lastmod, changefreq, priority and alternates; if not, why. "
        "Exits 0 when it is listed, 1 when it is not."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("url", metavar="URL_OR_PATH", help="An absolute URL or a path ('/a/').")
        parser.add_argument("--json", action="store_true", help="Print the answer as JSON.")
        add_site_option(
            parser,
            "Look on this site of SITEMAPKIT['SITES'] (repeatable; default: the URL's host's "
            "site, or every site for a path).",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        asked: str = options["url"]
        if not asked.strip():
            raise CommandError("Give a URL or a path, such as /articles/a/.")
        try:
            answers = [explain(asked, default_registry, s) for s in _sites(asked, options["sites"])]
        except BaseUrlError as exc:
            raise CommandError(str(exc)) from None
        if options["json"]:
            self.stdout.write(json.dumps([a.as_dict() for a in answers], indent=2))
        elif options["verbosity"] >= 1:
            for answer in answers:
                for line in explanation_lines(answer, options["verbosity"]):
                    self.stdout.write(line)
        if not any(answer.listed for answer in answers):
            raise SystemExit(1)


def _sites(asked: str, names: list[str] | None) -> list[SiteConfig | None]:
    """The sites named, else the one at the URL's host (every site for a path or another host)."""
    sites = chosen_sites(names)
    if names or "://" not in asked:
        return sites
    at_host = site_for_host(asked.partition("://")[2].partition("/")[0])
    return [site for site in sites if site is None or site == at_host] or sites
