"""Caching of rendered files, invalidated by generation tokens.

Every section has a random token in the cache; a file's cache key contains
the token of its section (the index: of every section). Invalidating a
section replaces its token, which orphans every key built from the old one at
once, without having to know which pages or formats were cached. A render
that started before an invalidation stores its result under the old token,
where no one looks any more, so a stale body can never be stored as fresh.
"""

from __future__ import annotations

import datetime
import hashlib
import logging
import uuid
from collections.abc import Callable, Iterable

from django.core.cache import BaseCache, caches

from django_sitemapkit.conf import CACHE_KEY_PREFIX, get_settings
from django_sitemapkit.engine.rendering import RenderedFile

logger = logging.getLogger("django_sitemapkit")

# Tokens outlive cached files: losing one only costs a re-render.
TOKEN_TIMEOUT = None


def get_cache() -> BaseCache | None:
    conf = get_settings()
    if conf.CACHE_TIMEOUT == 0 or conf.CACHE_ALIAS is None:
        return None
    return caches[conf.CACHE_ALIAS]


def _token_key(section: str) -> str:
    return f"{CACHE_KEY_PREFIX}:token:{section}"


def section_tokens(cache: BaseCache, sections: Iterable[str]) -> dict[str, str]:
    """The current token of each section, creating missing ones."""
    names = list(sections)
    found = cache.get_many([_token_key(name) for name in names])
    tokens: dict[str, str] = {}
    for name in names:
        token = found.get(_token_key(name))
        if token is None:
            # add() keeps a token another process set meanwhile.
            cache.add(_token_key(name), uuid.uuid4().hex, TOKEN_TIMEOUT)
            token = cache.get(_token_key(name)) or uuid.uuid4().hex
        tokens[name] = token
    return tokens


def invalidate_sections(sections: Iterable[str]) -> None:
    cache = get_cache()
    if cache is None:
        return
    cache.set_many({_token_key(name): uuid.uuid4().hex for name in sections}, TOKEN_TIMEOUT)


def file_key(kind: str, base_url: str, tokens: dict[str, str]) -> str:
    # STYLESHEET changes every file's head: a file cached under the other
    # value (or by a version without the setting) is never served.
    stylesheet = f"stylesheet={get_settings().STYLESHEET}"
    version = hashlib.sha256(
        "\n".join([base_url, stylesheet, *(f"{k}={v}" for k, v in sorted(tokens.items()))]).encode()
    ).hexdigest()[:32]
    return f"{CACHE_KEY_PREFIX}:file{CACHED_FILE_FORMAT}:{kind}:{version}"


# (content, last-modified as ISO 8601, URL count, skipped, piece sizes). The
# format is part of every file key: a new shape never meets a cached old one.
# ISO text rather than a float timestamp: a float rounds the last
# microseconds of year 9999 into year 10000, which datetime cannot hold.
CachedFile = tuple[bytes, str | None, int, int]
CACHED_FILE_FORMAT = 4


def get_or_render(
    cache: BaseCache | None, key: str | None, render: Callable[[], RenderedFile]
) -> RenderedFile:
    """The cached file under ``key``, or ``render()`` stored there."""
    if cache is None or key is None:
        return render()
    cached = cache.get(key)
    if cached is not None:
        content, stamp, url_count, skipped = cached
        last_modified = None if stamp is None else datetime.datetime.fromisoformat(stamp)
        return RenderedFile(content, last_modified, url_count, skipped)
    rendered = render()
    stamp = None if rendered.last_modified is None else rendered.last_modified.isoformat()
    value: CachedFile = (
        rendered.content,
        stamp,
        rendered.url_count,
        rendered.skipped,
    )
    try:
        cache.set(key, value, get_settings().CACHE_TIMEOUT)
    except Exception:
        # Backends refuse large values in their own ways (memcached's 1 MB
        # items, a Redis maxmemory, a full disk); the file is served anyway.
        logger.warning(
            "Could not cache sitemap file %s (%d bytes).", key, len(rendered.content), exc_info=True
        )
    return rendered
