from django.db import models
from django.urls import reverse


class Article(models.Model):
    title = models.CharField(max_length=200)
    slug = models.SlugField(max_length=200, unique=True, allow_unicode=True)
    published = models.BooleanField(default=True, db_index=True)
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return self.title

    def get_absolute_url(self) -> str:
        return reverse("article-detail", kwargs={"slug": self.slug})


class Tag(models.Model):
    name = models.CharField(max_length=100)
    # A plain CharField, not a SlugField: tag slugs may contain characters
    # such as & ' " < > and spaces (routed through ``<str:slug>``).
    slug = models.CharField(max_length=100, unique=True)
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("tag-detail", kwargs={"slug": self.slug})


class Author(models.Model):
    # Deliberately no ``updated_at``: sitemap entries have no <lastmod> and
    # django_sitemapkit's system check warns about it (sitemapkit.W001).
    name = models.CharField(max_length=100)

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("author-detail", kwargs={"pk": self.pk})
