"""The fast loop writes what the general path writes: plain image columns, runs of plain rows,
repeated locations, overflows, and changefreq and priority from columns."""

from __future__ import annotations

import datetime
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import django_sitemapkit as sitemapkit
from django_sitemapkit._engine.entries import EntryFactory, entry_factory
from django_sitemapkit._engine.fastloop import FastLoop
from django_sitemapkit._engine.rendering import make_context, render_page
from django_sitemapkit._engine.sections import write_page
from django_sitemapkit._protocol.writer import MAX_BYTES_PER_FILE, UrlsetWriter
from django_sitemapkit._sites import site
from tests.perrow import PerRow
from tests.testapp.models import Article, Author, Gallery, Story
from tests.utils import parse_urlset
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
    # Neither url_name nor location(): Gallery.get_absolute_url() read as the pattern.
    site._registry["derived"] = type("Derived", (Base,), {"section": "derived", "model": Gallery})()


def both(values: list[str], field: str) -> tuple[bytes, bytes]:
    Gallery.objects.all().delete()
    Gallery.objects.bulk_create(
        Gallery(slug=f"g{n}", updated_at=T0, **{field: value}) for n, value in enumerate(values)
    )
    slow = render_page("slow", 1, base_url=BASE, sitemaps=site)
    fast = render_page("fast", 1, base_url=BASE, sitemaps=site)
    derived = render_page("derived", 1, base_url=BASE, sitemaps=site)
    assert derived.content == fast.content
    validate_urlset(fast.content)
    return slow.content, fast.content


@pytest.mark.parametrize("field", ["cover", "picture"])
def test_a_plain_image_column_keeps_the_fast_loop(sitemaps: Any, settings: Any, field: str) -> None:
    settings.MEDIA_URL = "/media/"
    register(field)
    fast = site._registry["fast"]
    factory = entry_factory(fast, make_context(BASE))
    assert FastLoop.prepare(factory) is not None
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


# --------------------------------------------------------------------------- runs of plain rows

# Slugs the fast loop writes itself, and slugs only the general path can write.
PLAIN_SLUG = st.text(alphabet="abcXYZ019_-", min_size=1, max_size=12)
AWKWARD_SLUG = st.one_of(
    st.text(alphabet=st.sampled_from("ab/%é€ ?#&'\"<.~😀"), max_size=12),
    st.sampled_from(["", "a/b", "%41", "é", "..", "a.b"]),
)
DATED = st.builds(
    lambda days, micros: T0 + datetime.timedelta(days=days, microseconds=micros),
    st.integers(0, 3),
    st.sampled_from([0, 1, 500000, 999999]),
)
LASTMOD = st.one_of(st.none(), DATED)
LIMITS = {
    "limit": st.integers(1, 12),
    # Past a few entries (some 100 bytes each), or never.
    "max_bytes": st.one_of(st.integers(400, 1500), st.just(MAX_BYTES_PER_FILE)),
}


def register_pair(model: type, url_name: str, kwargs: dict[str, str], **attributes: Any) -> None:
    """Sections "slow" (PerRow: get_absolute_url() per row) and "fast" (url_name) of ``model``."""

    class Base(sitemapkit.ModelSitemap):
        changefreq = "weekly"

    for name, value in attributes.items():
        setattr(Base, name, value)

    class Slow(PerRow, Base):
        pass

    class Fast(Base):
        pass

    Fast.url_name, Fast.url_kwargs = url_name, kwargs
    site._registry.clear()
    sitemapkit.register(model, Slow, section="slow")
    site._registry["fast"] = type("Fast", (Fast,), {"section": "fast", "model": model})()


def written(section: str, max_bytes: int) -> tuple[Any, ...]:
    """Page 1 of ``section``: everything a render keeps of it."""
    sitemap = site._registry[section]
    context = make_context(BASE)
    factory = entry_factory(sitemap, context)
    writer = UrlsetWriter(max_entries=sitemap.limit, max_bytes=max_bytes)
    newest, overflow_key = write_page(sitemap, 1, context, factory, writer)
    return writer.content(), factory.skipped, newest, overflow_key


