"""The app: its system checks, and what a committed write of a row that sections list sets off.

A save or delete through the ORM marks the sections listing the row written (_serving/cache.py),
once committed. Under ``REBUILD_AFTER_COMMIT`` it also enqueues a rebuild of the default
registry's sections, in every site listing them: at most one per section per
``REBUILD_DEBOUNCE`` seconds. The first commit of a window adds the section's key to the shared
cache (``cache.add`` is atomic on every shared backend) and enqueues ``rebuild_sitemaps`` to run
when the window closes, so that it reads every write of the window. A backend that cannot defer
a task (``ImmediateBackend``) rebuilds at once instead, and the writes of the rest of that window
wait for the next rebuild (check W007).
"""

from __future__ import annotations

import contextlib
import importlib.util
import logging
from collections.abc import Sequence
from contextvars import ContextVar
from datetime import timedelta
from typing import Any

from django.apps import AppConfig
from django.core import checks
from django.core.cache import caches
from django.core.checks import CheckMessage, Error, Warning
from django.db import models, transaction
from django.db.models.signals import post_delete, post_save
from django.utils import timezone
from django.utils.module_loading import import_string

from django_sitemapkit import _checks as sitemap_checks
from django_sitemapkit._conf import CACHE_KEY_PREFIX, get_settings
from django_sitemapkit._serving.cache import (
    check_cache_across_processes,
    sections_of,
    sections_written,
)
from django_sitemapkit._siteconfig import SitesError, configured_sites
from django_sitemapkit._sites import autodiscover, registries
from django_sitemapkit._sites import site as default_registry


class SimpleSitemapkitConfig(AppConfig):
    """The app without autodiscovery of ``sitemaps`` modules."""

    name = "django_sitemapkit"
    verbose_name = "Sitemaps"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        checks.register(sitemap_checks.check_settings, "sitemapkit")
        checks.register(sitemap_checks.check_sites, "sitemapkit")
        checks.register(sitemap_checks.check_index_directory, "sitemapkit", checks.Tags.urls)
        checks.register(check_cache_across_processes, "sitemapkit", deploy=True)
        checks.register(sitemap_checks.check_url_routes, "sitemapkit", deploy=True)
        checks.register(check_rebuilds, "sitemapkit")
        checks.register(check_immediate_backend, "sitemapkit", deploy=True)
        post_save.connect(on_model_change, dispatch_uid="sitemapkit-post-save")
        post_delete.connect(on_model_change, dispatch_uid="sitemapkit-post-delete")


class SitemapkitConfig(SimpleSitemapkitConfig):
    """The default config: imports every installed app's ``sitemaps`` module."""

    default = True

    def ready(self) -> None:
        super().ready()
        autodiscover()


def on_model_change(sender: type[models.Model], using: str = "default", **kwargs: Any) -> None:
    """post_save / post_delete receiver: the sections listing the row are written, once committed.

    Before the commit another request could re-render from the old data and
    cache it under the new token; on_commit runs at once outside a transaction.
    """
    names = [
        name
        for registry in registries(load_urlconf=False)
        for name in sections_of(sender, registry)
    ]
    if names:
        transaction.on_commit(lambda: sections_written(names), using=using)
    if get_settings().REBUILD_AFTER_COMMIT and not _enqueuing.get():
        rebuilt = sections_of(sender, default_registry)
        if rebuilt:
            transaction.on_commit(lambda: enqueue_rebuilds(rebuilt), using=using)


logger = logging.getLogger("django_sitemapkit.rebuilds")

# True while this process enqueues a rebuild: a backend that runs the task at
# once (ImmediateBackend) must not enqueue another from the build's own writes.
_enqueuing: ContextVar[bool] = ContextVar("sitemapkit_enqueuing", default=False)


def tasks_framework() -> str | None:
    """The importable tasks framework, ``django.tasks`` or ``django_tasks``; None without one."""
    for name in ("django.tasks", "django_tasks"):
        # find_spec() of a submodule raises when its parent package is missing.
        with contextlib.suppress(ModuleNotFoundError):
            if importlib.util.find_spec(name) is not None:
                return name
    return None


