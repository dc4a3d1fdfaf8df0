"""Sites: the default one, several in one project, their URLs, checks and builds."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from importlib.metadata import version
from pathlib import Path
from typing import Any

import pytest
from django.apps import apps
from django.test import Client

import django_sitemapkit as sitemapkit
from django_sitemapkit._checks import check_sites
from django_sitemapkit._sites import SitemapSite
from tests.testapp.models import Tag
from tests.utils import get_ok, parse_index, parse_urlset
from tests.xsd import validate_index, validate_urlset

BASE = "https://www.example.com"


def test_autodiscover_imports_sitemaps_modules(sitemaps: Any, settings: Any) -> None:
    settings.INSTALLED_APPS = [*settings.INSTALLED_APPS, "tests.discovered"]
    sitemapkit.autodiscover()
    assert sitemaps.sections() == ["discovered"]


def test_an_error_in_the_first_apps_sitemaps_module_is_the_users_own(
    sitemaps: Any, settings: Any
) -> None:
    # The first sitemaps.py to register finds the registry empty; its error
    # used to end as an UnboundLocalError inside autodiscover_modules.
    settings.INSTALLED_APPS = [*settings.INSTALLED_APPS, "tests.discovered_broken"]
    with pytest.raises(LookupError, match=r"a typo in the user's sitemaps\.py"):
        sitemapkit.autodiscover()
    # Django restores the registry as it was before the failed import.
    assert sitemaps.sections() == []


def test_an_empty_registry_is_still_a_registry(sitemaps: Any) -> None:
    assert len(sitemaps) == 0
    assert sitemaps


def test_simple_config_does_not_autodiscover() -> None:
    from django.apps import apps

    config = apps.get_app_config("django_sitemapkit")
    assert type(config).__name__ == "SimpleSitemapkitConfig"
    from django_sitemapkit.apps import SitemapkitConfig

    assert SitemapkitConfig.default
    assert issubclass(SitemapkitConfig, type(config))


# -- several sites ---------------------------------------------------------------


class NewsSitemap(sitemapkit.Sitemap):
    changefreq = "daily"

    def items(self) -> list[str]:
        return ["one", "two"]

    def location(self, item: str) -> str:
        return f"/news/{item}/"


@pytest.fixture
def news(sitemaps: Any) -> Iterator[SitemapSite]:
    """The second site of tests/urls_two_sites.py, with one section, emptied afterwards."""
    from tests.urls_two_sites import news as news_site

    news_site.register(section="stories")(NewsSitemap)
    try:
        yield news_site
    finally:
        news_site._registry.clear()
        news_site.duplicate_sections.clear()


@pytest.mark.urls("tests.urls_two_sites")
@pytest.mark.django_db
def test_two_sites_serve_their_own_sections(news: SitemapSite, client: Client) -> None:
    sitemapkit.register(Tag)
    Tag.objects.create(slug="t1")
    default_index = parse_index(get_ok(client, "/sitemap.xml"))
    assert [loc for loc, _ in default_index] == [f"{BASE}/sitemap-testapp-tag-1.xml"]
    news_index = get_ok(client, "/news/sitemap.xml")
    validate_index(news_index)
    assert [loc for loc, _ in parse_index(news_index)] == [f"{BASE}/news/sitemap-stories-1.xml"]
    page = get_ok(client, "/news/sitemap-stories-1.xml")
    validate_urlset(page)
    assert [url.loc for url in parse_urlset(page)] == [f"{BASE}/news/one/", f"{BASE}/news/two/"]
    # Each site's URLs serve only its own sections.
    assert client.get("/news/sitemap-testapp-tag-1.xml").status_code == 404
    assert client.get("/sitemap-stories-1.xml").status_code == 404


@pytest.mark.urls("tests.urls_two_sites")
@pytest.mark.django_db
def test_a_second_site_is_rendered_not_read_from_the_default_sites_build(
    news: SitemapSite, client: Client, settings: Any, tmp_path: Path
) -> None:
    sitemapkit.register(Tag)
    Tag.objects.create(slug="t1")
    settings.SITEMAPKIT = {
        **settings.SITEMAPKIT,
        "BUILD_DIR": str(tmp_path / "built"),
        "SERVE_BUILT_FILES": True,
    }
    result = sitemapkit.build()
    assert isinstance(result, sitemapkit.BuildResult)
    assert (tmp_path / "built" / "current" / "sitemap-testapp-tag-1.xml").exists()
    news_index = parse_index(get_ok(client, "/news/sitemap.xml"))
    assert [loc for loc, _ in news_index] == [f"{BASE}/news/sitemap-stories-1.xml"]


@pytest.mark.urls("tests.urls_two_sites")
@pytest.mark.django_db
def test_a_model_change_drops_the_cached_files_of_every_site(
    news: SitemapSite, client: Client, settings: Any, django_capture_on_commit_callbacks: Any
) -> None:
    settings.SITEMAPKIT = {**settings.SITEMAPKIT, "CACHE_TIMEOUT": 600}

    class NewsTags(sitemapkit.ModelSitemap):
        url_name = "news-detail"
        url_kwargs = {"slug": "slug"}

    news.register(Tag, NewsTags)
    tag = Tag.objects.create(slug="first")
    page = "/news/sitemap-testapp-tag-1.xml"
    assert [u.loc for u in parse_urlset(get_ok(client, page))] == [f"{BASE}/news/first/"]
    tag.slug = "renamed"
    with django_capture_on_commit_callbacks(execute=True):
        tag.save()
    assert [u.loc for u in parse_urlset(get_ok(client, page))] == [f"{BASE}/news/renamed/"]


def test_a_section_checks_itself_as_model_admin_does(sitemaps: Any) -> None:
    @sitemapkit.register(Tag)
    class Loud(sitemapkit.ModelSitemap):
        priority = 2.0

    [error] = sitemaps["testapp-tag"].check()
    assert error.id == "sitemapkit.E004"
    testapp = apps.get_app_config("testapp")
    assert [e.id for e in sitemaps.check([testapp])] == ["sitemapkit.E004"]
    # Checks of other apps leave the section alone (manage.py check otherapp).
    assert sitemaps.check([apps.get_app_config("django_sitemapkit")]) == []


def test_a_list_section_belongs_to_the_app_of_its_class(sitemaps: Any) -> None:
    @sitemapkit.register(section="pages")
    class Pages(sitemapkit.Sitemap):
        changefreq = "sometimes"

    # Defined in this test module, which is in no installed app.
    assert [e.id for e in sitemaps.check()] == ["sitemapkit.E005"]
    assert sitemaps.check([apps.get_app_config("testapp")]) == []


def test_a_section_name_in_two_sites_is_an_error(sitemaps: Any) -> None:
    other = SitemapSite("other")
    sitemapkit.register(Tag)
    other.register(Tag)
    assert "sitemapkit.E015" in [m.id for m in check_sites()]
    del other
    gc.collect()
    assert "sitemapkit.E015" not in [m.id for m in check_sites()]


def test_site_urls_name_the_sites_namespace() -> None:
    patterns, app_name, namespace = SitemapSite("maps").urls
    assert (app_name, namespace) == ("sitemapkit", "maps")
    assert {p.name for p in patterns} == {
        "index",
        "index-gz",
        "section",
        "section-gz",
        "contrib-section",
        "stylesheet",
        "indexnow-key",
    }


def test_the_package_exports_what_users_import() -> None:
    for name in sitemapkit.__all__:
        assert getattr(sitemapkit, name) is not None, name
    assert sitemapkit.__version__ == version("django-sitemapkit")
