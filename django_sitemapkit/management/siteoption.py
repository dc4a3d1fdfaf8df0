"""``--site``, as every command that works on sites of ``SITEMAPKIT["SITES"]`` takes it."""

from __future__ import annotations

from collections.abc import Sequence

from django.core.management.base import CommandError, CommandParser

from django_sitemapkit.siteconfig import SiteConfig, SitesError, selected_sites


def add_site_option(parser: CommandParser, help_text: str) -> None:
    """``--site NAME`` (repeatable), into ``options["sites"]``."""
    parser.add_argument("--site", action="append", dest="sites", metavar="NAME", help=help_text)


def chosen_sites(names: Sequence[str] | None) -> list[SiteConfig | None]:
    """The sites named by ``--site``, else every one (``[None]`` without SITES); a
    CommandError naming what is wrong otherwise."""
    try:
        return selected_sites(names)
    except (LookupError, SitesError) as exc:
        raise CommandError(str(exc)) from None
