"""Fixtures of the IndexNow tests: a local endpoint, and IndexNow configured to use it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from django_sitemapkit import _indexnow as indexnow
from tests.building.conftest import build_dir, site
from tests.notifying.endpoint import Endpoint, running_endpoint

KEY = "0123456789abcdef-key"

__all__ = ["build_dir", "site"]


@pytest.fixture
def endpoint(settings: Any, monkeypatch: pytest.MonkeyPatch) -> Iterator[Endpoint]:
    """A running local endpoint, configured as INDEXNOW's; retries do not sleep."""
    monkeypatch.setattr(indexnow, "DELAYS", (0.0, 0.0, 0.0))
    with running_endpoint() as running:
        settings.SITEMAPKIT = {
            **settings.SITEMAPKIT,
            "INDEXNOW": {"KEY": KEY, "ENDPOINT": running.url},
        }
        yield running
