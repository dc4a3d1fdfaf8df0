"""Sites: the hosts of ``SITEMAPKIT["SITES"]``, each with its base URL, the sections it lists
(every registered one by default) and its robots.txt; and the site whose files are rendering.

Views serve the site whose host is the request's and refuse any other host; builds write one
set per site.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

from django.core.exceptions import ImproperlyConfigured
from django.core.management.base import CommandError, CommandParser
from django.http.request import split_domain_port

from django_sitemapkit._conf import BaseUrlError, clean_base_url, user_settings

# A site's name is a folder name in builds and a storage prefix: kept plain.
SITE_NAME = re.compile(r"[a-z0-9](?:[a-z0-9_-]{0,30}[a-z0-9])?")
SITE_KEYS = frozenset({"BASE_URL", "SECTIONS", "ROBOTS_TXT_PATH", "SITE_ID"})


class SitesError(ImproperlyConfigured):
    """``SITEMAPKIT["SITES"]`` is malformed; the message says where."""


@dataclass(frozen=True)
class SiteConfig:
    """One site of ``SITEMAPKIT["SITES"]``."""

    name: str
    #: Normalised as ``BASE_URL`` is: scheme, lower-cased host, optional path.
    base_url: str
    #: The sections the site lists, by name; None: every registered section.
    sections: tuple[str, ...] | None = None
    robots_txt_path: str | None = None
    #: The ``django.contrib.sites`` id of the site, for ``for_site()`` hooks.
    site_id: int | None = None

    @property
    def host(self) -> str:
        """``host[:port]`` of the base URL, as requests for the site carry it."""
        return self.base_url.partition("://")[2].partition("/")[0]

    def lists(self, section: str) -> bool:
        return self.sections is None or section in self.sections


def configured_sites() -> list[SiteConfig]:
    """The sites of ``SITEMAPKIT["SITES"]`` in order; none when it is unset.

    Raises SitesError when the setting is malformed (system check E020 reports it).
    """
    raw = user_settings().get("SITES")
    if not raw:
        return []
    if not isinstance(raw, dict):
        raise SitesError(
            f"SITEMAPKIT['SITES'] must be a dict of site name -> settings, not {type(raw).__name__}."
        )
    sites = [_site(name, value) for name, value in raw.items()]
    hosts: dict[str, str] = {}
    for site in sites:
        other = hosts.setdefault(site.host, site.name)
        if other != site.name:
            raise SitesError(
                f"SITEMAPKIT['SITES'] gives the sites {other!r} and {site.name!r} the same host "
                f"{site.host!r}: views tell sites apart by host."
            )
    return sites


def _site(name: object, value: object) -> SiteConfig:
    where = f"SITEMAPKIT['SITES'][{name!r}]"
    if not isinstance(name, str) or not SITE_NAME.fullmatch(name):
        raise SitesError(
            f"{where}: a site name is 1-32 lower-case letters, digits, '-' or '_' "
            "(it names the site's build folder)."
        )
    if not isinstance(value, dict):
        raise SitesError(f"{where} must be a dict with BASE_URL, not {type(value).__name__}.")
    unknown = sorted(set(value) - SITE_KEYS)
    if unknown:
        raise SitesError(
            f"{where} has unknown keys {', '.join(map(repr, unknown))}; "
            f"known: {', '.join(sorted(SITE_KEYS))}."
        )
    try:
        base_url = clean_base_url(value.get("BASE_URL"), f"{where}['BASE_URL']")
    except BaseUrlError as exc:
        raise SitesError(str(exc)) from None
    sections = value.get("SECTIONS")
    if sections is not None and (
        isinstance(sections, str)
        or not isinstance(sections, Sequence | set | frozenset)
        or not all(isinstance(n, str) for n in sections)
    ):
        raise SitesError(f"{where}['SECTIONS'] must be a list of section names.")
    return SiteConfig(
        name=name,
        base_url=base_url,
        sections=None if sections is None else tuple(sections),
        robots_txt_path=value.get("ROBOTS_TXT_PATH"),
        site_id=value.get("SITE_ID"),
    )


def site_named(name: str) -> SiteConfig:
    """The configured site ``name``; LookupError naming the others when there is none."""
    sites = configured_sites()
    for site in sites:
        if site.name == name:
            return site
    known = ", ".join(site.name for site in sites) or "none (SITEMAPKIT['SITES'] is unset)"
    raise LookupError(f"No site named {name!r} in SITEMAPKIT['SITES']; configured: {known}.")


def selected_sites(names: Sequence[str] | None) -> list[SiteConfig | None]:
    """What a command works on: the sites ``names`` names, else every one; ``[None]`` without SITES.

    Raises LookupError (an unknown name, or names without SITES) or SitesError."""
    sites = configured_sites()
    if not names:
        return list(sites) or [None]
    if not sites:
        raise LookupError(f"--site {names[0]} needs SITEMAPKIT['SITES'], which is not set.")
    return [site_named(name) for name in dict.fromkeys(names)]


def add_site_option(parser: CommandParser, help_text: str) -> None:
    """``--site NAME`` (repeatable), into ``options["sites"]``, as every command takes it."""
    parser.add_argument("--site", action="append", dest="sites", metavar="NAME", help=help_text)


def chosen_sites(names: Sequence[str] | None) -> list[SiteConfig | None]:
    """:func:`selected_sites` for a command: a CommandError saying what is wrong."""
    try:
        return selected_sites(names)
    except (LookupError, SitesError) as exc:
        raise CommandError(str(exc)) from None


def one_site(site: str | SiteConfig | None) -> SiteConfig | None:
    """The site one build is for: ``site``, else the only one configured; None without SITES.

    Raises LookupError when ``site`` names no site, or names none of several; SitesError.
    """
    if isinstance(site, SiteConfig):
        return site
    if site is not None:
        return site_named(site)
    sites = configured_sites()
    if len(sites) > 1:
        raise LookupError(
            "SITEMAPKIT['SITES'] has several sites; name the one to build: "
            f"{', '.join(s.name for s in sites)}."
        )
    return sites[0] if sites else None


def site_for_host(host: str) -> SiteConfig | None:
    """The site whose host is ``host`` (any case, a trailing dot ignored), or None; a port
    must match only where the base URL names one: a proxy may not pass the public port on."""
    name, port = split_domain_port(host)
    for site in configured_sites():
        site_name, site_port = split_domain_port(site.host)
        if name == site_name and (not site_port or port == site_port):
            return site
    return None


_current: ContextVar[SiteConfig | None] = ContextVar("sitemapkit_site", default=None)


def current_site() -> SiteConfig | None:
    """The site whose files are rendering; None outside :func:`rendering_site` or without SITES."""
    return _current.get()


@contextmanager
def rendering_site(site: SiteConfig | None) -> Iterator[None]:
    """Render (and record pages) for ``site`` inside the block."""
    token = _current.set(site)
    try:
        yield
    finally:
        _current.reset(token)