def same_either_way() -> tuple[Any, ...]:
    """The fast section writes what the slow one writes; the fast one's page."""
    fast = site._registry["fast"]
    assert FastLoop.prepare(entry_factory(fast, make_context(BASE))) is not None
    max_bytes = fast.max_bytes
    slow_page, fast_page = written("slow", max_bytes), written("fast", max_bytes)
    names = ("content", "skipped", "lastmod", "overflow key")
    for name, slow_value, fast_value in zip(names, slow_page, fast_page, strict=True):
        assert fast_value == slow_value, name
    if fast_page[0].count(b"<url>"):  # an empty <urlset> is never served
        validate_urlset(fast_page[0])
    return fast_page


def stories_either_way(
    monkeypatch: pytest.MonkeyPatch,
    rows: list[tuple[str, datetime.datetime | None]],
    limit: int,
    max_bytes: int,
) -> None:
    """Stories of ``rows`` (slug, lastmod) in pages of ``limit``: the same page either way."""
    register_pair(
        Story, "article-detail", {"slug": "slug"}, lastmod_field="published_at", limit=limit
    )
    site._registry["fast"].max_bytes = max_bytes
    Story.objects.all().delete()
    Story.objects.bulk_create(
        # A prefix keeps the slugs unique under any collation; "" (once) stays empty.
        Story(slug=slug and f"{n:02d}{slug}", title="t", published_at=lastmod)
        for n, (slug, lastmod) in enumerate(rows)
    )
    same_either_way()


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    rows=st.lists(
        st.tuples(st.one_of(PLAIN_SLUG, AWKWARD_SLUG), LASTMOD),
        max_size=16,
        unique_by=lambda row: row[0],
    ),
    **LIMITS,
)
def test_unique_slugs_in_runs_give_the_same_page_either_way(
    sitemaps: Any,
    monkeypatch: pytest.MonkeyPatch,
    rows: list[tuple[str, datetime.datetime | None]],
    limit: int,
    max_bytes: int,
) -> None:
    # A unique slug: plain rows are written in runs, untracked; NULL lastmods.
    stories_either_way(monkeypatch, rows, limit, max_bytes)


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    plain=st.lists(st.tuples(PLAIN_SLUG, DATED), min_size=3, max_size=30),
    others=st.lists(
        st.tuples(st.one_of(PLAIN_SLUG, AWKWARD_SLUG), LASTMOD),
        max_size=3,
        unique_by=lambda row: row[0],
    ),
    at=st.integers(0, 30),
    **LIMITS,
)
def test_plain_rows_among_others_give_the_same_page(
    sitemaps: Any,
    monkeypatch: pytest.MonkeyPatch,
    plain: list[tuple[str, datetime.datetime]],
    others: list[tuple[str, datetime.datetime | None]],
    at: int,
    limit: int,
    max_bytes: int,
) -> None:
    # Mostly plain, dated rows, and a few only the general path writes, in any order.
    stories_either_way(monkeypatch, plain[:at] + others + plain[at:], limit * 3, max_bytes)


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    slugs=st.lists(
        st.one_of(
            PLAIN_SLUG,
            AWKWARD_SLUG,
            st.sampled_from(["dup", "dup", "Dup", "x" * 2100, "y" * 2014, "y" * 2015]),
        ),
        max_size=16,
    ),
    **LIMITS,
)
def test_slugs_that_repeat_give_the_same_page_either_way(
    sitemaps: Any, monkeypatch: pytest.MonkeyPatch, slugs: list[str], limit: int, max_bytes: int
) -> None:
    # Not unique: every location is tracked and a repeated one skipped.
    # "y" * 2014 makes a URL of 2,048 characters, the most a location may have.
    register_pair(Article, "article-detail", {"slug": "slug"}, limit=limit)
    site._registry["fast"].max_bytes = max_bytes
    Article.objects.all().delete()
    Article.objects.bulk_create(
        Article(slug=slug, updated_at=T0 + datetime.timedelta(seconds=n % 5))
        for n, slug in enumerate(slugs)
    )
    same_either_way()


