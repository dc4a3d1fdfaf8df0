"""What a save or delete of a row that sections list sets off: the change log's note, and the
cached files' invalidation."""

from __future__ import annotations

from typing import Any

from django.db import models, transaction

from django_sitemapkit.serving.cache import invalidate_sections
from django_sitemapkit.serving.invalidation import sections_of
from django_sitemapkit.sites import all_sites


def on_model_change(sender: type[models.Model], using: str = "default", **kwargs: Any) -> None:
    """post_save / post_delete receiver: note the row (``CHANGE_LOG``); invalidate once committed.

    Before the commit another request could re-render from the old data and
    cache it under the new token; on_commit runs at once outside a transaction.
    """
    names = []
    for site in all_sites():
        listing = sections_of(sender, site)
        names.extend(listing)
    if names:
        transaction.on_commit(lambda: invalidate_sections(names), using=using)
