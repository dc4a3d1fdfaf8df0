"""The app's system checks (docs/checks.md lists the ids); a section checks itself in
``Sitemap.check()``, a site in ``SitemapSite.check()``. No check reads the database:
``sitemapkit_build`` reports E014 of a section only rows can tell, at its first row."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.apps import AppConfig
from django.conf import settings
from django.core.checks import CheckMessage, Error, Info, Warning

from django_sitemapkit._conf import (
    DEFAULTS,
    SETTINGS_NAME,
    BaseUrlError,
    base_url,
    clean_base_url,
    stylesheet_kind,
)
from django_sitemapkit._engine.rendering import INDEX_AT_ROOT_HINT, IndexDirectory, without_database
from django_sitemapkit._engine.rows import route_report
from django_sitemapkit._indexnow import config_problems
from django_sitemapkit._publishing.selection import folder_problem
from django_sitemapkit._siteconfig import SitesError, configured_sites, selected_sites
from django_sitemapkit._sitemapchecks import describe
from django_sitemapkit._sites import registries


def check_settings(
    app_configs: Sequence[AppConfig] | None = None, **kwargs: Any
) -> list[CheckMessage]:
    raw = getattr(settings, SETTINGS_NAME, {})
    if not isinstance(raw, dict):
        message = f"settings.{SETTINGS_NAME} must be a dict, not {type(raw).__name__}."
        hint = 'SITEMAPKIT = {"BASE_URL": "https://www.example.com"}'
        return [Error(message, hint=hint, id="sitemapkit.E010")]
    known = "Known keys: " + ", ".join(sorted(DEFAULTS)) + "."
    errors: list[CheckMessage] = [
        Error(f"Unknown key {key!r} in settings.{SETTINGS_NAME}.", hint=known, id="sitemapkit.E003")
        for key in sorted(set(raw) - set(DEFAULTS))
    ]
    if raw.get("INDEX_LINKS_GZIP") and raw.get("GZIP") is False:
        message = (
            "INDEX_LINKS_GZIP names .xml.gz files in the index, but GZIP = False means "
            "sitemapkit_build does not write them."
        )
        hint = "Set GZIP = True, or INDEX_LINKS_GZIP = False."
        errors.append(Error(message, hint=hint, id="sitemapkit.E011"))
    storage = raw.get("STORAGE")
    if storage is not None and storage not in settings.STORAGES:
        message = f"SITEMAPKIT['STORAGE'] names {storage!r}, which is not in settings.STORAGES."
        hint = "Name a STORAGES alias, or None for the local BUILD_DIR."
        errors.append(Error(message, hint=hint, id="sitemapkit.E012"))
    alias = raw.get("CACHE_ALIAS", "default")
    if alias not in settings.CACHES:
        message = f"SITEMAPKIT['CACHE_ALIAS'] names {alias!r}, which is not in settings.CACHES."
        errors.append(Error(message, id="sitemapkit.E013"))
    hint = 'INDEXNOW = {"KEY": "<8 to 128 of a-zA-Z0-9->"}, or None to turn IndexNow off.'
    errors += [
        Error(problem, hint=hint, id="sitemapkit.E022")
        for problem in config_problems(raw.get("INDEXNOW"))
    ]
    errors += [Error(problem, id="sitemapkit.E029") for problem in _history_problems(raw)]
    errors += _check_stylesheet(raw.get("STYLESHEET", DEFAULTS["STYLESHEET"]))
    return errors + (_check_sites_setting() if raw.get("SITES") else _check_base_url(raw))


def _history_problems(raw: dict[str, Any]) -> list[str]:
    """HISTORY a count of builds; SHRINK_GUARD and LASTMOD_CHURN_WARNING shares (0 or None: off)."""
    problems = []
    history = raw.get("HISTORY", DEFAULTS["HISTORY"])
    if isinstance(history, bool) or not isinstance(history, int) or history < 0:
        problems.append(f"{SETTINGS_NAME}['HISTORY'] must be a number of builds, 0 or more.")
    for key in ("SHRINK_GUARD", "LASTMOD_CHURN_WARNING"):
        value = raw.get(key, DEFAULTS[key])
        number = isinstance(value, int | float) and not isinstance(value, bool)
        if value is not None and not (number and 0 <= value <= 1):
            problems.append(
                f"{SETTINGS_NAME}[{key!r}] must be a share from 0 to 1 (0.5: half), or None: "
                f"not {value!r}."
            )
    return problems


def _check_stylesheet(value: object) -> list[CheckMessage]:
    """E028: a value STYLESHEET does not take; W008: the XSL, which browsers are removing."""
    try:
        kind = stylesheet_kind(value)
    except ValueError as exc:
        hint = '"css" (the default), None, or "xsl" (XSLT, which browsers are removing).'
        return [Error(str(exc), hint=hint, id="sitemapkit.E028")]
    if kind != "xsl":
        return []
    message = (
        f"SITEMAPKIT['STYLESHEET'] = {value!r} names the XSL stylesheet: browsers are removing "
        "XSLT (Chromium from M158, Firefox and Safari to follow), and until then Chromium covers "
        "the table with a banner telling visitors to contact the site's maintainer."
    )
    hint = 'Use "css" (the default: the XML laid out by CSS) or None (no stylesheet).'
    return [Warning(message, hint=hint, id="sitemapkit.W008")]


def _check_sites_setting() -> list[CheckMessage]:
    try:
        sites = configured_sites()
    except SitesError as exc:
        hint = 'SITES = {"shop": {"BASE_URL": "https://shop.example.com", "SECTIONS": [...]}}'
        return [Error(str(exc), hint=hint, id="sitemapkit.E020")]
    registered = {name for site in registries() for name in site.sections()}
    return [
        Error(
            f"SITEMAPKIT['SITES'][{config.name!r}]['SECTIONS'] names {name!r}, which no "
            "sitemap registers.",
            hint=f"Registered sections: {', '.join(sorted(registered)) or 'none'}.",
            id="sitemapkit.E021",
        )
        for config in sites
        for name in config.sections or ()
        if name not in registered
    ]


def _check_base_url(raw: dict[str, Any]) -> list[CheckMessage]:
    try:
        clean_base_url(raw.get("BASE_URL"))
    except BaseUrlError as exc:
        if not exc.missing:
            hint = 'Use scheme and host, optionally a path: "https://www.example.com/shop".'
            return [Error(str(exc), hint=hint, id="sitemapkit.E002")]
        if not raw.get("USE_REQUEST_HOST"):
            hint = 'Set it to the site\'s absolute URL, e.g. "https://www.example.com".'
            return [Error(str(exc), hint=hint, id="sitemapkit.E001")]
    return []


def check_sites(
    app_configs: Sequence[AppConfig] | None = None, **kwargs: Any
) -> list[CheckMessage]:
    """Each site's checks (E007, and each section's own ``check()``), E025, then E015."""
    errors: list[CheckMessage] = []
    owners: dict[str, str] = {}
    for site in registries():
        errors.extend(site.check(app_configs))
        if (problem := folder_problem(site.name)) is not None:
            hint = (
                "Give it a name of lower-case letters, digits, '-' or '_' that is not "
                "'current', 'generations' or a site of SITEMAPKIT['SITES']."
            )
            errors.append(Error(problem, hint=hint, id="sitemapkit.E025"))
        for name in site.sections():
            other = owners.setdefault(name, site.name)
            if other != site.name:
                message = (
                    f"Sitemap section {name!r} is registered in the sites {other!r} and "
                    f"{site.name!r}: sections share cached files and page boundaries by name."
                )
                hint = "Register it under another section= in one of them."
                errors.append(Error(message, hint=hint, id="sitemapkit.E015"))
    return errors


def check_index_directory(
    app_configs: Sequence[AppConfig] | None = None, **kwargs: Any
) -> list[CheckMessage]:
    """E014: sections whose URLs the index's directory cannot list, as known without rows."""
    errors: list[CheckMessage] = []
    try:
        configs = selected_sites(None)  # the sites of SITES, else BASE_URL's (None)
    except SitesError:
        configs = []  # E020
    for site in registries():
        for config in configs:
            try:
                url = base_url() if config is None else config.base_url
                directory = IndexDirectory(url, site.name)
            except Exception:
                # No usable BASE_URL (E001/E002, or USE_REQUEST_HOST without one) or a
                # broken URLconf (Django's own URL checks report it): nothing to compare.
                continue
            for sitemap in site:
                if config is not None and not config.lists(sitemap.name):
                    continue
                with without_database():
                    misplaced = directory.misplaced(sitemap)
                if misplaced is not None:
                    message = f"{describe(sitemap)} {misplaced}"
                    error = Error(message, hint=INDEX_AT_ROOT_HINT, id="sitemapkit.E014")
                    if error not in errors:
                        errors.append(error)
    return errors


def check_url_routes(
    app_configs: Sequence[AppConfig] | None = None, **kwargs: Any
) -> list[CheckMessage]:
    """I001: a model section calls location() per row (slow); I002: it fills a URL pattern."""
    messages: list[CheckMessage] = []
    for site in registries():
        for sitemap in site:
            try:
                report = route_report(sitemap)
            except Exception as exc:  # its own checks (E009, E019, ...) say what is wrong
                report = (False, f"location() per row: {type(exc).__name__}: {exc}")
            if report is None:
                continue
            fast, how = report
            message = f"Sitemap section {sitemap.name!r}: {how}."
            hint, check_id = (
                (None, "sitemapkit.I002") if fast else (_PER_ROW_HINT, "sitemapkit.I001")
            )
            messages.append(Info(message, hint=hint, id=check_id))
    return messages


_PER_ROW_HINT = (
    "Make get_absolute_url() one reverse() of a URL name with fields of the row, or name "
    "the pattern (url_name, url_kwargs): each URL is then filled from columns, without an "
    "instance and a reverse() per row."
)
