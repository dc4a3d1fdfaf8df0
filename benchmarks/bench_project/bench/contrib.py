"""django.contrib.sitemaps over the same rows: limit 50,000, lastmod from updated_at."""

from django.contrib.sitemaps import GenericSitemap

from bench.models import BenchArticle

CONTRIB_SITEMAPS = {
    "articles": GenericSitemap(
        {
            "queryset": BenchArticle.objects.filter(published=True).order_by("pk"),
            "date_field": "updated_at",
        },
        protocol="https",
    ),
}
