"""Deploy checks of how model sections make their URLs: I001 per row, I002 the fast path.

A model section fills its URL pattern once reversed (``url_name``, or its
model's ``get_absolute_url()`` read as one) or calls ``location()`` on an
instance per row, which is much slower on large tables. ``check --deploy``
says which, and for a ``get_absolute_url()`` that could not be read, the
line that stopped it. No check reads the database.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.apps import AppConfig
from django.core.checks import CheckMessage, Info

from django_sitemapkit.engine.rows import route_report
from django_sitemapkit.registered import registered_sites


def check_url_routes(
    app_configs: Sequence[AppConfig] | None = None, **kwargs: Any
) -> list[CheckMessage]:
    """I001: a model section calls location() per row; I002: it fills a URL pattern."""
    messages: list[CheckMessage] = []
    for site in registered_sites():
        for sitemap in site:
            try:
                report = route_report(sitemap)
            except Exception as exc:  # its own checks (E009, E019, ...) say what is wrong
                report = (False, f"location() per row: {type(exc).__name__}: {exc}")
            if report is None:
                continue
            fast, how = report
            if fast:
                messages.append(
                    Info(f"Sitemap section {sitemap.name!r}: {how}.", id="sitemapkit.I002")
                )
            else:
                messages.append(
                    Info(
                        f"Sitemap section {sitemap.name!r}: {how}.",
                        hint="Make get_absolute_url() one reverse() of a URL name with fields "
                        "of the row, or name the pattern (url_name, url_kwargs): each URL is "
                        "then filled from columns, without an instance and a reverse() per row.",
                        id="sitemapkit.I001",
                    )
                )
    return messages
