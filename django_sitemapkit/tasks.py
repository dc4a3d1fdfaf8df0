"""The ``rebuild_sitemaps`` task of Django's tasks framework (``django.tasks``, or the
``django-tasks`` backport on Django 5.2), which is optional: the package imports this module
only under ``REBUILD_AFTER_COMMIT``."""

from __future__ import annotations

import dataclasses
import logging
from typing import Any

try:
    from django.tasks import task
except ImportError:  # Django 5.2: the django-tasks backport
    from django_tasks import task  # type: ignore[no-redef,unused-ignore]

from django_sitemapkit._building.builder import BuildError
from django_sitemapkit._sites import build

logger = logging.getLogger("django_sitemapkit")

# How long a rebuild waits for another build of the same site to finish.
LOCK_WAIT_SECONDS = 300.0


@task()
def rebuild_sitemaps(sections: list[str] | None = None, site: str | None = None) -> dict[str, Any]:
    """``sitemapkit.build()``: the default registry's ``sections`` (None: all) for ``site``.

    Returns the build's figures as a JSON object (the task's return value);
    raises what ``build()`` raises, which fails the task and publishes nothing (a BuildError,
    such as the shrink guard's refusal, is logged too: no one reads a worker's traceback).
    """
    try:
        result = build(sections, site=site, wait=LOCK_WAIT_SECONDS)
    except BuildError as exc:
        logger.error("Sitemap rebuild failed, nothing was published: %s", exc)
        raise
    return {**dataclasses.asdict(result), "summary": result.summary()}
