from __future__ import annotations

from typing import Any

import pytest
from django.core.cache import caches

import django_sitemapkit as sitemapkit
from django_sitemapkit._serving.cache import section_tokens, sections_of
from tests.testapp.models import Article, Tag

pytestmark = pytest.mark.django_db


def test_sections_of_a_model(sitemaps: Any) -> None:
    sitemapkit.register(Tag)
    sitemapkit.register(Article, section="news")
    assert sections_of(Tag, sitemaps) == ["testapp-tag"]
    assert sections_of(Article, sitemaps) == ["news"]


def test_invalidate_by_model_name_or_all(sitemaps: Any) -> None:
    sitemapkit.register(Tag)
    sitemapkit.register(Article)
    cache = caches["default"]
    names = ["testapp-tag", "testapp-article"]
    before = section_tokens(cache, names)
    sitemapkit.invalidate(Tag)
    after = section_tokens(cache, names)
    assert after["testapp-tag"] != before["testapp-tag"]
    assert after["testapp-article"] == before["testapp-article"]
    sitemapkit.invalidate()
    assert all(
        a != b for a, b in zip(section_tokens(cache, names).values(), after.values(), strict=True)
    )


def test_saves_of_unregistered_models_do_nothing(
    sitemaps: Any, django_capture_on_commit_callbacks: Any
) -> None:
    sitemapkit.register(Article)
    with django_capture_on_commit_callbacks() as callbacks:
        Tag.objects.create(slug="x")
    assert callbacks == []
