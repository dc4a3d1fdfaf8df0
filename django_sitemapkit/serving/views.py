"""Views serving the sitemap index and the section files, plain and gzipped."""

from __future__ import annotations

import datetime
import re
import time
from collections.abc import Callable

from django.http import (
    Http404,
    HttpRequest,
    HttpResponse,
    HttpResponseBase,
    HttpResponsePermanentRedirect,
)
from django.urls import reverse
from django.utils.cache import get_conditional_response, patch_cache_control
from django.utils.http import http_date
from django.views.decorators.http import require_safe

from django_sitemapkit.conf import base_url, get_settings
from django_sitemapkit.engine.pages import PageNotFound
from django_sitemapkit.engine.rendering import (
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
from django_sitemapkit.protocol.mediatypes import GZIP_CONTENT_TYPE, XML_CONTENT_TYPE
from django_sitemapkit.publishing.freshness import may_serve_build
from django_sitemapkit.publishing.selection import published_file
from django_sitemapkit.serving.cache import file_key, get_cache, get_or_render, section_tokens
from django_sitemapkit.serving.headers import nosniff
from django_sitemapkit.siteconfig import SiteConfig, configured_sites, site_for_host

_EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.UTC)
_SECOND = datetime.timedelta(seconds=1)
# The earliest Last-Modified sent: HTTP-date parsers read a year below 100
# as a two-digit year (Django's parse_http_date and email.utils both take
# "0001" for 2001), so an earlier header would name another, maybe future, time.
_EARLIEST_STAMP = (datetime.datetime(100, 1, 1, tzinfo=datetime.UTC) - _EPOCH) // _SECOND


def _built(
    sitemaps: SectionRegistry, filename: str, gz: bool, site: SiteConfig | None, sections: list[str]
) -> RenderedFile | None:
    """The file from the published build (sitemapkit_build), if there is one."""
    conf = get_settings()
    if not conf.SERVE_BUILT_FILES:
        return None
    if site is None and conf.USE_REQUEST_HOST:
        # A build is made for one base URL; per-host responses render per request.
        return None
    if not _build_current(sitemaps, sections, site):
        return None  # older than the data, and STALE_BUILD = "render"
    try:
        # Each SitemapSite's own build (a folder of its name, beside the default's).
        found = published_file(filename + (".gz" if gz else ""), site, sitemaps.name)
    except FileNotFoundError:
        raise Http404("No such sitemap file in the published build.") from None
    return None if found is None else RenderedFile(*found)


def _build_current(sitemaps: SectionRegistry, sections: list[str], site: SiteConfig | None) -> bool:
    """Whether the published build of ``sections`` may be served (see freshness.py)."""
    cache = get_cache()
    salts = {} if cache is None else section_tokens(cache, sections)
    return may_serve_build(sitemaps, sections, site, salts)


def _site_sections(request: HttpRequest, sitemaps: SectionRegistry) -> SectionRegistry:
    """``sitemaps`` as the request's site lists them, under ``SITEMAPKIT["SITES"]``.

    The host is ``request.get_host()``'s, which ``ALLOWED_HOSTS`` validated
    (a disallowed one is a 400); a host no site has is a 404, never another
    site's files.
    """
    if not configured_sites():
        return sitemaps
    site = site_for_host(request.get_host())
    if site is None:
        raise Http404("No site of SITEMAPKIT['SITES'] is served at this host.")
    return SiteSections(sitemaps, site)


def _serve(
    request: HttpRequest,
    sitemaps: SectionRegistry,
    filename: str,
    sections: list[str],
    render: Callable[[str], RenderedFile],
    gz: bool,
) -> HttpResponseBase:
    site = site_of(sitemaps)
    served = _built(sitemaps, filename, gz, site, sections)
    if served is not None:
        return _respond(request, served, gz, built=True)
    return _respond(request, _render_cached(request, filename, sections, render, gz, site), gz)


def _render_cached(
    request: HttpRequest,
    filename: str,
    sections: list[str],
    render: Callable[[str], RenderedFile],
    gz: bool,
    site: SiteConfig | None,
) -> RenderedFile:
    url = base_url(request) if site is None else site.base_url
    cache = get_cache()
    kind = filename if site is None else f"{site.name}/{filename}"
    key = None if cache is None else file_key(kind, url, section_tokens(cache, sections))
    try:
        xml = get_or_render(cache, key and f"{key}:xml", lambda: render(url))
        return get_or_render(cache, key and f"{key}:gz", xml.gzipped) if gz else xml
    except (SectionNotFound, PageNotFound):
        raise Http404("No such sitemap file.") from None


