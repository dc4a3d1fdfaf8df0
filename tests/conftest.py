"""Shared pytest configuration for the django-sitemapkit suite.

Keep this file short: put reusable helpers in their own modules and import them.

* XSD validation helpers live in ``tests/xsd.py`` (``validate_urlset``,
  ``validate_index``): the project's own schemas (``tests/schemas/``) always, the
  official ones in ``../shared/xsd`` in addition wherever present.
* Django settings: ``tests/settings.py`` (select backends with ``DATABASE_URL`` /
  ``CACHE_URL``).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, settings
from moto import server as moto_server

from django_sitemapkit._sites import site
from tests.xsd import validate_index, validate_urlset

# Examples are checked for what they assert, never for how long they take: a loaded CI
# machine (the tox matrix runs cells side by side) must not fail a property on time.
settings.register_profile("sitemapkit", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("sitemapkit")

#: The settings of the Wagtail tests, which run in a pytest of their own (tests/test_wagtail.py).
WAGTAIL_SETTINGS = "tests.wagtailsite.settings"
collect_ignore = (
    [] if os.environ.get("DJANGO_SETTINGS_MODULE") == WAGTAIL_SETTINGS else ["wagtailsite"]
)


@pytest.fixture
def xsd_validate_urlset() -> Callable[..., Any]:
    """Fixture form of :func:`tests.xsd.validate_urlset`."""
    return validate_urlset


@pytest.fixture
def xsd_validate_index() -> Callable[..., Any]:
    """Fixture form of :func:`tests.xsd.validate_index`."""
    return validate_index


@pytest.fixture
def sitemaps() -> Any:
    """The default site, emptied for the test and restored afterwards.

    The URLconf, views and builds use the default site (as a project's would),
    so tests register on it and this fixture undoes their registrations.
    """
    saved = dict(site._registry)
    saved_duplicates = list(site.duplicate_sections)
    site._registry.clear()
    site.duplicate_sections.clear()
    try:
        yield site
    finally:
        site._registry.clear()
        site._registry.update(saved)
        site.duplicate_sections[:] = saved_duplicates


@pytest.fixture(scope="module")
def s3_endpoint() -> Iterator[str]:
    """moto's S3 server on 127.0.0.1, for the module's tests (see tests/s3.py)."""
    server = moto_server.ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    yield f"http://{host}:{port}"
    server.stop()


@pytest.fixture(autouse=True)
def _clear_cache() -> Any:
    """Every test starts with an empty cache (Redis keeps keys between tests)."""
    from django.core.cache import caches

    for alias in caches:
        caches[alias].clear()
    return
