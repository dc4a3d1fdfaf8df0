"""Where a model section's locations come from (django_sitemapkit/_engine/rows.py)."""

from __future__ import annotations

import datetime
from typing import Any

import pytest
from django.db import models
from django.urls import NoReverseMatch, reverse
from hypothesis import given
from hypothesis import strategies as st

import django_sitemapkit as sitemapkit
from django_sitemapkit._engine.entries import EntryFactory, entry_factory
from django_sitemapkit._engine.fastloop import FastLoop
from django_sitemapkit._engine.rendering import make_context, render_page
from django_sitemapkit._engine.rows import (
    UrlRoute,
    UrlTemplate,
    derivation,
    needs_instances,
    url_route,
)
from django_sitemapkit._reversing import Derived, Refused
from django_sitemapkit._sites import site
from tests.perrow import PerRow
from tests.testapp.models import Article, Author
from tests.utils import parse_urlset

BASE = "https://www.example.com"


class Plain(sitemapkit.ModelSitemap):
    model = Article


def test_a_plain_section_needs_no_instance_and_derives_its_route() -> None:
    section = Plain()
    assert needs_instances(section) is None
    assert isinstance(derivation(section), Derived)
    assert url_route(section) == UrlRoute("article-detail", ("slug",), ("slug",))


class Location(Plain):
    def location(self, item: Any) -> str:
        return "/x/"


class Images(Plain):
    def images(self, item: Any) -> list[str]:
        return []


class Videos(Plain):
    def videos(self, item: Any) -> list[dict[str, Any]]:
        return []


class News(Plain):
    def news(self, item: Any) -> None:
        return None


class ExtraXml(Plain):
    def extra_xml(self, item: Any) -> tuple[str, ...]:
        return ()


class Languages(Plain):
    def get_languages_for_item(self, item: Any) -> list[str]:
        return ["en"]


class LastmodMethod(Plain):
    def lastmod(self, item: Any) -> None:
        return None


class LastmodConstant(Plain):
    lastmod = None  # None is "no lastmod given": still derived (see below)


class LastmodValue(Plain):
    lastmod = datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC)  # type: ignore[assignment]


class Changefreq(Plain):
    def changefreq(self, item: Any) -> str:  # type: ignore[override]
        return "daily"


class Priority(Plain):
    def priority(self, item: Any) -> float:  # type: ignore[override]
        return 0.5


@pytest.mark.parametrize(
    ("cls", "reason"),
    [
        (Location, "Location.location() takes instances"),
        (Images, "Images.images() takes instances"),
        (Videos, "Videos.videos() takes instances"),
        (News, "News.news() takes instances"),
        (ExtraXml, "ExtraXml.extra_xml() takes instances"),
        (Languages, "Languages.get_languages_for_item() takes instances"),
        (LastmodMethod, "LastmodMethod gives lastmod itself rather than lastmod_field"),
        (LastmodValue, "LastmodValue gives lastmod itself rather than lastmod_field"),
        (Changefreq, "Changefreq.changefreq() takes instances"),
        (Priority, "Priority.priority() takes instances"),
        (PerRow, None),
    ],
    ids=lambda value: getattr(value, "__name__", None),
)
def test_a_hook_taking_items_keeps_instances(cls: Any, reason: str | None) -> None:
    if cls is PerRow:
        cls = type("PerRowPlain", (PerRow, Plain), {})
        reason = "PerRowPlain.location() takes instances"
    section = cls()
    assert needs_instances(section) == reason
    assert derivation(section) == Refused(reason)  # type: ignore[arg-type]
    assert url_route(section) is None


def test_constants_and_fields_keep_the_derived_route() -> None:
    class Constants(Plain):
        changefreq = "daily"
        priority = 0.3
        changefreq_field = "title"

    for cls in (Constants, LastmodConstant):
        assert needs_instances(cls()) is None
        assert url_route(cls()) == UrlRoute("article-detail", ("slug",), ("slug",))


def test_an_explicit_url_name_comes_first() -> None:
    class Named(Plain):
        url_name = "article-slug"
        url_kwargs = {"slug": "slug"}

    assert url_route(Named()) == UrlRoute("article-slug", ("slug",), ("slug",))


def test_a_section_without_model_has_no_derived_route() -> None:
    class Items(sitemapkit.ModelSitemap):
        pass

    assert derivation(Items()) == Refused("the section has no model")
    assert url_route(Items()) is None


