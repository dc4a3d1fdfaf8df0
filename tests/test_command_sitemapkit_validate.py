"""``manage.py sitemapkit_validate``: a live site, a storage, JSON, exit statuses."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.test import Client
from pytest_django.live_server_helper import LiveServer

from django_sitemapkit.management.commands.sitemapkit_validate import Command
from tests.validation.builds import (
    BASE,
    build,
    finding_lines,
    make_good_build,
    register_site,
    validate,
    xsd_args,
)


@pytest.fixture
def server() -> Iterator[str]:
    live = LiveServer("localhost")
    try:
        yield live.url
    finally:
        live.stop()


@pytest.fixture
def good_build(sitemaps: Any, settings: Any, tmp_path: Path) -> Path:
    return make_good_build(settings, tmp_path)


@pytest.fixture(params=["rendered", "built"])
def live_site(
    request: Any, sitemaps: Any, server: str, settings: Any, tmp_path: Path, transactional_db: Any
) -> str:
    """The test project over real HTTP: its views render, or serve a build."""
    settings.SITEMAPKIT = {**settings.SITEMAPKIT, "BASE_URL": server, "BUILD_DIR": str(tmp_path)}
    register_site()
    if request.param == "built":
        build()
    else:
        # Paginate before the server's threads share the in-memory SQLite connection.
        Client().get("/sitemap.xml")
    return server


@pytest.mark.parametrize("path", ["/sitemap.xml", "", "/", "/robots.txt"])
def test_a_live_site_is_valid(live_site: str, path: str) -> None:
    status, output = validate(live_site + path, *xsd_args())
    assert status == 0, output
    assert output == f"{live_site}/sitemap.xml: 6 file(s), 28 URL(s) checked: valid.\n"


def test_a_live_site_without_that_file(live_site: str) -> None:
    status, output = validate(live_site + "/nothere.xml")
    assert status == 1
    assert finding_lines(output) == [
        f"{live_site}/nothere.xml: [missing] no index at {live_site}/nothere.xml, "
        "which does not exist"
    ]


@pytest.mark.django_db
def test_a_storage_alias(sitemaps: Any, settings: Any) -> None:
    settings.STORAGES = {
        **settings.STORAGES,
        "sitemaps": {"BACKEND": "django.core.files.storage.InMemoryStorage"},
    }
    settings.SITEMAPKIT = {**settings.SITEMAPKIT, "STORAGE": "sitemaps"}
    register_site()
    build()
    for args in [(), ("--storage", "sitemaps")]:
        status, output = validate(*args)
        assert status == 0, output
        assert output == "storage 'sitemaps': 6 file(s), 28 URL(s) checked: valid.\n"


@pytest.mark.django_db
def test_json_report(good_build: Path) -> None:
    page = good_build / "current" / "sitemap-testapp-tag-1.xml"
    page.unlink()
    status, output = validate("--format", "json", str(good_build))
    assert status == 1
    assert json.loads(output) == {
        "ok": False,
        "sets": [
            {
                "target": str(good_build),
                "ok": False,
                "files": 5,
                "urls": 27,
                "findings": [
                    {
                        "file": "sitemap.xml",
                        "rule": "missing",
                        "message": f"the index names {BASE}/sitemap-testapp-tag-1.xml, "
                        "which does not exist",
                        "where": "entry 4",
                    }
                ],
            }
        ],
    }


@pytest.mark.django_db
def test_a_plain_folder_and_an_index_file(good_build: Path) -> None:
    generation = (good_build / "current").resolve()
    for target in [generation, generation / "sitemap.xml", good_build]:
        status, output = validate(str(target))
        assert status == 0, output


@pytest.mark.django_db
def test_nothing_to_validate(sitemaps: Any, settings: Any, tmp_path: Path) -> None:
    settings.SITEMAPKIT = {**settings.SITEMAPKIT, "BUILD_DIR": str(tmp_path / "none")}
    status, output = validate()
    assert (status, output) == (1, "")
    assert validate(str(tmp_path / "nowhere")) == (1, "")
    assert validate("--xsd-dir", str(tmp_path)) == (1, "")


@pytest.mark.django_db
def test_exit_status_from_the_command_line(good_build: Path, capsys: Any) -> None:
    Command().run_from_argv(["manage.py", "sitemapkit_validate"])
    assert capsys.readouterr().out.endswith("checked: valid.\n")
    (good_build / "current" / "sitemap-pages-1.xml").unlink()
    with pytest.raises(SystemExit) as exc:
        Command().run_from_argv(["manage.py", "sitemapkit_validate"])
    assert exc.value.code == 1
    captured = capsys.readouterr()
    assert "[missing]" in captured.out
    assert "1 problem(s) found." in captured.err


@pytest.mark.parametrize("how", ["folder", "built", "rendered"])
def test_a_set_whose_index_links_the_gz_files_is_valid(
    how: str, sitemaps: Any, server: str, settings: Any, tmp_path: Path, transactional_db: Any
) -> None:
    """Issue #25, acceptance 2: the package's own build with INDEX_LINKS_GZIP = True."""
    settings.SITEMAPKIT = {
        **settings.SITEMAPKIT,
        "BASE_URL": server,
        "BUILD_DIR": str(tmp_path),
        "GZIP": True,
        "INDEX_LINKS_GZIP": True,
    }
    register_site()
    if how == "rendered":
        Client().get("/sitemap.xml")  # paginate before the server's threads share SQLite
    else:
        build()
    index = Client().get("/sitemap.xml").content.decode()
    assert f"<loc>{server}/sitemap-pages-1.xml.gz</loc>" in index
    target = str(tmp_path) if how == "folder" else server + "/sitemap.xml"
    status, output = validate(target, *xsd_args())
    assert status == 0, output
    assert output.endswith(": 6 file(s), 28 URL(s) checked: valid.\n")
