"""``sitemapkit_explain`` and the admin's lookup: is a URL listed, where and with what; or why not."""

from __future__ import annotations

import datetime
import io
import json
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.db.models import QuerySet
from django.test import override_settings
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import django_sitemapkit as sitemapkit
from tests.building.builds import T0, build
from tests.testapp.models import Article, Entry, Event

pytestmark = pytest.mark.django_db


def explain(*args: str) -> tuple[int, str]:
    """The command's exit status and output."""
    out = io.StringIO()
    try:
        call_command("sitemapkit_explain", *args, stdout=out)
    except SystemExit as exc:
        return int(str(exc.code)), out.getvalue()
    return 0, out.getvalue()


def answer(url: str) -> tuple[int, dict[str, Any]]:
    code, text = explain(url, "--json")
    (site,) = json.loads(text)
    return code, site


@pytest.fixture
def project(sitemaps: Any, settings: Any, tmp_path: Path) -> Path:
    """Published articles (drafts left out), events with free-form URLs; built once."""
    settings.SITEMAPKIT = {**settings.SITEMAPKIT, "BUILD_DIR": str(tmp_path)}

    @sitemapkit.register(Article)
    class ArticleSitemap(sitemapkit.ModelSitemap):
        changefreq = "weekly"
        priority = 0.6
        limit = 2

        def get_queryset(self) -> QuerySet[Article]:
            return Article.objects.filter(published=True)

    @sitemapkit.register(Event)
    class EventSitemap(sitemapkit.ModelSitemap):
        lastmod_field = "modified"

    Article.objects.bulk_create(
        Article(slug=f"a{i}", updated_at=T0 + datetime.timedelta(hours=i)) for i in range(5)
    )
    Article.objects.create(slug="draft", published=False, updated_at=T0)
    Event.objects.create(url="/events/fair/", modified=datetime.date(2026, 2, 1))
    Event.objects.create(url="https://other.example/events/away/")
    build()
    return tmp_path


def test_a_listed_url_names_its_section_file_and_values(project: Path) -> None:
    code, text = explain("https://www.example.com/articles/a3/")
    assert code == 0
    assert text.splitlines()[0] == (
        "https://www.example.com/articles/a3/ is listed: section 'testapp-article' in "
        "sitemap-testapp-article-2.xml."
    )
    assert "lastmod 2026-01-01T03:00:00+00:00, changefreq weekly, priority 0.6" in text
    code, site = answer("/articles/a3/")
    assert code == 0
    assert site["listed"] is True
    (finding,) = site["findings"]
    assert finding["section"] == "testapp-article"
    assert finding["page"] == 2
    assert finding["file"] == "sitemap-testapp-article-2.xml"
    assert finding["served_at"] == "https://www.example.com/sitemap-testapp-article-2.xml"
    assert finding["lastmod"] == "2026-01-01T03:00:00+00:00"
    assert (finding["changefreq"], finding["priority"]) == ("weekly", "0.6")
    assert finding["published"] == "yes"
    # The file the answer names does list it.
    assert b"/articles/a3/</loc>" in (project / "current" / finding["file"]).read_bytes()


def test_a_list_section_item_is_found_by_reading_the_section(project: Path) -> None:
    code, site = answer("/events/fair/")
    assert code == 0
    (finding,) = site["findings"]
    assert finding["section"] == "testapp-event"
    assert (finding["lastmod"], finding["file"]) == ("2026-02-01", "sitemap-testapp-event-1.xml")


def test_a_row_left_out_by_get_queryset_is_excluded(project: Path) -> None:
    code, text = explain("/articles/draft/")
    assert code == 1
    assert "is not listed: section 'testapp-article': excluded:" in text
    assert "not in ArticleSitemap.get_queryset()" in text


def test_a_skipped_row_names_the_rule(project: Path) -> None:
    code, site = answer("https://other.example/events/away/")
    assert code == 1
    (finding,) = site["findings"]
    assert finding["rule"] == "skipped"
    assert finding["reason"] == "points to another host (other.example)"
    assert finding["item"].startswith("<Event: Event object")


