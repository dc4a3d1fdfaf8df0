"""Persistent page boundaries of model sections (see ``_engine/pages.py``)."""

from __future__ import annotations

from django.db import models

from django_sitemapkit._engine.pages import PageManager


class SitemapPage(models.Model):
    """One page of a section: the rows whose key lies in ``[start_key, end_key)``.

    ``None`` stands for minus and plus infinity. Keys are stored as text (the
    primary key's string form) so one table serves integer, UUID and text keys.
    """

    section = models.CharField(max_length=64)
    number = models.PositiveIntegerField()
    start_key = models.TextField(null=True, blank=True)
    end_key = models.TextField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    objects = PageManager()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["section", "number"], name="sitemapkit_page_unique"),
        ]
        ordering = ["section", "number"]

    def __str__(self) -> str:
        return f"{self.section} page {self.number}"


class SitemapStatus(SitemapPage):
    """No table of its own: the admin's read-only page of the published build (admin.py)."""

    class Meta:
        proxy = True
        verbose_name = "sitemap status"
        verbose_name_plural = "sitemap status"
