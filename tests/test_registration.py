"""register() as a call and as a class decorator, on a site."""

from __future__ import annotations

from typing import Any

import pytest

import django_sitemapkit as sitemapkit
from django_sitemapkit._sites import AlreadyRegistered, NotRegistered, default_section_name
from tests.testapp.models import Article, Author, Tag
from tests.utils import parse_index, parse_urlset, path_of


def test_register_model_creates_a_model_sitemap(sitemaps: Any) -> None:
    sitemapkit.register(Tag)
    assert sitemaps.is_registered(Tag)
    assert sitemaps.is_registered("testapp-tag")
    sitemap = sitemaps["testapp-tag"]
    assert isinstance(sitemap, sitemapkit.ModelSitemap)
    assert sitemap.model is Tag


def test_decorator_returns_the_class_and_replaces_the_default(sitemaps: Any) -> None:
    @sitemapkit.register(Article)
    class ArticleSitemap(sitemapkit.ModelSitemap):
        changefreq = "weekly"

    assert ArticleSitemap.__name__ == "ArticleSitemap"
    assert sitemaps.sections() == ["testapp-article"]
    sitemap = sitemaps["testapp-article"]
    assert isinstance(sitemap, ArticleSitemap)
    assert sitemap.model is Article
    # the user's class is not modified: registration binds a subclass
    assert ArticleSitemap.model is None


def test_decorator_with_section_name(sitemaps: Any) -> None:
    @sitemapkit.register(section="pages")
    class PageSitemap(sitemapkit.StaticViewSitemap):
        url_names = ["home"]

    assert sitemaps.sections() == ["pages"]
    assert isinstance(sitemaps["pages"], PageSitemap)


def test_register_twice_raises(sitemaps: Any) -> None:
    sitemapkit.register(Tag)
    with pytest.raises(AlreadyRegistered):
        sitemapkit.register(Tag)


@pytest.mark.django_db
def test_a_model_registers_in_a_second_section_by_the_obvious_call(
    sitemaps: Any, client: Any
) -> None:
    Tag.objects.bulk_create([Tag(slug="django"), Tag(slug="sitemaps")])
    sitemapkit.register(Tag)
    sitemapkit.register(Tag, section="tag-archive")
    assert sitemaps.sections() == ["testapp-tag", "tag-archive"]
    assert sitemaps["tag-archive"].model is Tag
    # Both are named and served, each listing exactly the model's rows.
    rows = ["https://www.example.com/tags/django/", "https://www.example.com/tags/sitemaps/"]
    index = client.get("/sitemap.xml")
    assert [path_of(loc) for loc, _lastmod in parse_index(index.content)] == [
        "/sitemap-testapp-tag-1.xml",
        "/sitemap-tag-archive-1.xml",
    ]
    for name in sitemaps.sections():
        response = client.get(f"/sitemap-{name}-1.xml")
        assert response.status_code == 200
        assert sorted(url.loc for url in parse_urlset(response.content)) == rows
    # A section name the model has already is refused, saying how to add another.
    with pytest.raises(AlreadyRegistered) as raised:
        sitemapkit.register(Tag, section="tag-archive")
    assert str(raised.value) == (
        "The model testapp.Tag is already registered as section 'tag-archive'. To list it "
        "in a second section as well, give that section another name: "
        "register(Tag, section='<another name>')."
    )
    # unregister(model) removes every section of the model.
    sitemaps.unregister(Tag)
    assert sitemaps.sections() == []


def test_a_second_section_under_a_taken_name_is_still_e007(sitemaps: Any) -> None:
    sitemapkit.register(Author, section="people")
    sitemapkit.register(Tag, section="people")
    assert "sitemapkit.E007" in [m.id for m in sitemaps.check()]


def test_unregister(sitemaps: Any) -> None:
    sitemapkit.register(Tag)
    sitemaps.unregister(Tag)
    assert not sitemaps.is_registered(Tag)
    with pytest.raises(NotRegistered):
        sitemaps.unregister(Tag)
    sitemapkit.register(Author, section="people")
    sitemaps.unregister("people")
    assert len(sitemaps) == 0


def test_duplicate_section_names_are_recorded_not_raised(sitemaps: Any) -> None:
    sitemapkit.register(Tag, section="things")
    sitemapkit.register(Author, section="things")
    assert sitemaps.sections() == ["things"]
    assert sitemaps["things"].model is Tag
    assert sitemaps.duplicate_sections == [("things", "ModelSitemap")]


def test_register_needs_something(sitemaps: Any) -> None:
    with pytest.raises(TypeError):
        sitemapkit.register()


def test_decorator_rejects_non_sitemaps(sitemaps: Any) -> None:
    with pytest.raises(TypeError):
        sitemapkit.register(section="x")(object)  # type: ignore[type-var]


def test_default_section_name_rule() -> None:
    assert default_section_name(Article) == "testapp-article"
