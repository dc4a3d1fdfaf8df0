"""The views of a registry's URLs (the index, the section files, the stylesheets, the
IndexNow key file) and the URL patterns that route them."""

from __future__ import annotations

import datetime
import functools
import re
import sys
import time
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar

from django.http import (
    Http404,
    HttpRequest,
    HttpResponse,
    HttpResponseBase,
    HttpResponsePermanentRedirect,
)
from django.urls import URLPattern, re_path, reverse
from django.urls.resolvers import RegexPattern
from django.utils.cache import get_conditional_response, patch_cache_control
from django.utils.crypto import constant_time_compare
from django.utils.http import http_date
from django.views.decorators.http import require_safe

from django_sitemapkit._conf import base_url, get_settings
from django_sitemapkit._engine.pages import PageNotFound
from django_sitemapkit._engine.rendering import (
    INDEX_NAME,
    PAGE_NUMBER,
    RenderedFile,
    SectionNotFound,
    SectionRegistry,
    SiteSections,
    page_filename,
    render_index,
    render_page,
    site_of,
)
from django_sitemapkit._indexnow import KEY_ROUTE, indexnow_config
from django_sitemapkit._protocol.files import (
    GZIP_CONTENT_TYPE,
    STYLESHEET_FILES,
    XML_CONTENT_TYPE,
)
from django_sitemapkit._publishing.base import PublishError
from django_sitemapkit._publishing.selection import get_publisher, published_file
from django_sitemapkit._serving.cache import (
    build_holds_writes,
    file_cache,
    file_key,
    get_or_render,
    section_tokens,
)
from django_sitemapkit._siteconfig import SiteConfig, configured_sites, site_for_host

P = ParamSpec("P")
R = TypeVar("R", bound=HttpResponseBase)

_EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.UTC)
_SECOND = datetime.timedelta(seconds=1)
# The earliest Last-Modified sent: HTTP-date parsers read a year below 100
# as a two-digit year (Django's parse_http_date and email.utils both take
# "0001" for 2001), so an earlier header would name another, maybe future, time.
_EARLIEST_STAMP = (datetime.datetime(100, 1, 1, tzinfo=datetime.UTC) - _EPOCH) // _SECOND
# A stylesheet changes only with the package: a day in caches, revalidated by its ETag after.
STYLESHEET_MAX_AGE = 86_400


def file_view(view: Callable[P, R]) -> Callable[P, R]:
    """``view`` answering GET and HEAD only, with ``X-Content-Type-Options: nosniff`` also
    without ``SecurityMiddleware``: a browser never takes a file for HTML it guessed from bytes
    a row supplied."""
    safe = require_safe(view)

    @functools.wraps(view)
    def wrapped(*args: P.args, **kwargs: P.kwargs) -> R:
        response = safe(*args, **kwargs)
        response["X-Content-Type-Options"] = "nosniff"
        return response

    return wrapped


def _robots_tag(response: HttpResponseBase) -> None:
    robots = get_settings().X_ROBOTS_TAG
    if robots:
        response["X-Robots-Tag"] = robots


def _built(
    sitemaps: SectionRegistry, filename: str, gz: bool, site: SiteConfig | None, sections: list[str]
) -> RenderedFile | None:
    """The file from the published build, unless there is none or it lacks a write of
    ``sections``."""
    conf = get_settings()
    if not conf.SERVE_BUILT_FILES or (site is None and conf.USE_REQUEST_HOST):
        # A build is made for one base URL; per-host responses render per request.
        return None
    try:
        manifest = get_publisher(site, sitemaps.name).manifest()
    except PublishError:
        return None
    if manifest is None or not build_holds_writes(sitemaps, manifest.generation, sections):
        return None
    try:
        found = published_file(filename + (".gz" if gz else ""), site, sitemaps.name)
    except FileNotFoundError:
        raise Http404("No such sitemap file in the published build.") from None
    return None if found is None else RenderedFile(*found)


def request_site(request: HttpRequest) -> SiteConfig | None:
    """The site of ``SITEMAPKIT["SITES"]`` at the request's host (``ALLOWED_HOSTS`` validated
    it); None without SITES. A host no site has is a 404, never another site's files."""
    if not configured_sites():
        return None
    site = site_for_host(request.get_host())
    if site is None:
        raise Http404("No site of SITEMAPKIT['SITES'] is served at this host.")
    return site