def last_modified_stamp(value: datetime.datetime | None, now: float) -> int | None:
    """The ``Last-Modified`` of a file whose newest lastmod is ``value``, in epoch seconds.

    RFC 9110 8.8.2.1: an origin server must not send a Last-Modified later
    than the time it sends the response, and must send that time instead of
    a future one.  None (no header; the ETag still validates) when ``value``
    is naive or before year 100 UTC, which no HTTP-date states unambiguously.
    """
    if value is None or value.utcoffset() is None:
        return None
    # Subtracting aware datetimes is exact and cannot overflow, whatever the
    # offset; a datetime *built* from the instant could (9999-12-31 at -06:00
    # is in year 10000 UTC), which is why no timestamp round trip is made.
    stamp = (value - _EPOCH) // _SECOND
    if stamp < _EARLIEST_STAMP:
        return None
    return min(stamp, int(now))


def _keep_gzip_file_as_is(request: HttpRequest, response: HttpResponse) -> None:
    """Make sure the bytes of a ``.gz`` file reach the client without a transport coding.

    GZipMiddleware, and compression middleware built like it, compress any
    response without a Content-Encoding for a request that accepts gzip: a
    .gz file would then be gzipped twice, and a client that does not undo
    Content-Encoding (urllib and the crawlers built on it) would receive
    gzip inside gzip.  ``Content-Encoding: identity`` is not valid in a
    response (RFC 9110 reserves it for Accept-Encoding), so the request is
    made to accept nothing but the identity coding: middleware reads the
    request's headers after the view has returned, wherever it is placed.
    """
    request.META["HTTP_ACCEPT_ENCODING"] = "identity"
    # The same for proxies and CDNs that compress on the fly (RFC 9111 5.2.2.6).
    patch_cache_control(response, no_transform=True)


def _respond(
    request: HttpRequest, served: RenderedFile, gz: bool, *, built: bool = False
) -> HttpResponseBase:
    response = HttpResponse(
        served.content, content_type=GZIP_CONTENT_TYPE if gz else XML_CONTENT_TYPE
    )
    response["ETag"] = served.etag
    last_modified = last_modified_stamp(served.last_modified, time.time())
    if last_modified is not None:
        response["Last-Modified"] = http_date(last_modified)
    robots = get_settings().X_ROBOTS_TAG
    if robots:
        response["X-Robots-Tag"] = robots
    if gz:
        # Before the conditional check: a 304 carries Cache-Control too.
        _keep_gzip_file_as_is(request, response)
    if not built or _capped(served.last_modified, last_modified):
        _ignore_if_modified_since(request)
    return (
        get_conditional_response(
            request, etag=served.etag, last_modified=last_modified, response=response
        )
        or response
    )


def _capped(value: datetime.datetime | None, stamp: int | None) -> bool:
    """Whether the Last-Modified sent (``stamp``) is the response's time, ``value`` being later.

    Such a date names no version of the bytes: a build within the same
    second may replace them under the same header.
    """
    return value is not None and stamp is not None and (value - _EPOCH) // _SECOND > stamp


def _ignore_if_modified_since(request: HttpRequest) -> None:
    """Let only the ETag validate this file: never a 304 for bytes the client lacks.

    A published build's Last-Modified moves whenever its bytes change; a
    live file's is its newest lastmod, which a deletion, a row dated before
    it or an edit of another field leaves where it was. Its ETag (a hash of
    the exact bytes) is what validates it; its Last-Modified is sent as
    information (as is a build's whose date is later than now: see
    :func:`_capped`). The header is taken off the request, not merely skipped
    here, so that ConditionalGetMiddleware, which reads the request after
    the view has returned, does not answer 304 from it either.
    """
    request.META.pop("HTTP_IF_MODIFIED_SINCE", None)


@nosniff
@require_safe
def index(request: HttpRequest, sitemaps: SectionRegistry, gz: bool = False) -> HttpResponseBase:
    """``/sitemap.xml``: one entry per page of every section."""
    sitemaps = _site_sections(request, sitemaps)
    return _serve(
        request,
        sitemaps,
        INDEX_NAME,
        sitemaps.sections(),
        lambda base_url: render_index(base_url=base_url, sitemaps=sitemaps),
        gz,
    )


@nosniff
@require_safe
def section(
    request: HttpRequest, section: str, page: str, sitemaps: SectionRegistry, gz: bool = False
) -> HttpResponseBase:
    """``/sitemap-<section>-<page>.xml``."""
    sitemaps = _site_sections(request, sitemaps)
    if sitemaps.get(section) is None:
        raise Http404("No such sitemap section.")
    number = int(page)
    return _serve(
        request,
        sitemaps,
        page_filename(section, number),
        [section],
        lambda base_url: render_page(section, number, base_url=base_url, sitemaps=sitemaps),
        gz,
    )


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
