"""IndexNow after builds: exactly the URLs a build changed, at a local endpoint the test starts."""

from __future__ import annotations

import datetime
import logging
from pathlib import Path
from typing import Any

import pytest
from django.core.files.storage import InMemoryStorage

from django_sitemapkit import _indexnow as indexnow
from django_sitemapkit._sites import site as default_site
from django_sitemapkit.models import SitemapPage
from tests.building.builds import EDITED, T0, build, published
from tests.notifying.conftest import KEY
from tests.notifying.endpoint import Endpoint, dripping_endpoint, running_endpoint
from tests.test_several_sites import BLOG, SHOP, two_sites
from tests.testapp.models import Article

pytestmark = pytest.mark.django_db

__all__ = ["two_sites"]

ARTICLE = "https://www.example.com/articles/{}/"


def edit_insert_delete() -> set[str]:
    """One row edited (updated_at moves), one inserted, one deleted: the URLs they change."""
    Article.objects.filter(slug="a20").update(updated_at=EDITED)
    Article.objects.create(slug="new", updated_at=EDITED)
    # The first row: every later URL moves up one place, most to another page.
    Article.objects.filter(slug="a0").delete()
    return {ARTICLE.format("a20"), ARTICLE.format("new"), ARTICLE.format("a0")}


def test_an_incremental_build_submits_exactly_the_changed_urls(
    site: Any, endpoint: Endpoint, build_dir: Path
) -> None:
    build()
    assert endpoint.posts == []  # a first build changes nothing a search engine knew of
    changed = edit_insert_delete()
    result = build()
    assert result.published
    assert endpoint.posts == [
        {
            "host": "www.example.com",
            "key": KEY,
            "keyLocation": f"https://www.example.com/{KEY}.txt",
            "urlList": sorted(changed),
        }
    ]
    assert endpoint.headers[0]["Content-Type"] == "application/json; charset=utf-8"
    assert endpoint.headers[0]["User-Agent"] == "django-sitemapkit"
    # Nothing changed since: nothing is submitted.
    build()
    assert len(endpoint.posts) == 1


def test_urls_moved_to_other_pages_are_no_change(
    site: Any, endpoint: Endpoint, build_dir: Path
) -> None:
    build()
    # Pages cut anew, 7 rows to a page: every page after the first is rewritten.
    default_site.get("testapp-article").limit = 7
    SitemapPage.objects.all().delete()
    Article.objects.filter(slug="a20").update(updated_at=EDITED)
    result = build()
    assert "sitemap-testapp-article-5.xml" in result.written
    assert endpoint.urls() == [ARTICLE.format("a20")]


def test_a_full_and_a_rerendering_build_of_unchanged_rows_submit_nothing(
    site: Any, endpoint: Endpoint, build_dir: Path
) -> None:
    build()
    build(full=True)
    build(rerender=True)
    assert endpoint.posts == []


def test_batches_hold_at_most_batch_size_urls(
    site: Any, endpoint: Endpoint, build_dir: Path, settings: Any
) -> None:
    settings.SITEMAPKIT["INDEXNOW"]["BATCH_SIZE"] = 2
    build()
    changed = edit_insert_delete()
    build()
    assert [len(post["urlList"]) for post in endpoint.posts] == [2, 1]
    assert set(endpoint.urls()) == changed


@pytest.mark.slow
def test_more_than_10000_changed_urls_go_in_batches_of_10000(
    site: Any, endpoint: Endpoint, build_dir: Path
) -> None:
    build()
    Article.objects.bulk_create(
        Article(slug=f"b{i}", updated_at=T0 + datetime.timedelta(hours=i)) for i in range(10_005)
    )
    build()
    assert [len(post["urlList"]) for post in endpoint.posts] == [10_000, 5]
    assert set(endpoint.urls()) == {ARTICLE.format(f"b{i}") for i in range(10_005)}


def test_a_failing_endpoint_is_tried_again(site: Any, endpoint: Endpoint, build_dir: Path) -> None:
    build()
    changed = edit_insert_delete()
    endpoint.statuses = [500, 503]
    assert build().published
    assert set(endpoint.urls()) == changed and len(endpoint.posts) == 1


def test_an_endpoint_that_is_down_logs_a_warning_and_the_build_publishes(
    site: Any, build_dir: Path, settings: Any, caplog: pytest.LogCaptureFixture, monkeypatch: Any
) -> None:
    monkeypatch.setattr(indexnow, "DELAYS", (0.0, 0.0, 0.0))
    with running_endpoint() as stopped:
        pass  # its port is closed now: every try is refused
    settings.SITEMAPKIT = {
        **settings.SITEMAPKIT,
        "INDEXNOW": {"KEY": KEY, "ENDPOINT": stopped.url},
    }
    build()
    edit_insert_delete()
    with caplog.at_level(logging.INFO, logger="django_sitemapkit"):
        result = build()
    assert result.published
    assert ARTICLE.format("new").encode() in published(build_dir)["sitemap-testapp-article-4.xml"]
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert warnings == [
        f"IndexNow: {stopped.url} failed 4 times; giving up.",
        f"IndexNow: 3 changed URLs of www.example.com not submitted to {stopped.url}.",
    ]