def _site_sections(request: HttpRequest, sitemaps: SectionRegistry) -> SectionRegistry:
    site = request_site(request)
    return sitemaps if site is None else SiteSections(sitemaps, site)


@file_view
def sitemap_file(
    request: HttpRequest,
    sitemaps: SectionRegistry,
    gz: bool = False,
    section: str | None = None,
    page: str = "0",
) -> HttpResponseBase:
    """``/sitemap.xml`` (one entry per page of every section) or ``/sitemap-<section>-<page>.xml``:
    from the published build, the cache or rendered now."""
    sitemaps = _site_sections(request, sitemaps)
    if section is None:
        filename, sections = INDEX_NAME, sitemaps.sections()
        render = functools.partial(render_index, sitemaps=sitemaps)
    elif sitemaps.get(section) is None:
        raise Http404("No such sitemap section.")
    else:
        filename, sections = page_filename(section, int(page)), [section]
        render = functools.partial(render_page, section, int(page), sitemaps=sitemaps)
    site = site_of(sitemaps)
    served = _built(sitemaps, filename, gz, site, sections)
    if served is not None:
        return _respond(request, served, gz, built=True)
    url = base_url(request) if site is None else site.base_url
    cache = file_cache()
    kind = filename if site is None else f"{site.name}/{filename}"
    key = None if cache is None else file_key(kind, url, section_tokens(cache, sections))
    try:
        xml = get_or_render(cache, key and f"{key}:xml", lambda: render(base_url=url))
        served = get_or_render(cache, key and f"{key}:gz", xml.gzipped) if gz else xml
    except (SectionNotFound, PageNotFound):
        raise Http404("No such sitemap file.") from None
    return _respond(request, served, gz)


def last_modified_stamp(value: datetime.datetime | None, now: float) -> int | None:
    """The ``Last-Modified`` of a file whose newest lastmod is ``value``, in epoch seconds.

    Never later than ``now`` (RFC 9110 8.8.2.1). None (no header; the ETag
    still validates) when ``value`` is naive or before year 100 UTC, which no
    HTTP-date states unambiguously.
    """
    if value is None or value.utcoffset() is None:
        return None
    # Subtracting aware datetimes cannot overflow; a datetime built from the
    # instant could (9999-12-31 at -06:00 is in year 10000 UTC).
    stamp = (value - _EPOCH) // _SECOND
    if stamp < _EARLIEST_STAMP:
        return None
    return min(stamp, int(now))


def _respond(
    request: HttpRequest, served: RenderedFile, gz: bool, *, built: bool = False
) -> HttpResponseBase:
    response = HttpResponse(
        served.content, content_type=GZIP_CONTENT_TYPE if gz else XML_CONTENT_TYPE
    )
    last_modified = last_modified_stamp(served.last_modified, time.time())
    if gz:
        # GZipMiddleware would gzip a .gz file again for a request accepting
        # gzip ("Content-Encoding: identity" is not valid in a response), so the
        # request is made to accept only identity; no-transform tells proxies
        # and CDNs the same (RFC 9111 5.2.2.6), set before a 304 copies it.
        request.META["HTTP_ACCEPT_ENCODING"] = "identity"
        patch_cache_control(response, no_transform=True)
    if not built or last_modified != last_modified_stamp(served.last_modified, sys.maxsize):
        # Only the ETag validates a live file (its newest lastmod stays put
        # through a deletion or an edit of another field) or a date capped at
        # now (unlike the stamp capped at no time); taken off the request so
        # ConditionalGetMiddleware agrees.
        request.META.pop("HTTP_IF_MODIFIED_SINCE", None)
    return _validated(request, response, served.etag, last_modified)


def _validated(
    request: HttpRequest, response: HttpResponse, etag: str, last_modified: int | None
) -> HttpResponseBase:
    """``response`` with its validators and X-Robots-Tag, or the 304 they answer ``request`` with."""
    response["ETag"] = etag
    if last_modified is not None:
        response["Last-Modified"] = http_date(last_modified)
    _robots_tag(response)
    conditional = get_conditional_response(
        request, etag=etag, last_modified=last_modified, response=response
    )
    return conditional or response


