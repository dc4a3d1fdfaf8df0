"""The ``SITEMAPKIT`` settings dict, read on each access (so ``override_settings`` works), with
every default in one place; and the site's base URL, which views, builds, commands and checks
accept and refuse alike."""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

from django_sitemapkit._protocol.files import STYLESHEETS
from django_sitemapkit._protocol.locations import DEFAULT_STRIP_PARAMS, parse_base_url

if TYPE_CHECKING:
    from django.http import HttpRequest

SETTINGS_NAME = "SITEMAPKIT"
# The start of every key this app writes to a Django cache (rendered files,
# their tokens, the build lock), so none can meet a key of the project's own.
CACHE_KEY_PREFIX = "sitemapkit:1"


@dataclass(frozen=True)
class SitemapkitSettings:
    """Every key and its default; the README documents each of them."""

    # Absolute URL of the site: scheme, host and optional path prefix. Required.
    BASE_URL: str | None = None
    # Build URLs from the request's Host header instead of BASE_URL. Off by
    # default: a poisoned Host header must never reach a cached sitemap.
    USE_REQUEST_HOST: bool = False
    # Django cache alias used for rendered files, and their timeout in seconds
    # (None: until invalidated; 0: no caching).
    CACHE_ALIAS: str = "default"
    CACHE_TIMEOUT: int | None = 3600
    # Value of the X-Robots-Tag header on every sitemap response; None omits it.
    X_ROBOTS_TAG: str | None = "noindex"
    # Query parameters removed from every <loc>, matched case-insensitively.
    STRIP_QUERY_PARAMS: tuple[str, ...] = DEFAULT_STRIP_PARAMS
    # Filesystem path of the robots.txt that `sitemapkit_robots` maintains.
    ROBOTS_TXT_PATH: str | None = None
    # Where `sitemapkit_build` publishes: a STORAGES alias, or None for the
    # local folder BUILD_DIR (default: <BASE_DIR>/sitemaps).
    STORAGE: str | None = None
    BUILD_DIR: str | None = None
    # Also write (and serve from the build) a .xml.gz beside every .xml.
    GZIP: bool = True
    # Name the .xml.gz files in the index instead of the .xml files.
    INDEX_LINKS_GZIP: bool = False
    # Let the views serve the published build instead of rendering, when one exists.
    SERVE_BUILT_FILES: bool = True
    # Several sites from one project: name -> {"BASE_URL", "SECTIONS",
    # "ROBOTS_TXT_PATH", "SITE_ID"} (see _siteconfig.py); None for one site.
    SITES: dict[str, Any] | None = None
    # The stylesheet every file names for people: "css", "xsl" (XSLT, which browsers are
    # removing) or None. Read through stylesheet_kind(): True is "xsl", False None.
    STYLESHEET: str | None = "css"
    # IndexNow after builds: {"KEY": ..., "ENDPOINT": ...}; None: off.
    INDEXNOW: dict[str, Any] | None = None
    # Enqueue a background rebuild (Django's tasks framework) after commits
    # touching registered models, at most one per section per DEBOUNCE seconds.
    REBUILD_AFTER_COMMIT: bool = False
    REBUILD_DEBOUNCE: float = 60
    # Builds the manifest's history keeps.
    HISTORY: int = 50
    # A build removing more than this share of a section's URLs publishes nothing (None or 0: off).
    SHRINK_GUARD: float | None = 0.5
    # Warn when more than this share of a section's lastmods move in one build (None or 0: off).
    LASTMOD_CHURN_WARNING: float | None = 0.5


DEFAULTS: dict[str, Any] = {f.name: f.default for f in fields(SitemapkitSettings)}


def user_settings() -> dict[str, Any]:
    value = getattr(settings, SETTINGS_NAME, {})
    return value if isinstance(value, dict) else {}


def get_settings() -> SitemapkitSettings:
    merged = {**DEFAULTS, **{k: v for k, v in user_settings().items() if k in DEFAULTS}}
    merged["STRIP_QUERY_PARAMS"] = tuple(str(p).lower() for p in merged["STRIP_QUERY_PARAMS"])
    try:
        merged["STYLESHEET"] = stylesheet_kind(merged["STYLESHEET"])
    except ValueError:
        merged["STYLESHEET"] = None  # E028 says so; a file naming no stylesheet is still right
    return SitemapkitSettings(**merged)


def stylesheet_kind(value: object) -> str | None:
    """``STYLESHEET``'s stylesheet ("css", "xsl") or None; ValueError for another value. True,
    the default before "css", is the XSL it meant; False is None."""
    if value is None or value is False:
        return None
    if value is True:
        return "xsl"
    if isinstance(value, str) and value in STYLESHEETS:
        return value
    choices = ", ".join(repr(kind) for kind in [*STYLESHEETS, None])
    raise ValueError(f"{SETTINGS_NAME}['STYLESHEET'] is {value!r}, not one of {choices}.")


class BaseUrlError(ImproperlyConfigured, ValueError):
    """The base URL is missing or malformed; the message names where it came from."""

    def __init__(self, source: str, problem: str | None = None) -> None:
        self.missing = problem is None
        if problem is None:
            message = (
                f"{source} is not set: sitemaps need the site's absolute URL, "
                "e.g. 'https://www.example.com'."
            )
        else:
            message = f"{source} is malformed: {problem}."
        super().__init__(message)


def clean_base_url(value: object, source: str = f"{SETTINGS_NAME}['BASE_URL']") -> str:
    """``value`` normalised as a base URL (see ``parse_base_url``), or BaseUrlError."""
    if not value:
        raise BaseUrlError(source)
    try:
        return parse_base_url(value)
    except ValueError as exc:
        raise BaseUrlError(source, str(exc)) from None


def base_url(request: HttpRequest | None = None) -> str:
    """The site's absolute URL: BASE_URL, or the request's own under USE_REQUEST_HOST.

    Raises BaseUrlError when BASE_URL is what is needed and it is unusable.
    """
    conf = get_settings()
    if request is not None and conf.USE_REQUEST_HOST:
        # get_host() validates against ALLOWED_HOSTS; the base URL is part of
        # every cache key, so one host can never poison another's sitemap.
        return parse_base_url(f"{request.scheme}://{request.get_host()}")
    return clean_base_url(conf.BASE_URL)
