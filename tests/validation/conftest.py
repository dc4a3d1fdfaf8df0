"""The good build the validation tests break."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.validation.builds import make_good_build


@pytest.fixture
def good_build(sitemaps: Any, settings: Any, tmp_path: Path) -> Path:
    """A published build of five pages, robots.txt naming its index; the build folder."""
    return make_good_build(settings, tmp_path)