# ---------------------------------------------------------- positional args (an int converter)


def by_args(self: Any) -> str:
    return reverse("author-detail", args=[self.pk])


def by_id_and_slug(self: Any) -> str:
    return reverse("article-by-id", args=(self.pk, self.slug))


def proxy_of(base: type[models.Model], name: str, method: Any) -> Any:
    class Meta:
        proxy = True
        app_label = "testapp"

    return type(name, (base,), {"__module__": __name__, "Meta": Meta, "get_absolute_url": method})


AuthorByArgs = proxy_of(Author, "RoutesAuthorByArgs", by_args)
ArticleByArgs = proxy_of(Article, "RoutesArticleByArgs", by_id_and_slug)


def test_positional_args_are_a_route_of_positions() -> None:
    route = url_route(type("S", (sitemapkit.ModelSitemap,), {"model": AuthorByArgs})())
    assert route == UrlRoute("author-detail", ("pk",), None)
    template = route.template()  # type: ignore[union-attr]
    assert template.positional and template.kwarg_names == ("pk",)
    assert template.parts == ["/authors/", "/"]


@given(value=st.one_of(st.integers(-(10**20), 10**20), st.text(max_size=8)))
def test_positional_fill_is_reverse_with_args(value: Any) -> None:
    template = UrlTemplate("author-detail", 1)
    try:
        expected = reverse("author-detail", args=[value])
    except NoReverseMatch:
        with pytest.raises(NoReverseMatch):
            template.fill([value])
    else:
        assert template.fill([value]) == expected


def test_positional_args_in_a_number_the_pattern_does_not_take_call_reverse() -> None:
    template = UrlTemplate("author-detail", 2)
    assert template.parts is None
    with pytest.raises(NoReverseMatch):
        template.fill([1, 2])


def register_pair(model: Any) -> None:
    class Derived(sitemapkit.ModelSitemap):
        lastmod_field = None
        changefreq = "monthly"

    class Slow(PerRow, Derived):
        pass

    site._registry.clear()
    for section, cls in (("derived", Derived), ("slow", Slow)):
        site._registry[section] = type(cls.__name__, (cls,), {"section": section, "model": model})()
    assert url_route(site._registry["derived"]) is not None
    assert url_route(site._registry["slow"]) is None


@pytest.mark.django_db
def test_the_fast_loop_writes_int_keys_as_the_per_row_path(
    sitemaps: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    Author.objects.bulk_create(Author(pk=pk, name=f"n{pk}") for pk in (1, 2, 10, 999, 10**9))
    register_pair(AuthorByArgs)
    derived = site._registry["derived"]
    assert FastLoop.prepare(entry_factory(derived, make_context(BASE))) is not None
    calls: list[Any] = []
    general = EntryFactory.__call__
    monkeypatch.setattr(
        EntryFactory, "__call__", lambda self, row: calls.append(row) or general(self, row)
    )
    fast = render_page("derived", 1, base_url=BASE, sitemaps=site)
    assert calls == []  # every row through the fast loop
    slow = render_page("slow", 1, base_url=BASE, sitemaps=site)
    assert len(calls) == 5
    assert fast.content == slow.content
    assert [entry.loc for entry in parse_urlset(fast.content)] == [
        f"{BASE}/authors/{pk}/" for pk in (1, 2, 10, 999, 10**9)
    ]


AWKWARD = ["plain", "caf\u00e9", "50% off?", "a+b=c;d,e", "", "a/b", "<&>", "x" * 2100]


@pytest.mark.django_db
def test_two_positional_args_give_the_per_row_bytes(sitemaps: Any) -> None:
    Article.objects.bulk_create(
        Article(slug=slug, updated_at=datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC))
        for slug in AWKWARD
    )
    register_pair(ArticleByArgs)
    assert url_route(site._registry["derived"]) == UrlRoute("article-by-id", ("pk", "slug"), None)
    fast = render_page("derived", 1, base_url=BASE, sitemaps=site)
    slow = render_page("slow", 1, base_url=BASE, sitemaps=site)
    assert fast.content == slow.content
    assert fast.skipped == slow.skipped == 3  # "", "a/b" and the long URL
    assert len(parse_urlset(fast.content)) == len(AWKWARD) - 3
