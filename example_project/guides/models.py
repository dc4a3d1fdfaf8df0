from django.db import models
from django.urls import reverse


class Topic(models.Model):
    name = models.CharField(max_length=100)
    slug = models.SlugField(max_length=100, unique=True)
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        # Inside i18n_patterns: reversed in the active language (/en/..., /fr/..., /de/...).
        return reverse("guides:topic-detail", kwargs={"slug": self.slug})


class Guide(models.Model):
    title = models.CharField(max_length=200)
    slug = models.SlugField(max_length=200, unique=True)
    topic = models.ForeignKey(Topic, on_delete=models.CASCADE, related_name="guides")
    # Drafts are neither served nor listed in the sitemap.
    is_draft = models.BooleanField(default=False, db_index=True)
    pub_date = models.DateTimeField(db_index=True)

    class Meta:
        ordering = ["-pub_date"]

    def __str__(self) -> str:
        return self.title

    def get_absolute_url(self) -> str:
        return reverse("guides:guide-detail", kwargs={"slug": self.slug})
