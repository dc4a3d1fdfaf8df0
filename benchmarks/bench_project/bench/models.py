from django.db import models
from django.urls import reverse

try:
    from icv_sitemaps.mixins import SitemapMixin
except ImportError:  # the `bench` extra is not installed: no icv contender
    SitemapMixin = None


class BenchArticle(models.Model):
    slug = models.CharField(max_length=200, unique=True)
    title = models.CharField(max_length=200)
    # Deliberately not indexed, like most real `updated_at` columns: whoever
    # needs the newest lastmod of a set of rows has to read those rows.
    updated_at = models.DateTimeField(db_index=False)
    published = models.BooleanField(default=True)
    # One image per article, for the images contender (images_field).
    image = models.CharField(max_length=300, default="")

    def __str__(self) -> str:
        return self.title

    def get_absolute_url(self) -> str:
        return reverse("bench-article", kwargs={"slug": self.slug})


if SitemapMixin is not None:

    class IcvArticle(SitemapMixin, BenchArticle):
        """The same rows, as django-icv-sitemaps wants them (its SitemapMixin).

        A proxy, so no other contender sees the mixin. ``<changefreq>`` and
        ``<priority>`` are turned off (its defaults are "daily" and 0.5) so that
        every contender writes the same elements: ``<loc>`` and ``<lastmod>``.
        """

        class Meta:
            proxy = True

        def get_sitemap_changefreq(self) -> str | None:
            return None

        def get_sitemap_priority(self) -> float | None:
            return None

        @classmethod
        def get_sitemap_queryset(cls) -> models.QuerySet["IcvArticle"]:
            return cls.objects.filter(published=True)
