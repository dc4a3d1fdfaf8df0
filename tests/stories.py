"""A news section over the test app's stories, shared by the news and change-log tests."""

from __future__ import annotations

from typing import Any

import django_sitemapkit as sitemapkit
from tests.testapp.models import Story


class StorySitemap(sitemapkit.ModelSitemap):
    news_date_field = "published_at"
    limit = 5000

    def news(self, item: Story) -> dict[str, Any]:
        return {
            "publication_name": "The Example Times",
            "publication_language": "en",
            "publication_date": item.published_at,
            "title": item.title,
        }
