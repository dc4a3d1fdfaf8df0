"""The IndexNow key file, ``/<key>.txt``: the key itself, proof the site asked for its submissions.

Its pattern matches only the configured key's name, so every other
``/<name>.txt`` (``llms-full.txt``, ...) falls through to the project's own
URL patterns, and nothing matches while IndexNow is off.
"""

from __future__ import annotations

from typing import Any

from django.http import Http404, HttpRequest, HttpResponse
from django.urls import URLPattern
from django.urls.resolvers import RegexPattern
from django.utils.crypto import constant_time_compare
from django.views.decorators.http import require_safe

from django_sitemapkit.conf import get_settings
from django_sitemapkit.notifying.indexnow import KEY_ROUTE, indexnow_config
from django_sitemapkit.serving.headers import nosniff

_KEY_FILE = r"^(?P<key>[a-zA-Z0-9-]{8,128})\.txt$"


class KeyFilePattern(RegexPattern):
    """``<key>.txt`` for the key configured when a request comes, whatever it was at import."""

    def match(self, path: str) -> tuple[str, tuple[Any, ...], dict[str, str]] | None:
        config = indexnow_config()
        if config is None or path != f"{config.key}.txt":
            return None
        return super().match(path)


@nosniff
@require_safe
def key_file(request: HttpRequest, key: str) -> HttpResponse:
    config = indexnow_config()
    if config is None or not constant_time_compare(key, config.key):
        raise Http404("No such key file.")
    response = HttpResponse(config.key, content_type="text/plain; charset=utf-8")
    robots_tag = get_settings().X_ROBOTS_TAG
    if robots_tag:
        response["X-Robots-Tag"] = robots_tag
    return response


def key_file_pattern() -> URLPattern:
    return URLPattern(
        KeyFilePattern(_KEY_FILE, name=KEY_ROUTE, is_endpoint=True), key_file, {}, KEY_ROUTE
    )
