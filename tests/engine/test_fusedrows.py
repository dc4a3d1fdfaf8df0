"""The fused loop writes a plain image column itself, with the general path's bytes."""

from __future__ import annotations

import datetime
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import django_sitemapkit as sitemapkit
from django_sitemapkit.engine.entries import EntryFactory
from django_sitemapkit.engine.factory import entry_factory
from django_sitemapkit.engine.fusedrows import FusedRows
from django_sitemapkit.engine.rendering import make_context, render_page
from django_sitemapkit.sites import site
from tests.perrow import PerRow
from tests.testapp.models import Gallery
from tests.xsd import validate_urlset

pytestmark = pytest.mark.django_db

BASE = "https://www.example.com"
T0 = datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC)
AWKWARD = [
    "/media/plain.jpg",
    "",
    "/media/a b.jpg",
    "/media/../up.jpg",
    "//cdn.example.net/x.jpg",
    "https://cdn.example.net/x.jpg?a=1&b=2",
    "/media/é.jpg",
    "relative.jpg",
    "/" + "x" * 2100,
    "/media/./dot.jpg",
]
# Stored text: no NUL (PostgreSQL) and no lone surrogate (any database).
STORED = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=60
)


def register(field: str) -> None:
    class Base(sitemapkit.ModelSitemap):
        images_field = field
        priority = 0.5

    class Slow(PerRow, Base):
        pass

    class Fast(Base):
        url_name = "article-detail"
        url_kwargs = {"slug": "slug"}

    site._registry.clear()
    sitemapkit.register(Gallery, Slow, section="slow")
    site._registry["fast"] = type("Fast", (Fast,), {"section": "fast", "model": Gallery})()


def both(values: list[str], field: str) -> tuple[bytes, bytes]:
    Gallery.objects.all().delete()
    Gallery.objects.bulk_create(
        Gallery(slug=f"g{n}", updated_at=T0, **{field: value}) for n, value in enumerate(values)
    )
    slow = render_page("slow", 1, base_url=BASE, sitemaps=site)
    fast = render_page("fast", 1, base_url=BASE, sitemaps=site)
    validate_urlset(fast.content)
    return slow.content, fast.content


@pytest.mark.parametrize("field", ["cover", "picture"])
def test_a_plain_image_column_keeps_the_fused_loop(
    sitemaps: Any, settings: Any, field: str
) -> None:
    settings.MEDIA_URL = "/media/"
    register(field)
    fast = site._registry["fast"]
    factory = entry_factory(fast, make_context(BASE))
    assert FusedRows.prepare(fast, factory) is not None
    values = AWKWARD if field == "cover" else [v.lstrip("/") for v in AWKWARD]
    slow, fast_bytes = both(values, field)
    assert fast_bytes == slow
    assert fast_bytes.count(b"<image:image>") >= 5


@pytest.mark.parametrize("field", ["cover", "picture"])
def test_plain_rows_never_reach_the_general_path(
    sitemaps: Any, settings: Any, monkeypatch: pytest.MonkeyPatch, field: str
) -> None:
    settings.MEDIA_URL = "/media/"
    register(field)
    calls = []
    general = EntryFactory.__call__
    monkeypatch.setattr(
        EntryFactory, "__call__", lambda self, row: calls.append(row) or general(self, row)
    )
    value = "/media/p/1.jpg" if field == "cover" else "p/1.jpg"
    slow, fast = both([value, ""], field)
    assert fast == slow
    assert fast.count(b"<image:image><image:loc>https://www.example.com/media/p/1.jpg<") == 1
    assert len(calls) == 2  # the slow section's two rows only


@pytest.mark.parametrize("field", ["cover", "picture"])
@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(values=st.lists(st.one_of(STORED, st.sampled_from(AWKWARD)), min_size=1, max_size=8))
def test_awkward_values_give_the_same_bytes_either_way(
    sitemaps: Any, settings: Any, field: str, values: list[str]
) -> None:
    settings.MEDIA_URL = "/media/"
    register(field)
    slow, fast = both(values, field)
    assert fast == slow
