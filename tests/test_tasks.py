"""The ``rebuild_sitemaps`` task: a build through the tasks framework, and its JSON summary."""

from __future__ import annotations

import importlib
import json
import os
import pwd
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from django_sitemapkit import apps as app
from django_sitemapkit.tasks import rebuild_sitemaps
from tests.testapp.models import Article, Tag
from tests.utils import parse_index, parse_urlset, path_of

FRAMEWORK = app.tasks_framework()
# Resets the framework's backends when TASKS changes (as its app's ready() would).
importlib.import_module(f"{FRAMEWORK}.signals")
IMMEDIATE = {"default": {"BACKEND": f"{FRAMEWORK}.backends.immediate.ImmediateBackend"}}

pytestmark = pytest.mark.django_db


@pytest.fixture
def build_dir(sitemaps: Any, settings: Any, tmp_path: Path) -> Path:
    sitemaps.register(Tag)
    sitemaps.register(Article)
    settings.SITEMAPKIT = {**settings.SITEMAPKIT, "BUILD_DIR": str(tmp_path / "sitemaps")}
    settings.TASKS = IMMEDIATE
    Tag.objects.create(slug="t1")
    Article.objects.create(slug="a1", updated_at=timezone.now())
    return tmp_path / "sitemaps"


def published(build_dir: Path) -> dict[str, list[str]]:
    """Each published page's name and its URLs."""
    generation = build_dir / os.readlink(build_dir / "current")
    pages = {}
    for loc, _ in parse_index((generation / "sitemap.xml").read_bytes()):
        name = path_of(loc).lstrip("/")
        pages[name] = [url.loc for url in parse_urlset((generation / name).read_bytes())]
    return pages


def test_the_task_builds_and_returns_a_json_summary(build_dir: Path) -> None:
    result = rebuild_sitemaps.enqueue()
    assert result.status == "SUCCESSFUL"
    value = json.loads(json.dumps(result.return_value))
    assert value["published"] is True
    assert value["urls"] == 2
    assert "sitemap-testapp-tag-1.xml" in value["written"]
    assert value["summary"].startswith("2 sections built")
    assert published(build_dir) == {
        "sitemap-testapp-article-1.xml": ["https://www.example.com/articles/a1/"],
        "sitemap-testapp-tag-1.xml": ["https://www.example.com/tags/t1/"],
    }


def test_the_task_rebuilds_only_the_sections_it_names(build_dir: Path) -> None:
    rebuild_sitemaps.enqueue()
    Tag.objects.create(slug="t2")
    Article.objects.create(slug="a2", updated_at=timezone.now())
    value = rebuild_sitemaps.enqueue(sections=["testapp-tag"]).return_value
    assert value["sections"] == 1
    assert published(build_dir) == {
        "sitemap-testapp-article-1.xml": ["https://www.example.com/articles/a1/"],
        "sitemap-testapp-tag-1.xml": [
            "https://www.example.com/tags/t1/",
            "https://www.example.com/tags/t2/",
        ],
    }


def test_a_failing_build_fails_the_task_and_publishes_nothing(build_dir: Path) -> None:
    result = rebuild_sitemaps.enqueue(site="no-such-site")
    assert result.status == "FAILED"
    assert not build_dir.exists()


@contextmanager
def read_only(folder: Path) -> Iterator[None]:
    """``folder`` and all it holds read-only to this process, as to a worker run by another user.

    Mode bits stop any user but root; as root (whom they do not stop) the
    process acts as ``nobody`` meanwhile.
    """
    paths = [folder, *folder.rglob("*")]
    modes = {path: path.lstat().st_mode for path in paths if not path.is_symlink()}
    for path, mode in modes.items():
        path.chmod(mode & ~0o222)
    root = os.geteuid() == 0
    try:
        if root:
            os.seteuid(pwd.getpwnam("nobody").pw_uid)
        yield
    finally:
        if root:
            os.seteuid(0)
        for path, mode in modes.items():
            path.chmod(mode)


@pytest.fixture
def shared_build_dir(build_dir: Path, settings: Any) -> Iterator[Path]:
    """A build folder that another user may reach (the test's own tmp_path is its owner's)."""
    with tempfile.TemporaryDirectory() as parent:
        Path(parent).chmod(0o755)
        folder = Path(parent) / "sitemaps"
        settings.SITEMAPKIT = {**settings.SITEMAPKIT, "BUILD_DIR": str(folder)}
        yield folder


def test_a_read_only_build_folder_fails_the_task_with_publish_error(
    shared_build_dir: Path,
) -> None:
    assert rebuild_sitemaps.enqueue().status == "SUCCESSFUL"
    before = published(shared_build_dir)
    Tag.objects.create(slug="t2")
    with read_only(shared_build_dir):
        result = rebuild_sitemaps.enqueue()
        with pytest.raises(CommandError, match=r"Cannot write the sitemap files: .*Permission"):
            call_command("sitemapkit_build")
    assert result.status == "FAILED"
    [error] = result.errors
    assert error.exception_class_path == "django_sitemapkit._publishing.base.PublishError"
    assert "Cannot write the sitemap files: [Errno 13] Permission denied" in error.traceback
    assert published(shared_build_dir) == before
