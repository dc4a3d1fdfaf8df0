"""Each build's figures, the manifest's history, the shrink guard and the lastmod churn warning,
through the commands, the public API and the views."""

from __future__ import annotations

import datetime
import io
import json
import logging
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.checks import run_checks
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client
from django.utils import timezone
from lxml import html

import django_sitemapkit as sitemapkit
from django_sitemapkit._publishing.selection import get_publisher, published_file
from tests.test_tasks import IMMEDIATE
from tests.testapp.models import Article, Tag

pytestmark = pytest.mark.django_db

T0 = datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC)
ARTICLES = "testapp-article"


@pytest.fixture
def site(sitemaps: Any, settings: Any, tmp_path: Path) -> Any:
    settings.SITEMAPKIT = {**settings.SITEMAPKIT, "BUILD_DIR": str(tmp_path)}
    sitemaps.register(Tag)

    @sitemaps.register(Article)
    class ArticleSitemap(sitemapkit.ModelSitemap):
        limit = 10

    Tag.objects.create(slug="t1")
    Article.objects.bulk_create(Article(slug=f"a{i}", updated_at=T0) for i in range(20))
    return sitemaps


def run(command: str, *args: str, verbosity: int = 1) -> str:
    out = io.StringIO()
    call_command(command, *args, verbosity=verbosity, stdout=out, stderr=io.StringIO())
    return out.getvalue()


def delete_60_percent() -> None:
    Article.objects.filter(pk__in=list(Article.objects.values_list("pk", flat=True)[:12])).delete()


def test_a_build_that_would_remove_most_of_a_section_publishes_nothing_unless_forced(
    site: Any,
) -> None:
    run("sitemapkit_build")
    publisher = get_publisher()
    first = publisher.manifest()
    assert first is not None
    delete_60_percent()

    with pytest.raises(CommandError) as refused:
        run("sitemapkit_build")
    assert str(refused.value) == (
        "Sitemap build failed, nothing was published: section 'testapp-article' would go from "
        "20 to 8 URLs (-60 %), more than SHRINK_GUARD 50 %. Run with --force "
        "(build(force=True)) to publish it."
    )
    # The previous set is still the published one, and the views serve it.
    assert publisher.manifest() == first
    page = published_file("sitemap-testapp-article-2.xml")
    assert page is not None and b"/articles/a19/" in page[0]
    client = Client()
    assert client.get("/sitemap.xml").status_code == 200
    tags = client.get("/sitemap-testapp-tag-1.xml")
    assert tags.status_code == 200
    assert tags.content == published_file("sitemap-testapp-tag-1.xml")[0]  # type: ignore[index]

    # A dry run says what the guard would do and exits 0.
    [dry] = json.loads(run("sitemapkit_build", "--dry-run", "--json"))
    assert dry["published"] is False and "'testapp-article' would go" in dry["refused"]

    [forced] = json.loads(run("sitemapkit_build", "--force", "--json"))
    assert forced["published"] and forced["forced"]
    assert forced["changes"][ARTICLES] == {
        "listed": 8,
        "added": 0,
        "removed": 12,
        "lastmod_moved": 0,
        "skipped": 0,
        "excluded": 0,
    }
    assert forced["changes"]["testapp-tag"]["listed"] == 1
    manifest = publisher.manifest()
    assert manifest is not None
    assert [build.generation for build in manifest.history] == [
        first.generation,
        manifest.generation,
    ]
    assert manifest.history[0].sections[ARTICLES].added == 20
    assert [build.forced for build in manifest.history] == [False, True]

    status = run("sitemapkit_status")
    lines = status.splitlines()
    at = lines.index("  Last 2 of 2 builds kept, newest first:")
    assert f"forced past the shrink guard; {ARTICLES} 8 (+0 -12, 0 redated)" in lines[at + 1]
    assert f"{ARTICLES} 20 (+20 -0, 0 redated)" in lines[at + 2]
    [as_json] = json.loads(run("sitemapkit_status", "--format", "json"))
    assert [b["generation"] for b in as_json["history"]] == [first.generation, manifest.generation]

    # The admin's chart of the two builds: the section's line from 20 URLs down to 8.
    admin = Client()
    admin.force_login(User.objects.create_superuser("admin", password="pw"))
    chart = html.fromstring(admin.get("/admin/django_sitemapkit/sitemapstatus/history/").content)
    (svg,) = chart.cssselect("svg.sitemapkit-chart")
    assert f"{ARTICLES}: 20, 8." in svg.cssselect("desc")[0].text_content()
    assert [len(line.get("points").split()) for line in svg.cssselect("polyline")] == [2, 2]