# contrib's ``?p=N``: a page number the routes take, maybe zero-padded as int() reads it.
_CONTRIB_PAGE = re.compile(rf"0*({PAGE_NUMBER})")


@require_safe
def contrib_section(
    request: HttpRequest, section: str, sitemaps: SectionRegistry
) -> HttpResponseBase:
    """``/sitemap-<section>.xml?p=N``, django.contrib.sitemaps' URL: a 301 to the page's file."""
    # Anything else (a sign, "²", "①", a number no page could have) is no page.
    number = _CONTRIB_PAGE.fullmatch(request.GET.get("p", "1"))
    sitemaps = _site_sections(request, sitemaps)
    if sitemaps.get(section) is None or number is None:
        raise Http404("No such sitemap file.")
    return HttpResponsePermanentRedirect(
        reverse(f"{sitemaps.name}:section", kwargs={"section": section, "page": number[1]})
    )


@file_view
def stylesheet(request: HttpRequest, name: str, **kwargs: Any) -> HttpResponseBase:
    """``/sitemap.css``, ``/sitemap.xsl`` (``kwargs`` is the route's), whatever ``STYLESHEET``
    says (a file cached under another value still finds its own): served beside the index, not
    from ``STATIC_URL``, as a browser applies an XSL stylesheet only of the document's origin."""
    sheet = STYLESHEET_FILES[name]
    response = HttpResponse(sheet.content, content_type=sheet.content_type)
    patch_cache_control(response, public=True, max_age=STYLESHEET_MAX_AGE)
    return _validated(request, response, sheet.etag, sheet.mtime)


class KeyFilePattern(RegexPattern):
    """IndexNow's ``<key>.txt`` for the key configured when a request comes: every other
    ``/<name>.txt`` (``llms.txt``, ...) falls through to the project's URL patterns."""

    def match(self, path: str) -> tuple[str, tuple[Any, ...], dict[str, str]] | None:
        config = indexnow_config()
        if config is None or path != f"{config.key}.txt":
            return None
        return super().match(path)


@file_view
def key_file(request: HttpRequest, key: str) -> HttpResponse:
    """The IndexNow key itself: proof that the site asked for its submissions."""
    config = indexnow_config()
    if config is None or not constant_time_compare(key, config.key):
        raise Http404("No such key file.")
    response = HttpResponse(config.key, content_type="text/plain; charset=utf-8")
    _robots_tag(response)
    return response


_SECTION = r"(?P<section>[a-z0-9](?:[a-z0-9_-]*[a-z0-9])?)"
_PAGE = rf"sitemap-{_SECTION}-(?P<page>{PAGE_NUMBER})"
_STYLESHEET = "|".join(map(re.escape, STYLESHEET_FILES))
_KEY_FILE = r"^(?P<key>[a-zA-Z0-9-]{8,128})\.txt$"


def url_patterns(sitemaps: SectionRegistry) -> list[URLPattern]:
    """``/sitemap.xml``, ``/sitemap-<section>-<page>.xml``, their ``.gz``, and contrib's old URLs."""
    kwargs: dict[str, Any] = {"sitemaps": sitemaps}
    return [
        re_path(r"^sitemap\.xml$", sitemap_file, kwargs, name="index"),
        re_path(r"^sitemap\.xml\.gz$", sitemap_file, {**kwargs, "gz": True}, name="index-gz"),
        re_path(rf"^(?P<name>{_STYLESHEET})$", stylesheet, kwargs, name="stylesheet"),
        re_path(rf"^{_PAGE}\.xml$", sitemap_file, kwargs, name="section"),
        re_path(rf"^{_PAGE}\.xml\.gz$", sitemap_file, {**kwargs, "gz": True}, name="section-gz"),
        # django.contrib.sitemaps' section URL, which crawlers may still know.
        re_path(rf"^sitemap-{_SECTION}\.xml$", contrib_section, kwargs, name="contrib-section"),
        URLPattern(
            KeyFilePattern(_KEY_FILE, name=KEY_ROUTE, is_endpoint=True), key_file, {}, KEY_ROUTE
        ),
    ]