@pytest.mark.parametrize(("rows", "limit"), [(7, 50), (25, 50), (25, 10), (25, 4)])
def test_int_keys_give_the_same_page_either_way(
    sitemaps: Any, monkeypatch: pytest.MonkeyPatch, rows: int, limit: int
) -> None:
    # The Author's pk fills an int converter: written as its digits.
    register_pair(Author, "author-detail", {"pk": "pk"}, limit=limit)
    site._registry["fast"].max_bytes = MAX_BYTES_PER_FILE
    Author.objects.bulk_create(Author(name=f"n{n}") for n in range(rows))
    content, *_, overflow_key = same_either_way()
    pks = list(Author.objects.order_by("pk").values_list("pk", flat=True))
    locs = [url.loc for url in parse_urlset(content)]
    assert locs == [f"{BASE}/authors/{pk}/" for pk in pks[:limit]]
    assert overflow_key == (pks[limit] if rows > limit else None)


def test_an_overflow_names_the_first_row_that_did_not_fit(
    sitemaps: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    register_pair(Story, "article-detail", {"slug": "slug"}, lastmod_field="published_at", limit=5)
    site._registry["fast"].max_bytes = MAX_BYTES_PER_FILE
    Story.objects.bulk_create(
        Story(slug=f"s{n}", title="t", published_at=T0 + datetime.timedelta(days=n % 3))
        for n in range(9)
    )
    content, _, newest, overflow_key = same_either_way()
    stories = list(Story.objects.order_by("pk"))
    assert overflow_key == stories[5].pk
    assert len(parse_urlset(content)) == 5
    # The newest of the rows written (s2), not of s5..s8 that did not fit.
    assert newest == T0 + datetime.timedelta(days=2)


# --------------------------------------------------------------------------- per-row columns

COLUMN_VALUES = ["daily", "weekly", "Daily", " monthly", "bogus", "0.5", "1", "0.25", "2", ""]


@pytest.mark.parametrize("attribute", ["changefreq_field", "priority_field"])
@settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(titles=st.lists(st.sampled_from(COLUMN_VALUES), min_size=1, max_size=12))
def test_changefreq_and_priority_columns_give_the_same_page_either_way(
    sitemaps: Any, attribute: str, titles: list[str]
) -> None:
    # The general path reads the same column rows where the fast loop is not prepared.
    register_pair(
        Story,
        "article-detail",
        {"slug": "slug"},
        lastmod_field="published_at",
        **{attribute: "title"},
    )
    site._registry["fast"].max_bytes = MAX_BYTES_PER_FILE
    Story.objects.all().delete()
    Story.objects.bulk_create(
        Story(slug=f"s{n}", title=title, published_at=T0) for n, title in enumerate(titles)
    )
    fast = written("fast", MAX_BYTES_PER_FILE)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(FastLoop, "prepare", classmethod(lambda cls, factory: None))
        general = written("fast", MAX_BYTES_PER_FILE)
    assert fast == general
    validate_urlset(fast[0])


def test_valid_column_values_stay_on_the_fast_loop(
    sitemaps: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    register_pair(Story, "article-detail", {"slug": "slug"}, priority_field="title")
    Story.objects.bulk_create(
        Story(slug=f"s{n}", title=title, published_at=T0) for n, title in enumerate(["0.5", "1"])
    )
    calls: list[Any] = []
    general = EntryFactory.__call__
    monkeypatch.setattr(
        EntryFactory, "__call__", lambda self, row: calls.append(row) or general(self, row)
    )
    content = render_page("fast", 1, base_url=BASE, sitemaps=site).content
    assert calls == []
    assert content.count(b"<priority>0.5</priority>") == content.count(b"<priority>1.0</priority>")
    assert b"<changefreq>weekly</changefreq><priority>0.5</priority>" in content
