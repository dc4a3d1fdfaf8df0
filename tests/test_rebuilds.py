"""Rebuilds enqueued after commits (REBUILD_AFTER_COMMIT), debounced, and system checks E023, W007.

The backends here are the tasks framework's own: DummyBackend keeps what is
enqueued, ImmediateBackend runs it at once. The database backend with its
worker process is in test_rebuilds_worker.py.
"""

from __future__ import annotations

import importlib
import logging
import os
import subprocess
import sys
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.core.checks import run_checks
from django.db import transaction
from django.utils import timezone
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

import django_sitemapkit as sitemapkit
from django_sitemapkit import apps as app
from tests.testapp.models import Article, Tag
from tests.utils import parse_index, parse_urlset, path_of

FRAMEWORK = app.tasks_framework()
assert FRAMEWORK is not None  # the test extra installs the backport on Django 5.2
# Resets the framework's backends when TASKS changes (as its app's ready() would).
signals = importlib.import_module(f"{FRAMEWORK}.signals")
DUMMY = {"default": {"BACKEND": f"{FRAMEWORK}.backends.dummy.DummyBackend"}}
IMMEDIATE = {"default": {"BACKEND": f"{FRAMEWORK}.backends.immediate.ImmediateBackend"}}
REPO = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def enqueued() -> Iterator[list[Any]]:
    """The task results enqueued during the test, whatever the backend."""
    results: list[Any] = []

    def receive(sender: Any, task_result: Any, **kwargs: Any) -> None:
        results.append(task_result)

    signals.task_enqueued.connect(receive)
    try:
        yield results
    finally:
        signals.task_enqueued.disconnect(receive)


@pytest.fixture
def tags(sitemaps: Any, settings: Any, tmp_path: Path) -> Any:
    """Tags registered; rebuilds after commits on, into a fresh folder, with DummyBackend."""
    sitemaps.register(Tag)
    settings.SITEMAPKIT = {
        **settings.SITEMAPKIT,
        "BUILD_DIR": str(tmp_path / "sitemaps"),
        "REBUILD_AFTER_COMMIT": True,
        "REBUILD_DEBOUNCE": 60,
    }
    settings.TASKS = DUMMY
    return sitemaps


def published_urls(build_dir: Path) -> list[str]:
    generation = build_dir / os.readlink(build_dir / "current")
    urls = []
    for loc, _ in parse_index((generation / "sitemap.xml").read_bytes()):
        page = (generation / path_of(loc).lstrip("/")).read_bytes()
        urls.extend(url.loc for url in parse_urlset(page))
    return urls


def test_commits_in_one_window_enqueue_one_rebuild_that_runs_when_it_closes(
    tags: Any, enqueued: list[Any]
) -> None:
    before = timezone.now()
    for number in range(20):
        Tag.objects.create(slug=f"t{number}")
    Tag.objects.get(slug="t3").delete()
    assert len(enqueued) == 1
    (result,) = enqueued
    assert result.task.module_path == "django_sitemapkit.tasks.rebuild_sitemaps"
    assert result.kwargs == {"sections": ["testapp-tag"], "site": None}
    assert before + timedelta(seconds=60) <= result.task.run_after
    assert result.task.run_after <= timezone.now() + timedelta(seconds=60)


def test_a_commit_after_the_window_enqueues_the_next_rebuild(
    tags: Any, settings: Any, enqueued: list[Any]
) -> None:
    Tag.objects.create(slug="first")
    # The window closes: its cache key expires (as it would after REBUILD_DEBOUNCE seconds).
    app.caches["default"].delete(app._window_key(None, "testapp-tag"))
    Tag.objects.create(slug="second")
    assert [r.kwargs["sections"] for r in enqueued] == [["testapp-tag"], ["testapp-tag"]]


def test_nothing_is_enqueued_when_off_rolled_back_or_for_unregistered_models(
    tags: Any, settings: Any, enqueued: list[Any]
) -> None:
    Article.objects.create(slug="a", updated_at=timezone.now())  # not registered
    with transaction.atomic():
        Tag.objects.create(slug="rolled-back")
        transaction.set_rollback(True)
    settings.SITEMAPKIT = {**settings.SITEMAPKIT, "REBUILD_AFTER_COMMIT": False}
    Tag.objects.create(slug="off")
    assert enqueued == []


def test_the_rebuild_waits_for_the_commit(tags: Any, enqueued: list[Any]) -> None:
    with transaction.atomic():
        Tag.objects.create(slug="pending")
        assert enqueued == []
    assert len(enqueued) == 1


def test_immediate_backend_publishes_at_once_and_does_not_recurse(
    tags: Any, settings: Any, enqueued: list[Any]
) -> None:
    settings.TASKS = IMMEDIATE

    class WritingArticles(sitemapkit.ModelSitemap):
        """A section whose rendering writes a row of another registered model."""

        def get_queryset(self) -> Any:
            Tag.objects.create(slug="written-by-the-build")
            return Article.objects.all()

    tags.register(Article, WritingArticles)
    Article.objects.create(slug="a", updated_at=timezone.now())
    # One rebuild (of the article section), run at once; the tag the build
    # wrote enqueued none from inside it.
    assert [r.kwargs["sections"] for r in enqueued] == [["testapp-article"]]
    assert enqueued[0].status == "SUCCESSFUL"
    assert "https://www.example.com/articles/a/" in published_urls(
        Path(settings.SITEMAPKIT["BUILD_DIR"])
    )
    Tag.objects.create(slug="after")
    assert [r.kwargs["sections"] for r in enqueued][-1] == ["testapp-tag"]
    assert "https://www.example.com/tags/after/" in published_urls(
        Path(settings.SITEMAPKIT["BUILD_DIR"])
    )


