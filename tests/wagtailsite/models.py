"""A Wagtail page type whose ``get_sitemap_urls()`` gives what Wagtail's documentation shows.

Extra URLs, per-page changefreq and priority (as text and as Decimal), and
hreflang alternates to the page's translations with an x-default.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from wagtail.models import Page


class ArticlePage(Page):
    def get_sitemap_urls(self, request: Any = None) -> list[dict[str, Any]]:
        [entry] = super().get_sitemap_urls(request)
        alternates = [
            {"location": page.get_full_url(request), "lang_code": page.locale.language_code}
            for page in self.get_translations(inclusive=True).live()
        ]
        if self.locale.language_code == "en":
            alternates.append({"location": entry["location"], "lang_code": "x-default"})
        entry.update(changefreq="Weekly", priority="0.6", alternates=alternates)
        comments = {**entry, "location": entry["location"] + "comments/"}
        comments.update(priority=Decimal("0.3"), alternates=[])
        return [entry, comments]
