import uuid

from django.db import models
from django.urls import reverse


class Article(models.Model):
    title = models.CharField(max_length=200, default="")
    slug = models.CharField(max_length=3000)
    published = models.BooleanField(default=True)
    updated_at = models.DateTimeField()

    def __str__(self) -> str:
        return self.slug

    def get_absolute_url(self) -> str:
        return reverse("article-detail", kwargs={"slug": self.slug})


class Tag(models.Model):
    slug = models.CharField(max_length=200)
    updated_at = models.DateTimeField(auto_now=True)

    def get_absolute_url(self) -> str:
        return reverse("tag-detail", kwargs={"slug": self.slug})


class Author(models.Model):
    """No updated_at: listed without lastmod."""

    name = models.CharField(max_length=100)

    def get_absolute_url(self) -> str:
        return reverse("author-detail", kwargs={"pk": self.pk})


class Event(models.Model):
    """lastmod from a DateField named otherwise; free-form URL for bad-input tests."""

    url = models.CharField(max_length=4000)
    modified = models.DateField(null=True)

    def get_absolute_url(self) -> str:
        return self.url


class Document(models.Model):
    """A UUID primary key: keys arrive in random order."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4)
    updated_at = models.DateTimeField()

    def get_absolute_url(self) -> str:
        return f"/documents/{self.id}/"


class Product(models.Model):
    """A unique slug filling a path converter at the end of its URL."""

    slug = models.CharField(max_length=200, unique=True)
    updated_at = models.DateTimeField()

    def get_absolute_url(self) -> str:
        return reverse("product-detail", kwargs={"slug": self.slug})


class Entry(models.Model):
    """A blog entry as Django's sitemap documentation has it: drafts, pub_date, no updated_at."""

    slug = models.SlugField(max_length=200, unique=True)
    is_draft = models.BooleanField(default=False)
    pub_date = models.DateTimeField()

    def get_absolute_url(self) -> str:
        return reverse("entry-detail", kwargs={"slug": self.slug})


class Gallery(models.Model):
    """Images: a URL column (``cover``), a file column (``picture``) and related photos."""

    slug = models.SlugField(max_length=200, unique=True)
    updated_at = models.DateTimeField()
    cover = models.CharField(max_length=3000, blank=True, default="")
    picture = models.FileField(upload_to="pictures/", max_length=3000, blank=True, default="")

    def get_absolute_url(self) -> str:
        return reverse("article-detail", kwargs={"slug": self.slug})


class Photo(models.Model):
    gallery = models.ForeignKey(Gallery, models.CASCADE, related_name="photos")
    file = models.FileField(upload_to="photos/", max_length=500)


class Story(models.Model):
    """A news article."""

    slug = models.SlugField(max_length=200, unique=True)
    title = models.CharField(max_length=300)
    published_at = models.DateTimeField(null=True)
    updated_at = models.DateTimeField(auto_now=True)

    def get_absolute_url(self) -> str:
        return reverse("article-detail", kwargs={"slug": self.slug})
