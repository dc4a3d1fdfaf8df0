"""Every section, wherever a project registers it: what the system checks read.

``docs/migrating.md`` registers contrib's ``sitemaps`` dict in ``urls.py``,
which Django imports on the first request or ``reverse()``: a check could
run before that (``check --tag sitemapkit`` runs no URL check at all) and
see no section. The checks import the URLconf first, as Django's URL
checks do.
"""

from __future__ import annotations

import contextlib

from django.urls import get_resolver

from django_sitemapkit.sites import SitemapSite, all_sites


def registered_sites() -> list[SitemapSite]:
    """Every site, after the URLconf has registered what it registers."""
    # A broken or missing URLconf is for Django's own URL checks to report.
    with contextlib.suppress(Exception):
        get_resolver().url_patterns  # noqa: B018 -- imports ROOT_URLCONF
    return all_sites()
