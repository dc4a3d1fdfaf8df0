"""What the stale-build tests share: the first build, and ``sitemapkit_status`` from Python."""

from __future__ import annotations

import datetime
import io

from django.core.management import call_command

import django_sitemapkit as sitemapkit
from tests.building.builds import T0
from tests.testapp.models import Article, Tag


def build_articles_and_tags() -> None:
    """Five articles (pages of 1,000) and a tag, registered and built once."""

    @sitemapkit.register(Article)
    class ArticleSitemap(sitemapkit.ModelSitemap):
        limit = 1000

    sitemapkit.register(Tag)
    Article.objects.bulk_create(
        Article(slug=f"a{i}", updated_at=T0 + datetime.timedelta(hours=i)) for i in range(5)
    )
    Tag.objects.create(slug="t", updated_at=T0)
    sitemapkit.build()


def status(*args: str) -> tuple[int, str]:
    """``sitemapkit_status``'s exit status and output."""
    out = io.StringIO()
    try:
        call_command("sitemapkit_status", *args, stdout=out)
    except SystemExit as exc:
        return int(str(exc.code)), out.getvalue()
    return 0, out.getvalue()
