"""A section mixin that keeps the per-row path: location() is item.get_absolute_url()."""

from __future__ import annotations

from typing import Any


class PerRow:
    """Defining location() keeps instances and one get_absolute_url() call per row."""

    def location(self, item: Any) -> str:
        return str(item.get_absolute_url())
