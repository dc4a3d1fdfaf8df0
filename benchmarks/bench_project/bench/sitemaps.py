"""django-sitemapkit's section over the articles, in one of six modes.

``BENCH_SITEMAPKIT_MODE=fast`` (default) names the URL pattern and the column
that fills it, the fast path; ``images`` is the fast path with one image per
row (``images_field``); ``absurl`` is ``register(BenchArticle)`` with its
plain ``get_absolute_url()``, which is derived (read as the URL pattern, the
fast path again); ``perrow`` defines ``location()`` to call
``get_absolute_url()`` on each model instance, the per-row path; ``generic``
is contrib's ``GenericSitemap`` registered with ``register_sitemaps()``;
``i18n`` (set by ``benchsite.settings_i18n``) is the fast path in three
languages, with alternates and x-default. Only one is registered per process
so that ``sitemapkit_build`` builds exactly one section (N URLs; 3N with
``i18n``).
"""

from django.conf import settings
from django.contrib.sitemaps import GenericSitemap
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
        pass  # <loc> from get_absolute_url(), read as the URL pattern

elif MODE == "perrow":

    @sitemapkit.register(BenchArticle, section="articles-perrow")
    class PerRowArticleSitemap(_Articles):
        def location(self, item: BenchArticle) -> str:
            # A method taking the item: instances, get_absolute_url() on each.
            return item.get_absolute_url()

elif MODE == "generic":
    # contrib's GenericSitemap as a project moving over has it, registered as is.
    sitemapkit.register_sitemaps(
        {
            "articles-generic": GenericSitemap(
                {
                    "queryset": BenchArticle.objects.filter(published=True),
                    "date_field": "updated_at",
                },
                protocol="https",
            ),
        }
    )

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
        "BENCH_SITEMAPKIT_MODE must be 'fast', 'images', 'absurl', 'perrow', 'generic' "
        f"or 'i18n', not {MODE!r}"
    )