def test_each_site_listing_the_section_gets_its_rebuild(
    tags: Any, settings: Any, enqueued: list[Any]
) -> None:
    settings.SITEMAPKIT = {
        **settings.SITEMAPKIT,
        "SITES": {
            "shop": {"BASE_URL": "https://shop.example.com", "SECTIONS": ["pages"]},
            "blog": {"BASE_URL": "https://blog.example.com", "SECTIONS": ["testapp-tag"]},
            "all": {"BASE_URL": "https://all.example.com"},
        },
    }
    Tag.objects.create(slug="t")
    assert sorted((r.kwargs["site"], tuple(r.kwargs["sections"])) for r in enqueued) == [
        ("all", ("testapp-tag",)),
        ("blog", ("testapp-tag",)),
    ]


def test_an_enqueue_that_fails_is_logged_and_the_next_commit_tries_again(
    tags: Any, settings: Any, caplog: pytest.LogCaptureFixture
) -> None:
    settings.TASKS = {"default": {"BACKEND": "tests.no_such_module.Backend"}}
    with caplog.at_level(logging.ERROR, logger="django_sitemapkit.rebuilds"):
        Tag.objects.create(slug="one")
        Tag.objects.create(slug="two")
    assert Tag.objects.count() == 2  # the writes stand
    assert [r.getMessage() for r in caplog.records] == [
        "Could not enqueue the sitemap rebuild of testapp-tag."
    ] * 2


@hypothesis_settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(debounce=st.integers(min_value=1, max_value=86_400), commits=st.integers(1, 15))
def test_any_write_rate_enqueues_one_rebuild_per_window(
    tags: Any, settings: Any, enqueued: list[Any], debounce: int, commits: int
) -> None:
    app.caches["default"].clear()
    enqueued.clear()
    settings.SITEMAPKIT = {**settings.SITEMAPKIT, "REBUILD_DEBOUNCE": debounce}
    before = timezone.now()
    for _ in range(commits):
        Tag.objects.create(slug="t")
    assert len(enqueued) == 1
    run_after = enqueued[0].task.run_after
    assert before + timedelta(seconds=debounce) <= run_after
    assert run_after <= timezone.now() + timedelta(seconds=debounce)


def test_the_package_imports_no_tasks_framework_unless_rebuilds_are_on() -> None:
    code = (
        "import sys, django; django.setup(); import django_sitemapkit; "
        "print(sorted(m for m in sys.modules if m.startswith(('django_tasks', 'django.tasks', "
        "'django_sitemapkit.tasks'))))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        env={**os.environ, "DJANGO_SETTINGS_MODULE": "tests.settings"},
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert out.strip() == "[]"


# -- system check E023 -------------------------------------------------------


def e023_ids() -> list[str]:
    return [m.id for m in run_checks(tags=["sitemapkit"]) if m.id == "sitemapkit.E023"]


def test_e023_is_silent_when_off_or_when_a_backend_takes_the_task(settings: Any) -> None:
    assert app.check_rebuilds() == []
    settings.SITEMAPKIT = {**settings.SITEMAPKIT, "REBUILD_AFTER_COMMIT": True}
    settings.TASKS = DUMMY
    assert e023_ids() == []


def test_e023_without_a_tasks_framework(settings: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    settings.SITEMAPKIT = {**settings.SITEMAPKIT, "REBUILD_AFTER_COMMIT": True}
    monkeypatch.setattr(app, "tasks_framework", lambda: None)
    (message,) = app.check_rebuilds()
    assert message.id == "sitemapkit.E023"
    assert "no tasks framework" in message.msg
    assert "pip install django-tasks" in str(message.hint)
    assert e023_ids() == ["sitemapkit.E023"]


def test_e023_with_a_backend_that_cannot_load(settings: Any) -> None:
    settings.SITEMAPKIT = {**settings.SITEMAPKIT, "REBUILD_AFTER_COMMIT": True}
    settings.TASKS = {"default": {"BACKEND": "tests.no_such_module.Backend"}}
    (message,) = app.check_rebuilds()
    assert message.id == "sitemapkit.E023"
    assert "tests.no_such_module.Backend" in message.msg


# -- system check W007 -------------------------------------------------------


def deploy_ids() -> list[str]:
    return [m.id for m in run_checks(tags=["sitemapkit"], include_deployment_checks=True)]


def test_w007_when_rebuilds_run_inside_the_saving_request(settings: Any) -> None:
    settings.SITEMAPKIT = {**settings.SITEMAPKIT, "REBUILD_AFTER_COMMIT": True}
    settings.TASKS = IMMEDIATE
    (message,) = [m for m in run_checks(include_deployment_checks=True) if m.id.endswith("W007")]
    assert message.id == "sitemapkit.W007"
    assert "ImmediateBackend" in message.msg
    assert "worker" in str(message.hint)
    # Only under --deploy: a development server may well build in its requests.
    assert "sitemapkit.W007" not in [m.id for m in run_checks(tags=["sitemapkit"])]


def test_w007_is_silent_off_on_a_worker_backend_or_where_e023_speaks(settings: Any) -> None:
    settings.TASKS = IMMEDIATE
    assert "sitemapkit.W007" not in deploy_ids()  # REBUILD_AFTER_COMMIT is off
    settings.SITEMAPKIT = {**settings.SITEMAPKIT, "REBUILD_AFTER_COMMIT": True}
    settings.TASKS = DUMMY
    assert "sitemapkit.W007" not in deploy_ids()
    settings.TASKS = {"default": {"BACKEND": "tests.no_such_module.Backend"}}
    assert [i for i in deploy_ids() if i in ("sitemapkit.E023", "sitemapkit.W007")] == [
        "sitemapkit.E023"
    ]
