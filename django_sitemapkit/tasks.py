"""Background rebuilds through Django's tasks framework: the ``rebuild_sitemaps`` task.

The framework is ``django.tasks`` on Django 6 and the ``django-tasks`` backport
(the ``tasks`` extra) on Django 5.2. It is optional: the package never imports
this module unless ``REBUILD_AFTER_COMMIT`` is on, and a project that enqueues
the task itself imports it by name.
"""

from __future__ import annotations

import dataclasses
from typing import Any

try:
    from django.tasks import task
except ImportError:  # Django 5.2: the django-tasks backport
    from django_tasks import task  # type: ignore[no-redef,unused-ignore]

from django_sitemapkit._building.builder import BuildResult
from django_sitemapkit._sites import build

# How long a rebuild waits for another build of the same site to finish.
LOCK_WAIT_SECONDS = 300.0


@task()
def rebuild_sitemaps(sections: list[str] | None = None, site: str | None = None) -> dict[str, Any]:
    """Build the default site's ``sections`` (all when None) of ``site``: ``sitemapkit.build()``.

    Returns the build's figures as a JSON object (the task's return value);
    raises what ``build()`` raises, which fails the task and publishes nothing.
    """
    return summary(build(sections, site=site, wait=LOCK_WAIT_SECONDS))


def summary(result: BuildResult) -> dict[str, Any]:
    """``result``'s figures as JSON-serialisable values, with its one-line summary."""
    return {**dataclasses.asdict(result), "summary": result.summary()}
