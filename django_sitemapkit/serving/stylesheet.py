"""The view serving the XSL stylesheet that sitemap files reference, from the site's origin.

A browser applies an XSL stylesheet only when it comes from the document's
own origin, so the stylesheet is served beside the index, by the same
URLconf, rather than from a CDN or ``STATIC_URL``.
"""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.utils.cache import get_conditional_response, patch_cache_control
from django.utils.http import http_date
from django.views.decorators.http import require_safe

from django_sitemapkit.conf import get_settings
from django_sitemapkit.protocol.files import (
    XSL_CONTENT_TYPE,
    stylesheet_bytes,
    stylesheet_etag,
    stylesheet_mtime,
)
from django_sitemapkit.serving.headers import nosniff

# It changes only with the package: a day in caches, revalidated by its ETag after.
MAX_AGE = 86_400


@nosniff
@require_safe
def stylesheet(request: HttpRequest, **kwargs: Any) -> HttpResponseBase:
    """``/sitemap.xsl``: the package's stylesheet, whatever the site (``kwargs`` is the route's)."""
    response = HttpResponse(stylesheet_bytes(), content_type=XSL_CONTENT_TYPE)
    etag = stylesheet_etag()
    response["ETag"] = etag
    modified = stylesheet_mtime()
    if modified is not None:
        response["Last-Modified"] = http_date(modified)
    robots = get_settings().X_ROBOTS_TAG
    if robots:
        response["X-Robots-Tag"] = robots
    patch_cache_control(response, public=True, max_age=MAX_AGE)
    return (
        get_conditional_response(request, etag=etag, last_modified=modified, response=response)
        or response
    )
