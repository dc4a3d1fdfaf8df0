"""Wagtail's own ``wagtail.contrib.sitemaps.Sitemap``, registered as it is.

Its entries are built in ``_urls()`` from each page's ``get_sitemap_urls()``:
sitemapkit's files list exactly what Wagtail's views list, entry by entry,
rendered and built, with no request (Wagtail's default ``Site``), and valid.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.test import Client
from django.test.utils import override_settings
from lxml import etree
from wagtail.models import Locale, Page, Site

import django_sitemapkit as sitemapkit
from django_sitemapkit._checks import check_sites
from tests.contribviews import HOST, NS, Entry, contrib_files, entries, same_day, sitemapkit_files
from tests.validation.builds import build, validate, xsd_args
from tests.wagtailsite.models import ArticlePage
from tests.wagtailsite.urls import SITEMAPS, BlogPages

pytestmark = pytest.mark.django_db

BASE = "https://www.example.com"
SETTINGS = {
    "ROOT_URLCONF": "tests.wagtailsite.urls",
    "MIDDLEWARE": ["django.middleware.locale.LocaleMiddleware"],
    "LANGUAGE_CODE": "en",
}


def publish(page: Page) -> Page:
    page.save_revision().publish()
    page.refresh_from_db()
    return page


@pytest.fixture
def tree() -> list[Page]:
    """Wagtail's default site on www.example.com: its home, five articles, two also in French."""
    site = Site.objects.get(is_default_site=True)
    site.hostname, site.port = "www.example.com", 443
    site.save()
    home = publish(site.root_page)
    french = Locale.objects.create(language_code="fr")
    articles = [
        publish(home.add_child(instance=ArticlePage(title=f"Article {n}", slug=f"article-{n}")))
        for n in range(5)
    ]
    for article in articles[:2]:
        publish(article.copy_for_translation(french, copy_parents=True))
    drafted = home.add_child(instance=ArticlePage(title="Draft", slug="draft", live=False))
    return [home, *articles, drafted]


def index_dates(content: bytes) -> list[str]:
    """The lastmod of each file an index names."""
    index = etree.fromstring(content)
    return [lastmod.text or "" for lastmod in index.findall("sm:sitemap/sm:lastmod", NS)]


def lowered(entry: Entry) -> Entry:
    """A Wagtail entry as the protocol writes it: changefreq in lower case."""
    changefreq = entry.changefreq and entry.changefreq.lower()
    return Entry(entry.loc, entry.lastmod, changefreq, entry.priority, entry.alternates)


@pytest.mark.parametrize("section", ["pages", "small"])
def test_wagtail_sitemap_lists_what_wagtails_views_list(
    sitemaps: Any, tree: list[Page], client: Client, section: str
) -> None:
    sitemapkit.register_sitemaps(SITEMAPS)
    with override_settings(**SETTINGS, SITEMAPKIT={"BASE_URL": BASE, "CACHE_TIMEOUT": 0}):
        ours = sitemapkit_files(client, section)
        theirs = contrib_files(client, section)
    assert len(ours) == len(theirs) == (1 if section == "pages" else 3)
    for our_file, their_file in zip(ours, theirs, strict=True):
        assert [same_day(entry) for entry in our_file] == [lowered(e) for e in their_file]
    listed = {entry.loc: entry for file in ours for entry in file}
    article = listed[f"{BASE}/en/article-0/"]
    assert (article.changefreq, article.priority) == ("weekly", "0.6")
    assert article.alternates == {
        ("en", f"{BASE}/en/article-0/"),
        ("fr", f"{BASE}/fr/article-0/"),
        ("x-default", f"{BASE}/en/article-0/"),
    }
    assert listed[f"{BASE}/en/article-0/comments/"].priority == "0.3"
    assert len(listed) == 11 and not [loc for loc in listed if "draft" in loc]
    assert check_sites() == []


def test_a_built_wagtail_sitemap_is_what_the_views_serve_and_valid(
    sitemaps: Any, tree: list[Page], client: Client, settings: Any, tmp_path: Path
) -> None:
    sitemapkit.register_sitemaps({"small": SITEMAPS["small"]})
    settings.SITEMAPKIT = {"BASE_URL": BASE, "CACHE_TIMEOUT": 0, "BUILD_DIR": str(tmp_path)}
    settings.ROOT_URLCONF = SETTINGS["ROOT_URLCONF"]
    settings.LANGUAGE_CODE = "en"
    settings.MIDDLEWARE = SETTINGS["MIDDLEWARE"]
    served = sitemapkit_files(client, "small")
    # Each file is dated by the newest lastmod it lists, the same on every render.
    served_dates = [index_dates(client.get("/sitemap.xml", **HOST).content) for _ in range(2)]
    build()
    built = [
        entries(path.read_bytes()) for path in sorted(tmp_path.glob("current/sitemap-small-*.xml"))
    ]
    assert built == served
    built_dates = index_dates((tmp_path / "current" / "sitemap.xml").read_bytes())
    assert built_dates == served_dates[0] == served_dates[1]
    assert built_dates == [max(entry.lastmod or "" for entry in file) for file in served]
    status, output = validate(*xsd_args())
    assert status == 0, output


def test_publishing_a_page_refreshes_the_cached_files(
    sitemaps: Any, tree: list[Page], client: Client, django_capture_on_commit_callbacks: Any
) -> None:
    """A page type's save invalidates the section listing ``Page``, the model it inherits."""
    sitemapkit.register_sitemaps({"pages": SITEMAPS["pages"]})
    with override_settings(**SETTINGS, SITEMAPKIT={"BASE_URL": BASE}):
        before = [entry.loc for [file] in [sitemapkit_files(client, "pages")] for entry in file]
        with django_capture_on_commit_callbacks(execute=True):
            publish(tree[0].add_child(instance=ArticlePage(title="New", slug="new")))
        after = [entry.loc for [file] in [sitemapkit_files(client, "pages")] for entry in file]
    assert f"{BASE}/en/new/" not in before
    assert sorted(after) == sorted([*before, f"{BASE}/en/new/", f"{BASE}/en/new/comments/"])


def test_each_wagtail_site_is_a_site_of_sites(
    sitemaps: Any, tree: list[Page], client: Client, settings: Any
) -> None:
    """Two Wagtail ``Site``s: a section per site, each listed on its host's site of SITES."""
    blog_home = Page.get_first_root_node().add_child(instance=Page(title="Blog", slug="blog"))
    Site.objects.create(hostname="blog.example.com", port=443, root_page=publish(blog_home))
    publish(blog_home.add_child(instance=ArticlePage(title="Post", slug="post")))
    sitemapkit.register_sitemaps({"pages": SITEMAPS["pages"], "blog-pages": BlogPages})
    settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "blog.example.com"]
    settings.SITEMAPKIT = {
        "CACHE_TIMEOUT": 0,
        "SITES": {
            "main": {"BASE_URL": BASE, "SECTIONS": ["pages"]},
            "blog": {"BASE_URL": "https://blog.example.com", "SECTIONS": ["blog-pages"]},
        },
    }
    with override_settings(**SETTINGS):
        main = client.get("/sitemap-pages-1.xml", HTTP_HOST="www.example.com", secure=True)
        blog = client.get("/sitemap-blog-pages-1.xml", HTTP_HOST="blog.example.com", secure=True)
    assert len(entries(main.content)) == 11
    assert [entry.loc for entry in entries(blog.content)] == [
        "https://blog.example.com/en/",
        "https://blog.example.com/en/post/",
        "https://blog.example.com/en/post/comments/",
    ]
