"""What the shared cache knows: rendered files, and the writes a published build has not seen.

Two random values per section live in the cache (``CACHE_ALIAS``), shared by every process:

- its *token*, part of the key of every cached file that depends on the section. A write
  replaces it, orphaning every such file at once; a render that started before the write
  stores its result under the old token, where no one looks, so a stale body is never stored
  as fresh. A live render that moves the section's page boundaries replaces it too.
- its *write mark*, replaced by each write the app sees (an ORM save or delete, once
  committed, and ``invalidate()``). A build records the marks it read when it started; while
  a section's mark is still the recorded one the published build is served, otherwise the
  section is rendered live until the next build. No request reads the database to tell.

A build no record names (the cache was cleared, or another cache was configured) is taken as
holding every write made so far: the first request records that.
"""

from __future__ import annotations

import datetime
import hashlib
import logging
import uuid
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from django.apps import AppConfig
from django.conf import settings
from django.core.cache import BaseCache, caches
from django.core.checks import CheckMessage, Warning
from django.db import models

from django_sitemapkit._conf import CACHE_KEY_PREFIX, get_settings
from django_sitemapkit._engine.rendering import RenderedFile, SectionRegistry, site_of
from django_sitemapkit._publishing.base import Manifest
from django_sitemapkit._sitemaps import Sitemap, source_models

logger = logging.getLogger("django_sitemapkit")

# Backends whose entries live in one process: a save in another process
# (a worker, ``manage.py shell``) cannot reach them.
PROCESS_LOCAL_CACHES = (
    "django.core.cache.backends.locmem.LocMemCache",
    "django.core.cache.backends.dummy.DummyCache",
)


def file_cache() -> BaseCache | None:
    """Where rendered files are cached; None when ``CACHE_TIMEOUT`` is 0."""
    return None if get_settings().CACHE_TIMEOUT == 0 else shared_cache()


def shared_cache() -> BaseCache | None:
    """Where tokens, write marks and build records live, also when files are not cached."""
    alias = get_settings().CACHE_ALIAS
    return None if alias is None else caches[alias]


def _key(kind: str, name: str) -> str:
    return f"{CACHE_KEY_PREFIX}:{kind}:{name}"


def section_tokens(cache: BaseCache, sections: Iterable[str]) -> dict[str, str]:
    """The current token of each section, creating missing ones."""
    keys = {name: _key("token", name) for name in sections}
    found = cache.get_many(list(keys.values()))
    for key in keys.values():
        if found.get(key) is None:
            # add() keeps a token another process set meanwhile; tokens
            # outlive cached files: losing one only costs a re-render.
            cache.add(key, uuid.uuid4().hex, None)
            found[key] = cache.get(key) or uuid.uuid4().hex
    return {name: found[key] for name, key in keys.items()}


def sections_written(sections: Iterable[str], *, build_stale: bool = True) -> None:
    """``sections`` changed: their cached files go and (``build_stale``) their published build
    is stale. Without ``build_stale``: a live render moved their pages, which the cached index
    names."""
    cache = shared_cache()
    if cache is not None:
        kinds = ("token", "written") if build_stale else ("token",)
        cache.set_many({_key(k, name): uuid.uuid4().hex for name in sections for k in kinds}, None)


def write_marks(sections: Iterable[str]) -> dict[str, str]:
    """The write mark of each section, "" for one no write has marked."""
    cache = shared_cache()
    keys = {name: _key("written", name) for name in sections}
    found = {} if cache is None else cache.get_many(list(keys.values()))
    return {name: found.get(key, "") for name, key in keys.items()}


def _build_key(sitemaps: SectionRegistry, generation: str) -> str:
    """The record of build ``generation`` of ``sitemaps`` (a registry, or one site's sections)."""
    site = site_of(sitemaps)
    return _key("built", f"{sitemaps.name}:{'' if site is None else site.name}:{generation}")


