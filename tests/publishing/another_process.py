"""``python -m tests.publishing.another_process COUNT``: writes made by another process.

Run by ``test_freshness_processes.py`` under ``tests.settings``, on the
database and cache its ``DATABASE_URL`` and ``CACHE_URL`` name (the test's
own), as a worker or ``manage.py shell`` would: it registers the articles'
section, adds COUNT articles with ``bulk_create`` (which sends no signal),
then saves the article ``a0`` through the ORM (``post_save``).
"""

from __future__ import annotations

import datetime
import sys

import django

T0 = datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC)


def write(count: int) -> None:
    # inner import: the app registry is ready only after django.setup()
    import django_sitemapkit as sitemapkit
    from tests.testapp.models import Article

    sitemapkit.register(Article)
    Article.objects.bulk_create(
        Article(slug=f"new{i}", updated_at=T0 + datetime.timedelta(days=1)) for i in range(count)
    )
    edited = Article.objects.get(slug="a0")
    edited.updated_at = T0 + datetime.timedelta(days=2)
    edited.save()
    print(Article.objects.count())


if __name__ == "__main__":
    django.setup()
    write(int(sys.argv[1]))
