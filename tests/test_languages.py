"""Sitemaps of sites in several languages: one rendering language, URLs that resolve."""

from __future__ import annotations

import datetime
import itertools
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from django.core.cache import cache
from django.test import Client
from django.test.utils import override_settings
from django.utils import translation

import django_sitemapkit as sitemapkit
from django_sitemapkit._reversing import default_language
from tests import contrib_sitemaps
from tests.contribviews import HOST, entries, get, index_locs
from tests.testapp.models import Entry

pytestmark = pytest.mark.django_db

LOCALE = ["django.middleware.locale.LocaleMiddleware"]
PREFIXED = "tests.urls_i18n"
UNPREFIXED = "tests.urls_i18n_unprefixed"
# What a visitor's request can carry to choose a language.
VISITORS: list[dict[str, str]] = [
    {},
    {"HTTP_ACCEPT_LANGUAGE": "de"},
    {"HTTP_ACCEPT_LANGUAGE": "fr-FR,fr;q=0.9"},
    {"HTTP_COOKIE": "django_language=fr"},
    {"HTTP_ACCEPT_LANGUAGE": "de", "HTTP_COOKIE": "django_language=de"},
]


@pytest.fixture
def project(sitemaps: Any) -> Any:
    start = datetime.datetime(2024, 3, 1, 12, 30, tzinfo=datetime.UTC)
    Entry.objects.bulk_create(
        Entry(slug=f"post-{n}", is_draft=n == 3, pub_date=start + datetime.timedelta(days=n))
        for n in range(6)
    )
    sitemapkit.register_sitemaps(contrib_sitemaps.SITEMAPS)
    sitemapkit.register_sitemaps({"rebased": contrib_sitemaps.RebasedI18nBlogSitemap})
    return sitemaps


@pytest.mark.parametrize(
    ("urlconf", "language_code", "expected"),
    [
        (PREFIXED, "en-us", "en"),
        (PREFIXED, "en", "en"),
        (UNPREFIXED, "en-us", "en-us"),
        ("tests.urls", "en-us", "en"),
        ("tests.urls", "pt-br", "pt-br"),
    ],
)
def test_default_language(urlconf: str, language_code: str, expected: str) -> None:
    with override_settings(ROOT_URLCONF=urlconf, LANGUAGE_CODE=language_code):
        assert default_language() == expected


def every_file(client: Client, **headers: str) -> dict[str, bytes]:
    """The index and every file it names, plain and gzipped, as ``headers`` request them."""
    files = {
        "/sitemap.xml": get(client, "/sitemap.xml", **headers),
        "/sitemap.xml.gz": get(client, "/sitemap.xml.gz", **headers),
    }
    for loc in index_locs(files["/sitemap.xml"]):
        path = urlsplit(loc).path
        files[path] = get(client, path, **headers)
        files[path + ".gz"] = get(client, path + ".gz", **headers)
    return files


def listed_urls(files: dict[str, bytes]) -> set[str]:
    urls = set()
    for path, content in files.items():
        if path.endswith(".xml") and path != "/sitemap.xml":
            for entry in entries(content):
                urls.add(entry.loc)
                urls.update(href for _lang, href in entry.alternates)
    return urls


@pytest.mark.parametrize("urlconf", [PREFIXED, UNPREFIXED])
@pytest.mark.parametrize("language_code", ["en-us", "en"])
def test_every_listed_url_and_alternate_answers(
    project: Any, client: Client, urlconf: str, language_code: str
) -> None:
    with override_settings(ROOT_URLCONF=urlconf, MIDDLEWARE=LOCALE, LANGUAGE_CODE=language_code):
        urls = listed_urls(every_file(client))
        assert any("/fr/" in url for url in urls) and any("/de/" in url for url in urls)
        for url in urls:
            assert "/en-us/" not in url
            path = urlsplit(url).path
            response = client.get(path, **HOST, follow=True)
            assert response.status_code == 200, url
            # Only x-default (no prefix) may redirect, as contrib's does.
            assert not response.redirect_chain or "/en/" not in path, url


@pytest.mark.parametrize("urlconf", [PREFIXED, UNPREFIXED])
def test_responses_are_the_same_bytes_whatever_the_visitors_language(
    project: Any, client: Client, urlconf: str
) -> None:
    with override_settings(ROOT_URLCONF=urlconf, MIDDLEWARE=LOCALE, LANGUAGE_CODE="en"):
        for order in itertools.islice(itertools.permutations(VISITORS), 0, None, 29):
            cache.clear()
            seen = [every_file(Client(), **headers) for headers in order]
            assert all(files == seen[0] for files in seen), order
        # Uncached too: each request renders.
        with override_settings(
            SITEMAPKIT={"BASE_URL": "https://www.example.com", "CACHE_TIMEOUT": 0}
        ):
            assert all(every_file(client, **headers) == seen[0] for headers in VISITORS)


@pytest.mark.parametrize("urlconf", [PREFIXED, UNPREFIXED])
def test_builds_equal_views(project: Any, client: Client, urlconf: str, tmp_path: Path) -> None:
    conf = {"BASE_URL": "https://www.example.com", "BUILD_DIR": str(tmp_path)}
    with override_settings(
        ROOT_URLCONF=urlconf, MIDDLEWARE=LOCALE, LANGUAGE_CODE="en-us", SITEMAPKIT=conf
    ):
        # Whatever language the building process has active.
        with translation.override("de"):
            sitemapkit.build()
        built = {
            "/" + p.name: p.read_bytes()
            for p in (tmp_path / "current").iterdir()
            if p.name.startswith(("sitemap.", "sitemap-")) and p.suffix not in (".css", ".xsl")
        }
        with override_settings(SITEMAPKIT={**conf, "SERVE_BUILT_FILES": False}):
            served = every_file(client, HTTP_ACCEPT_LANGUAGE="fr")
    assert built == served


def test_alternates_declare_the_xhtml_namespace_and_validate(project: Any, client: Client) -> None:
    with override_settings(ROOT_URLCONF=PREFIXED, MIDDLEWARE=LOCALE, LANGUAGE_CODE="en"):
        content = get(client, "/sitemap-i18n-1.xml")
    assert b'xmlns:xhtml="http://www.w3.org/1999/xhtml"' in content
    [first, *_] = entries(content)  # validated against sitemap.xsd + xhtml
    assert dict(first.alternates) == {
        "en": "https://www.example.com/en/blog/post-0/",
        "fr": "https://www.example.com/fr/blog/post-0/",
        "de": "https://www.example.com/de/blog/post-0/",
        "x-default": "https://www.example.com/blog/post-0/",
    }