def enqueue_rebuilds(sections: Sequence[str]) -> None:
    """Enqueue a rebuild of ``sections`` in each site listing them, unless one is pending.

    Never raises: a failure is logged and the section's window reopened, so the
    next commit tries again; the write that led here is committed already.
    """
    conf = get_settings()
    cache = caches[conf.CACHE_ALIAS]
    window = max(1, int(conf.REBUILD_DEBOUNCE))
    for site_name, names in _by_site(sections):
        won = [name for name in names if cache.add(_window_key(site_name, name), 1, window)]
        if not won:
            continue
        token = _enqueuing.set(True)
        try:
            task = rebuild_task()
            if task.get_backend().supports_defer:
                task = task.using(run_after=timezone.now() + timedelta(seconds=window))
            task.enqueue(sections=won, site=site_name)
        except Exception:
            logger.exception("Could not enqueue the sitemap rebuild of %s.", ", ".join(won))
            cache.delete_many([_window_key(site_name, name) for name in won])
        finally:
            _enqueuing.reset(token)


def _by_site(sections: Sequence[str]) -> list[tuple[str | None, list[str]]]:
    try:
        sites = configured_sites()
    except SitesError:  # reported by system check E020
        return []
    if not sites:
        return [(None, list(sections))]
    return [(s.name, [name for name in sections if s.lists(name)]) for s in sites]


def _window_key(site_name: str | None, section: str) -> str:
    return f"{CACHE_KEY_PREFIX}:rebuild:{site_name or ''}:{section}"


def rebuild_task() -> Any:
    """The ``rebuild_sitemaps`` task, imported by name: the tasks framework is optional."""
    return import_string("django_sitemapkit.tasks.rebuild_sitemaps")


def check_rebuilds(
    app_configs: Sequence[AppConfig] | None = None, **kwargs: Any
) -> list[CheckMessage]:
    """E023: REBUILD_AFTER_COMMIT is on but no tasks framework or backend can take the task."""
    if not get_settings().REBUILD_AFTER_COMMIT:
        return []
    if tasks_framework() is None:
        problem = "no tasks framework is installed: Django 5.2 has no django.tasks."
        hint = "pip install django-tasks (the backport; the 'tasks' extra of django-sitemapkit)"
    else:
        try:
            rebuild_task().get_backend()
        except Exception as exc:
            problem = f"the tasks backend cannot take the rebuild task: {exc}"
            hint = "Configure settings.TASKS with a backend (and run its worker)"
        else:
            return []
    return [
        Error(
            f"SITEMAPKIT['REBUILD_AFTER_COMMIT'] is on, but {problem}",
            hint=f"{hint}, or turn REBUILD_AFTER_COMMIT off.",
            id="sitemapkit.E023",
        )
    ]


def check_immediate_backend(
    app_configs: Sequence[AppConfig] | None = None, **kwargs: Any
) -> list[CheckMessage]:
    """W007 (``check --deploy``): rebuilds on ImmediateBackend run inside the saving request."""
    if not get_settings().REBUILD_AFTER_COMMIT or check_rebuilds():  # E023 says why
        return []
    immediate = import_string(f"{tasks_framework()}.backends.immediate.ImmediateBackend")
    if not isinstance(rebuild_task().get_backend(), immediate):
        return []
    return [
        Warning(
            "SITEMAPKIT['REBUILD_AFTER_COMMIT'] is on with the tasks framework's "
            "ImmediateBackend (Django's default TASKS): each rebuild runs inside the request "
            "or command whose commit enqueued it, which waits for the whole build.",
            hint="Configure settings.TASKS with a backend that runs tasks in a worker "
            "(django-tasks-db's DatabaseBackend and its db_worker, for one); or turn "
            "REBUILD_AFTER_COMMIT off and run sitemapkit_build from a scheduled job.",
            id="sitemapkit.W007",
        )
    ]
