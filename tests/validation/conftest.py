"""The good build the validation tests break, and sites on 127.0.0.1 to validate."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.validation.builds import make_good_build
from tests.validation.servers import Site


@pytest.fixture
def good_build(sitemaps: Any, settings: Any, tmp_path: Path) -> Path:
    """A published build of five pages, robots.txt naming its index; the build folder."""
    return make_good_build(settings, tmp_path)


@pytest.fixture
def site() -> Iterator[Site]:
    """A site on 127.0.0.1 serving what the test routes (404 elsewhere)."""
    served = Site()
    try:
        yield served
    finally:
        served.close()


@pytest.fixture
def elsewhere() -> Iterator[Site]:
    """A second site (another port: another host for the validator), to count what reaches it."""
    served = Site()
    try:
        yield served
    finally:
        served.close()