def test_a_url_no_section_produces(project: Path) -> None:
    code, text = explain("/about/")
    assert code == 1
    assert text.splitlines() == [
        "https://www.example.com/about/ is not listed: no section's items produce this URL."
    ]
    code, site = answer("/articles/nobody/")
    assert (code, site["rule"], site["findings"]) == (1, "no section", [])


def test_a_row_saved_since_the_build_is_live_but_not_yet_built(project: Path) -> None:
    Article.objects.create(slug="fresh", updated_at=T0)
    code, site = answer("/articles/fresh/")
    assert code == 1
    (finding,) = site["findings"]
    assert finding["rule"] == "not yet built"
    assert finding["reason"].startswith("present live, not yet in the published build of ")
    assert finding["lastmod"] == "2026-01-01T00:00:00+00:00"
    build()
    assert answer("/articles/fresh/")[0] == 0


def test_a_session_id_is_stripped_into_the_url_listed(project: Path) -> None:
    code, text = explain("/articles/a1/?sessionid=abc")
    assert code == 0
    assert "session ids are stripped from every URL: sitemaps list " in text


def test_outside_the_index_directory_and_another_host(project: Path) -> None:
    with override_settings(ROOT_URLCONF="tests.urls_sitemapkit_in_directory"):
        code, site = answer("/articles/a1/")
    assert code == 1
    assert site["rule"] == "outside the index's directory"
    code, site = answer("https://elsewhere.example/articles/a1/")
    assert (code, site["rule"]) == (1, "protocol")
    assert "another host" in site["reason"]


def test_a_language_not_in_languages(sitemaps: Any, settings: Any) -> None:
    settings.ROOT_URLCONF = "tests.urls_i18n"
    settings.LANGUAGES = [("en", "English"), ("fr", "French")]

    @sitemapkit.register(Entry)
    class EntrySitemap(sitemapkit.ModelSitemap):
        lastmod_field = "pub_date"
        i18n = alternates = True

    Entry.objects.create(slug="hello", pub_date=T0)
    code, site = answer("/fr/blog/hello/")
    assert code == 0
    (finding,) = site["findings"]
    assert finding["alternates"] == [
        ["en", "https://www.example.com/en/blog/hello/"],
        ["fr", "https://www.example.com/fr/blog/hello/"],
    ]
    assert finding["published"] == "no build"
    code, site = answer("/de/blog/hello/")
    assert (code, site["rule"]) == (1, "language not in LANGUAGES")


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.text(min_size=1, max_size=60))
def test_any_text_is_answered_never_a_traceback(project: Path, text: str) -> None:
    if not text.strip() or text.startswith("-"):
        return
    code, output = explain(text, "--json")
    assert code in (0, 1)
    assert json.loads(output)[0]["asked"] == text


def test_a_row_noindex_field_marks_is_excluded_by_it(sitemaps: Any, settings: Any) -> None:
    settings.ROOT_URLCONF = "tests.urls_contrib"

    @sitemapkit.register(Entry)
    class EntrySitemap(sitemapkit.ModelSitemap):
        lastmod_field = "pub_date"
        noindex_field = "is_draft"

    Entry.objects.create(slug="done", pub_date=T0)
    Entry.objects.create(slug="draft", is_draft=True, pub_date=T0)
    assert answer("/blog/done/")[0] == 0
    code, site = answer("/blog/draft/")
    assert code == 1
    (finding,) = site["findings"]
    assert (finding["rule"], finding["reason"]) == (
        "excluded",
        "noindex_field 'is_draft' is true for it",
    )


def test_an_item_is_indexable_refuses_is_excluded_by_it(sitemaps: Any) -> None:
    @sitemapkit.register(Event)
    class EventSitemap(sitemapkit.ModelSitemap):
        lastmod_field = None

        def is_indexable(self, item: Event) -> bool:
            return item.url != "/events/hidden/"

    Event.objects.create(url="/events/shown/")
    Event.objects.create(url="/events/hidden/")
    assert answer("/events/shown/")[0] == 0
    code, text = explain("/events/hidden/")
    assert code == 1
    assert "excluded: is_indexable() returned False" in text