def test_nothing_is_submitted_by_a_dry_run_a_failed_build_or_with_indexnow_off(
    site: Any, endpoint: Endpoint, build_dir: Path, settings: Any, monkeypatch: Any
) -> None:
    build()
    edit_insert_delete()
    build(dry_run=True)
    monkeypatch.setattr("django_sitemapkit._publishing.localfolder.LocalTransaction.publish", _fail)
    with pytest.raises(OSError, match="disk full"):
        build()
    monkeypatch.undo()
    settings.SITEMAPKIT = {**settings.SITEMAPKIT, "INDEXNOW": None}
    assert build().published
    assert endpoint.posts == []


def _fail(*args: Any) -> None:
    raise OSError("disk full")


def test_each_site_submits_its_own_hosts_urls(
    two_sites: Path, settings: Any, monkeypatch: Any
) -> None:
    monkeypatch.setattr(indexnow, "DELAYS", (0.0, 0.0, 0.0))
    with running_endpoint() as endpoint:
        settings.SITEMAPKIT = {
            **settings.SITEMAPKIT,
            "INDEXNOW": {"KEY": KEY, "ENDPOINT": endpoint.url},
        }
        for name in ("shop", "blog"):
            default_site.builder(site=name).run()
        Article.objects.filter(slug__in=["shop-2", "blog-1"]).update(updated_at=EDITED)
        for name in ("shop", "blog"):
            default_site.builder(site=name).run()
    assert [(post["host"], post["keyLocation"], post["urlList"]) for post in endpoint.posts] == [
        (SHOP.split("//")[1], f"{SHOP}/{KEY}.txt", [f"{SHOP}/articles/shop-2/"]),
        (BLOG.split("//")[1], f"{BLOG}/{KEY}.txt", [f"{BLOG}/articles/blog-1/"]),
    ]


class OverwritingMemoryStorage(InMemoryStorage):
    """A flat storage overwriting files in place, as S3 does."""

    def get_available_name(self, name: str, max_length: int | None = None) -> str:
        if self.exists(name):
            self.delete(name)
        return name


def test_a_flat_storage_overwriting_in_place_submits_the_same_urls(
    site: Any, endpoint: Endpoint, settings: Any, tmp_path: Path
) -> None:
    settings.STORAGES = {
        **settings.STORAGES,
        "sitemaps": {"BACKEND": f"{__name__}.OverwritingMemoryStorage"},
    }
    settings.SITEMAPKIT = {**settings.SITEMAPKIT, "STORAGE": "sitemaps"}
    assert type(default_site.builder().publisher).__name__ == "FlatPublisher"
    build()
    changed = edit_insert_delete()
    assert build().published
    assert sorted(endpoint.urls()) == sorted(changed)


def test_after_a_base_url_change_nothing_is_submitted_then_changes_again(
    site: Any, endpoint: Endpoint, build_dir: Path, settings: Any, caplog: pytest.LogCaptureFixture
) -> None:
    build()
    edit_insert_delete()
    settings.SITEMAPKIT = {**settings.SITEMAPKIT, "BASE_URL": "https://new.example.com"}
    result = build()
    assert result.published and endpoint.posts == []
    assert (
        b"https://new.example.com/articles/a1/"
        in published(build_dir)["sitemap-testapp-article-1.xml"]
    )
    assert [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING] == [
        "IndexNow: the base URL is https://new.example.com, the last build's was "
        "https://www.example.com: every URL moved, so this build submits none."
    ]
    Article.objects.filter(slug="a5").update(updated_at=EDITED)
    build()
    assert endpoint.posts[0]["host"] == "new.example.com"
    assert endpoint.urls() == ["https://new.example.com/articles/a5/"]


def hostile_endpoint_build(settings: Any, url: str, caplog: pytest.LogCaptureFixture) -> list[str]:
    """An incremental build announcing to ``url``: the warnings it logged; it published."""
    settings.SITEMAPKIT = {
        **settings.SITEMAPKIT,
        "INDEXNOW": {"KEY": KEY, "ENDPOINT": url, "DEADLINE": 0.5},
    }
    build()
    edit_insert_delete()
    with caplog.at_level(logging.INFO, logger="django_sitemapkit"):
        assert build().published
    assert "submitted." not in caplog.text
    return [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]


def test_an_endpoint_that_drips_its_answer_holds_the_build_until_the_deadline(
    site: Any, build_dir: Path, settings: Any, caplog: pytest.LogCaptureFixture
) -> None:
    with dripping_endpoint() as url:
        logged = hostile_endpoint_build(settings, url, caplog)
    assert logged == [
        f"IndexNow: {url} gave no answer within the deadline of 0.5 s; giving up.",
        f"IndexNow: 3 changed URLs of www.example.com not submitted to {url}.",
    ]


def test_an_endpoint_redirecting_elsewhere_is_a_refusal(
    site: Any, build_dir: Path, settings: Any, caplog: pytest.LogCaptureFixture
) -> None:
    with running_endpoint() as endpoint, running_endpoint() as elsewhere:
        endpoint.statuses = [302]
        endpoint.location = elsewhere.url
        logged = hostile_endpoint_build(settings, endpoint.url, caplog)
    assert elsewhere.requests == [] and endpoint.requests == ["POST /indexnow"]
    assert logged == [
        f"IndexNow: {endpoint.url} refused the URLs: HTTP 302 (a redirect, not followed).",
        f"IndexNow: 3 changed URLs of www.example.com not submitted to {endpoint.url}.",
    ]