def test_the_public_api_forces_and_the_guard_can_be_turned_off(site: Any, settings: Any) -> None:
    sitemapkit.build()
    Article.objects.all().delete()
    with pytest.raises(sitemapkit.BuildError, match="'testapp-article' would go from 20 to 0"):
        sitemapkit.build()
    assert sitemapkit.build(force=True).published
    Tag.objects.all().delete()
    settings.SITEMAPKIT = {**settings.SITEMAPKIT, "SHRINK_GUARD": None}
    result = sitemapkit.build()
    assert result.published and result.changes["testapp-tag"].removed == 1


def test_a_section_dropped_from_the_registry_is_refused(site: Any, settings: Any) -> None:
    sitemapkit.build()
    site.unregister(Tag)
    # Even a guard of 1 refuses a section that had URLs and has none.
    settings.SITEMAPKIT = {**settings.SITEMAPKIT, "SHRINK_GUARD": 1}
    with pytest.raises(sitemapkit.BuildError, match="'testapp-tag' would go from 1 to 0 URLs"):
        sitemapkit.build()


def test_history_keeps_the_last_builds(site: Any, settings: Any) -> None:
    settings.SITEMAPKIT = {**settings.SITEMAPKIT, "HISTORY": 3}
    generations = []
    for day in range(5):
        Article.objects.filter(slug="a0").update(updated_at=T0 + datetime.timedelta(days=day + 1))
        sitemapkit.build()
        manifest = get_publisher().manifest()
        assert manifest is not None
        generations.append(manifest.generation)
    assert [build.generation for build in manifest.history] == generations[-3:]
    assert manifest.history[-1].sections[ARTICLES].lastmod_moved == 1
    assert len(run("sitemapkit_status").splitlines()) == len(
        run("sitemapkit_status", verbosity=2).splitlines()
    )


def test_a_backfill_moving_every_lastmod_is_warned_of(
    site: Any, caplog: pytest.LogCaptureFixture
) -> None:
    run("sitemapkit_build")
    Article.objects.update(updated_at=timezone.now())
    with caplog.at_level(logging.WARNING, logger="django_sitemapkit"):
        [built] = json.loads(run("sitemapkit_build", "--json"))
    assert built["churn"] == [ARTICLES]
    assert built["changes"][ARTICLES]["lastmod_moved"] == 20
    assert "Warning: most lastmods of section 'testapp-article' moved" in built["summary"]
    assert "20 of 20 URLs of section 'testapp-article' got a new lastmod" in caplog.text
    assert "Warning: most lastmods of section 'testapp-article'" in run("sitemapkit_status")
    admin = Client()
    admin.force_login(User.objects.create_superuser("admin", password="pw"))
    page = html.fromstring(admin.get("/admin/django_sitemapkit/sitemapstatus/").content)
    [note] = page.cssselect("p.sitemapkit-churn")
    assert "Warning: most lastmods of section 'testapp-article'" in note.text_content()
    # The next build, with no backfill, warns no more.
    Article.objects.create(slug="new", updated_at=T0)
    assert "Warning" not in run("sitemapkit_build")
    assert "Warning" not in run("sitemapkit_status")


def test_the_human_summary_carries_the_churn_warning(site: Any) -> None:
    run("sitemapkit_build")
    Article.objects.update(updated_at=timezone.now())
    assert "Warning: most lastmods of section 'testapp-article' moved" in run("sitemapkit_build")


def test_the_background_rebuild_refused_by_the_guard_fails_and_is_logged(
    site: Any, settings: Any, caplog: pytest.LogCaptureFixture
) -> None:
    from django_sitemapkit.tasks import rebuild_sitemaps

    settings.TASKS = IMMEDIATE
    assert rebuild_sitemaps.enqueue().status == "SUCCESSFUL"
    delete_60_percent()
    with caplog.at_level(logging.ERROR, logger="django_sitemapkit"):
        result = rebuild_sitemaps.enqueue()
    assert result.status == "FAILED"
    [record] = [r for r in caplog.records if r.name == "django_sitemapkit"]
    assert "section 'testapp-article' would go from 20 to 8 URLs" in record.getMessage()


@pytest.mark.parametrize(
    ("key", "value"),
    [("HISTORY", -1), ("HISTORY", "50"), ("SHRINK_GUARD", 1.5), ("LASTMOD_CHURN_WARNING", "x")],
)
def test_the_settings_check_refuses_bad_values(settings: Any, key: str, value: object) -> None:
    settings.SITEMAPKIT = {**settings.SITEMAPKIT, key: value}
    assert [m.id for m in run_checks() if m.id == "sitemapkit.E029"] == ["sitemapkit.E029"]