def record_build(
    sitemaps: SectionRegistry,
    generation: str,
    marks: dict[str, str],
    *,
    built: Iterable[str],
    previous: Manifest | None,
) -> None:
    """Record that build ``generation`` of ``sitemaps`` holds the writes up to ``marks``
    (``previous``: the build it replaced).

    Sections it kept without building (``--section`` left them out) keep
    what the previous build recorded of them.
    """
    cache = shared_cache()
    if cache is None:
        return
    old = {} if previous is None else cache.get(_build_key(sitemaps, previous.generation)) or {}
    kept = {name: old[name] for name in set(marks) - set(built) if name in old}
    cache.set(_build_key(sitemaps, generation), {**marks, **kept}, None)
    if previous is not None and previous.generation != generation:
        cache.delete(_build_key(sitemaps, previous.generation))


def build_holds_writes(sitemaps: SectionRegistry, generation: str, sections: Sequence[str]) -> bool:
    """Whether build ``generation`` of ``sitemaps`` holds every write seen of ``sections``."""
    cache = shared_cache()
    if cache is None:
        return True
    key = _build_key(sitemaps, generation)
    found = cache.get_many([key, *(_key("written", name) for name in sections)])
    recorded = found.get(key)
    if recorded is None:
        # A build no record names: writes count from now on.
        cache.add(key, write_marks(sitemaps.sections()), None)
        return True
    # A section the record lacks was registered since the build, which has no file of it.
    return all(recorded.get(name) == found.get(_key("written", name), "") for name in sections)


def sections_of(model: type[models.Model], sitemaps: Iterable[Sitemap]) -> list[str]:
    """The sections of ``sitemaps`` that list rows of ``model``, of its concrete model, or of
    a model it inherits from with a table of its own (a Wagtail page type's ``Page``); or whose
    ``lastmod_sources`` date pages by such rows."""
    lineage = {model._meta.concrete_model, *model._meta.get_parent_list()}
    return [
        sitemap.name
        for sitemap in sitemaps
        if any(
            read is not None and read._meta.concrete_model in lineage
            for read in (sitemap.get_model(), *source_models(sitemap))
        )
    ]


def file_key(kind: str, base_url: str, tokens: dict[str, str]) -> str:
    # STYLESHEET changes every file's head: a file cached under the other
    # value (or by a version without the setting) is never served.
    stylesheet = f"stylesheet={get_settings().STYLESHEET}"
    version = hashlib.sha256(
        "\n".join([base_url, stylesheet, *(f"{k}={v}" for k, v in sorted(tokens.items()))]).encode()
    ).hexdigest()[:32]
    return f"{CACHE_KEY_PREFIX}:file{CACHED_FILE_FORMAT}:{kind}:{version}"


# (content, last-modified as ISO 8601, URL count, skipped). The format is part
# of every file key: a new shape never meets a cached old one. ISO text, as a
# float timestamp rounds the last microseconds of year 9999 into year 10000.
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
    value: CachedFile = (rendered.content, stamp, rendered.url_count, rendered.skipped)
    try:
        cache.set(key, value, get_settings().CACHE_TIMEOUT)
    except Exception:
        # Backends refuse large values in their own ways (memcached's 1 MB
        # items, a Redis maxmemory, a full disk); the file is served anyway.
        logger.warning(
            "Could not cache sitemap file %s (%d bytes).", key, len(rendered.content), exc_info=True
        )
    return rendered


def check_cache_across_processes(
    app_configs: Sequence[AppConfig] | None = None, **kwargs: Any
) -> list[CheckMessage]:
    """W003 (``check --deploy``): the sitemap cache is local to each process."""
    conf = get_settings()
    if conf.CACHE_ALIAS not in settings.CACHES:
        return []  # E013
    backend = settings.CACHES[conf.CACHE_ALIAS].get("BACKEND", "")
    if backend not in PROCESS_LOCAL_CACHES:
        return []
    return [
        Warning(
            f"SITEMAPKIT['CACHE_ALIAS'] {conf.CACHE_ALIAS!r} uses {backend.rsplit('.', 1)[-1]}, "
            "which each process keeps to itself: a save in another process (a worker, "
            "manage.py shell, another server process) neither drops the sitemaps this one "
            "cached nor tells it that the published build is older than the data.",
            hint="Use a cache shared by every process: Redis, Memcached, the database cache "
            "or FileBasedCache on one machine.",
            id="sitemapkit.W003",
        )
    ]
