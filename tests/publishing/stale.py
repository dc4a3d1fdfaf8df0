"""What the stale-build tests share: the first build, ``sitemapkit_status`` from Python, and
serve mode's report."""

from __future__ import annotations

import datetime
import io
import json
from typing import Any

from django.core.management import call_command

import django_sitemapkit as sitemapkit
from django_sitemapkit.publishing import freshness
from tests.building.builds import T0, build
from tests.testapp.models import Article, Tag


def build_articles_and_tags() -> None:
    """Five articles (pages of 1,000) and a tag, registered and built once; nothing remembered
    of any earlier build's freshness."""

    @sitemapkit.register(Article)
    class ArticleSitemap(sitemapkit.ModelSitemap):
        limit = 1000

    sitemapkit.register(Tag)
    Article.objects.bulk_create(
        Article(slug=f"a{i}", updated_at=T0 + datetime.timedelta(hours=i)) for i in range(5)
    )
    Tag.objects.create(slug="t", updated_at=T0)
    build()
    freshness._local.clear()
    freshness._warned.clear()


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
