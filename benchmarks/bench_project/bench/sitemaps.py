"""django-sitemapkit's section over the articles, in one of three modes.

``BENCH_SITEMAPKIT_MODE=fast`` (default) names the URL pattern and the column
that fills it, the fast path; ``images`` is the fast path with one image per
row (``images_field``); ``absurl`` lists model instances and calls
``get_absolute_url()`` on each; ``i18n`` (set by ``benchsite.settings_i18n``)
is the fast path in three languages, with alternates and x-default. Only one
is registered per process so that ``sitemapkit_build`` builds exactly one
section (N URLs; 3N with ``i18n``).
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

elif MODE == "images":

    @sitemapkit.register(BenchArticle, section="articles-images")
    class ImageArticleSitemap(_Articles):
        # The fast path with one <image:image> per row, read from a column.
        url_name = "bench-article"
        url_kwargs = {"slug": "slug"}
        images_field = "image"

elif MODE == "absurl":

    @sitemapkit.register(BenchArticle, section="articles-absurl")
    class AbsoluteUrlArticleSitemap(_Articles):
        pass  # <loc> from get_absolute_url()

elif MODE == "i18n":

    @sitemapkit.register(BenchArticle, section="articles-i18n")
    class I18nArticleSitemap(_Articles):
        # Every article in en, fr and de (settings_i18n.LANGUAGES), each entry
        # with its three alternates and x-default; limit 50,000 URLs a file.
        url_name = "bench-article"
        url_kwargs = {"slug": "slug"}
        i18n = True
        alternates = True
        x_default = True

else:
    raise RuntimeError(
        f"BENCH_SITEMAPKIT_MODE must be 'fast', 'images', 'absurl' or 'i18n', not {MODE!r}"
    )
