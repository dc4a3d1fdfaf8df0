"""System checks of stale sitemaps: W003 a cache that cannot invalidate across processes,
W004 ``STALE_BUILD = "serve"``, E024 an unknown ``STALE_BUILD``.

None reads the database: whether the published build is stale right now is
``sitemapkit_status``'s to say (and the views' log lines under "serve").
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.apps import AppConfig
from django.conf import settings
from django.core.checks import CheckMessage, Error, Warning

from django_sitemapkit.conf import get_settings, user_settings

STALE_BUILD_CHOICES = ("render", "serve")
# Backends whose entries live in one process: a save in another process
# (a worker, ``manage.py shell``) cannot reach them.
PROCESS_LOCAL_CACHES = (
    "django.core.cache.backends.locmem.LocMemCache",
    "django.core.cache.backends.dummy.DummyCache",
)


def check_stale_build(
    app_configs: Sequence[AppConfig] | None = None, **kwargs: Any
) -> list[CheckMessage]:
    """E024: STALE_BUILD is neither "render" nor "serve"; W004: it is "serve"."""
    value = user_settings().get("STALE_BUILD", "render")
    if value not in STALE_BUILD_CHOICES:
        return [
            Error(
                f"SITEMAPKIT['STALE_BUILD'] is {value!r}: it must be 'render' or 'serve'.",
                hint="'render' renders live when the data is newer than the published build.",
                id="sitemapkit.E024",
            )
        ]
    if value == "serve":
        return [
            Warning(
                "SITEMAPKIT['STALE_BUILD'] = 'serve': the views serve the published build "
                "even when the data is newer (they log a warning).",
                hint="Rebuild after every change (REBUILD_AFTER_COMMIT, or a scheduled "
                "sitemapkit_build), or use 'render'; sitemapkit_status tells stale sections.",
                id="sitemapkit.W004",
            )
        ]
    return []


def check_cache_across_processes(
    app_configs: Sequence[AppConfig] | None = None, **kwargs: Any
) -> list[CheckMessage]:
    """W003 (``check --deploy``): the sitemap cache is local to each process."""
    conf = get_settings()
    if conf.CACHE_TIMEOUT == 0 or conf.CACHE_ALIAS not in settings.CACHES:
        return []  # no caching, or E013
    backend = settings.CACHES[conf.CACHE_ALIAS].get("BACKEND", "")
    if backend not in PROCESS_LOCAL_CACHES:
        return []
    return [
        Warning(
            f"SITEMAPKIT['CACHE_ALIAS'] {conf.CACHE_ALIAS!r} uses {backend.rsplit('.', 1)[-1]}, "
            "which each process keeps to itself: a save in another process (a worker, "
            "manage.py shell, another server process) does not invalidate the sitemaps "
            "this one cached.",
            hint="Use a cache shared by every process: Redis, Memcached, the database cache "
            "or FileBasedCache on one machine; or CACHE_TIMEOUT = 0.",
            id="sitemapkit.W003",
        )
    ]
