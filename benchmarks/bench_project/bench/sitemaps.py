"""django-sitemapkit's section over the articles, in one of two modes.

``BENCH_SITEMAPKIT_MODE=fast`` (default) names the URL pattern and the column
that fills it, the fast path; ``absurl`` lists model instances and calls
``get_absolute_url()`` on each. Only one is registered per process so that
``sitemapkit_build`` builds exactly one section of N URLs.
"""

from django.conf import settings
from django.db.models import QuerySet

import django_sitemapkit as sitemapkit
from bench.models import BenchArticle

MODE = settings.BENCH_SITEMAPKIT_MODE


class _Articles(sitemapkit.ModelSitemap):
    def get_queryset(self) -> QuerySet[BenchArticle]:
        return BenchArticle.objects.filter(published=True)


if MODE == "fast":

    @sitemapkit.register(BenchArticle, section="articles")
    class ArticleSitemap(_Articles):
        url_name = "bench-article"
        url_kwargs = {"slug": "slug"}

elif MODE == "absurl":

    @sitemapkit.register(BenchArticle, section="articles-absurl")
    class AbsoluteUrlArticleSitemap(_Articles):
        pass  # <loc> from get_absolute_url()

else:
    raise RuntimeError(f"BENCH_SITEMAPKIT_MODE must be 'fast' or 'absurl', not {MODE!r}")
