"""What the stale-build tests share: ``sitemapkit_status`` from Python, and serve mode's report."""

from __future__ import annotations

import io
import json
from typing import Any

from django.core.management import call_command


def status(*args: str) -> tuple[int, str]:
    """``sitemapkit_status``'s exit status and output."""
    out = io.StringIO()
    try:
        call_command("sitemapkit_status", *args, stdout=out)
    except SystemExit as exc:
        return int(str(exc.code)), out.getvalue()
    return 0, out.getvalue()


def assert_articles_reported_stale(caplog: Any) -> dict[str, Any]:
    """Serve mode warned once about the article section, and status says it alone is stale.

    Returns the site in status's JSON.
    """
    warnings = [r.getMessage() for r in caplog.records if "older than the data" in r.getMessage()]
    assert warnings == [
        "Serving the published build of sitemap section 'testapp-article', which is older "
        "than the data (STALE_BUILD = 'serve'): run sitemapkit_build."
    ]
    code, text = status()
    assert code == 1
    assert "STALE" in text.splitlines()[0]
    code, text = status("--format", "json")
    (site,) = json.loads(text)
    by_name = {s["section"]: s for s in site["sections"]}
    assert by_name["testapp-article"]["stale"] is True
    assert by_name["testapp-tag"]["stale"] is False
    return dict(site)
