"""The admin's sitemap status page: read-only, staff with the view permission only."""

from __future__ import annotations

import datetime
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import Permission, User
from django.test import Client
from lxml import html

import django_sitemapkit as sitemapkit
from tests.building.builds import T0, build
from tests.testapp.models import Article, Tag

pytestmark = pytest.mark.django_db

PAGE = "/admin/django_sitemapkit/sitemapstatus/"
LOGIN = "/admin/login/"


@pytest.fixture
def built(sitemaps: Any, settings: Any, tmp_path: Path) -> Path:
    """Five articles and a tag, built once; then three more articles, which no build has."""
    settings.SITEMAPKIT = {**settings.SITEMAPKIT, "BUILD_DIR": str(tmp_path)}
    sitemapkit.register(Article)
    sitemapkit.register(Tag)
    Article.objects.bulk_create(
        Article(slug=f"a{i}", updated_at=T0 + datetime.timedelta(hours=i)) for i in range(5)
    )
    Tag.objects.create(slug="t")
    build()
    Article.objects.bulk_create(Article(slug=f"new{i}", updated_at=T0) for i in range(3))
    return tmp_path


def staff(*, is_staff: bool = True, can_view: bool = True) -> User:
    user = User.objects.create_user("operator", password="pw", is_staff=is_staff)
    if can_view:
        user.user_permissions.add(Permission.objects.get(codename="view_sitemapstatus"))
    return user


def logged_in(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


def rows(content: bytes) -> dict[str, list[str]]:
    """The sections' table rows as a person reads them: section name -> its cells."""
    tree = html.fromstring(content)
    found = {}
    for row in tree.cssselect("table.sitemapkit-sections tbody tr"):
        cells = [" ".join(cell.text_content().split()) for cell in row]
        found[cells[0]] = cells[1:]
    return found


def test_staff_with_the_view_permission_sees_each_section(built: Path) -> None:
    response = logged_in(staff()).get(PAGE)
    assert response.status_code == 200
    assert "admin/base_site.html" in [t.name for t in response.templates]
    newest = (T0 + datetime.timedelta(hours=4)).isoformat()
    found = rows(response.content)
    assert found == {
        "testapp-article": ["5", "1", newest, "0", found["testapp-article"][-1]],
        # To the second, as the index writes it.
        "testapp-tag": [
            "1",
            "1",
            f"{Tag.objects.get().updated_at:%Y-%m-%dT%H:%M:%S+00:00}",
            "0",
            "current",
        ],
    }
    # Three rows more than the build published: stale, and why.
    assert found["testapp-article"][-1].startswith("stale (")
    tree = html.fromstring(response.content)
    (heading,) = [h.text_content() for h in tree.cssselect(".sitemapkit-site h2")]
    assert heading == "stale"
    (line,) = [p.text_content() for p in tree.cssselect("p.sitemapkit-build")]
    assert line.startswith("Build ") and " s." in line


def test_a_current_build_says_current(built: Path) -> None:
    Article.objects.filter(slug__startswith="new").delete()
    found = rows(logged_in(staff()).get(PAGE).content)
    assert [cells[-1] for cells in found.values()] == ["current", "current"]


def test_the_admin_index_links_to_it(built: Path) -> None:
    index = logged_in(staff()).get("/admin/")
    assert index.status_code == 200
    links = html.fromstring(index.content).cssselect(f'a[href="{PAGE}"]')
    assert [link.text_content() for link in links] == ["Sitemap status", "View"]
    # Nothing to add: no "Add" link beside it.
    assert f'href="{PAGE}add/"' not in index.content.decode()


def test_without_a_build(sitemaps: Any, settings: Any, tmp_path: Path) -> None:
    settings.SITEMAPKIT = {**settings.SITEMAPKIT, "BUILD_DIR": str(tmp_path)}
    sitemapkit.register(Tag)
    response = logged_in(staff()).get(PAGE)
    assert response.status_code == 200
    assert rows(response.content) == {"testapp-tag": ["0", "0", "none", "0", "stale (never built)"]}
    assert b"No published build" in response.content


def test_one_table_per_site(sitemaps: Any, settings: Any, tmp_path: Path) -> None:
    settings.SITEMAPKIT = {
        "SITES": {
            "shop": {"BASE_URL": "https://shop.example.com", "SECTIONS": ["tags"]},
            "blog": {"BASE_URL": "https://blog.example.com", "SECTIONS": ["tags"]},
        },
        "BUILD_DIR": str(tmp_path),
    }
    sitemapkit.register(Tag, section="tags")
    Tag.objects.create(slug="t", updated_at=T0)
    build(site="shop")
    tree = html.fromstring(logged_in(staff()).get(PAGE).content)
    headings = [h.text_content() for h in tree.cssselect(".sitemapkit-site h2")]
    assert headings == ["Site shop: current", "Site blog: no published build"]


def test_anonymous_is_sent_to_the_login(built: Path, client: Client) -> None:
    response = client.get(PAGE)
    assert response.status_code == 302
    assert response["Location"] == f"{LOGIN}?next={PAGE}"


def test_a_user_who_is_not_staff_is_sent_to_the_login(built: Path) -> None:
    response = logged_in(staff(is_staff=False)).get(PAGE)
    assert response.status_code == 302
    assert response["Location"] == f"{LOGIN}?next={PAGE}"


def test_staff_without_the_permission_is_refused(built: Path) -> None:
    client = logged_in(staff(can_view=False))
    assert client.get(PAGE).status_code == 403
    assert f'href="{PAGE}"' not in client.get("/admin/").content.decode()


@pytest.mark.parametrize("superuser", [False, True])
def test_nothing_can_be_added_changed_or_deleted(built: Path, superuser: bool) -> None:
    user = staff()
    user.is_superuser = superuser
    user.save()
    client = logged_in(user)
    assert client.post(PAGE, {"action": "delete_selected"}).status_code == 405
    for path in ["add/", "1/change/", "1/delete/", "1/history/"]:
        assert client.get(PAGE + path).status_code == 404, path
        assert client.post(PAGE + path).status_code == 404, path


def test_lastmods_and_the_build_time_are_shown_to_the_second(
    sitemaps: Any, settings: Any, tmp_path: Path
) -> None:
    settings.SITEMAPKIT = {**settings.SITEMAPKIT, "BUILD_DIR": str(tmp_path)}
    sitemapkit.register(Article)
    Article.objects.create(slug="a", updated_at=T0 + datetime.timedelta(seconds=15.123456))
    build()
    response = logged_in(staff()).get(PAGE)
    newest = (T0 + datetime.timedelta(seconds=15)).isoformat()
    assert rows(response.content)["testapp-article"][2] == newest
    (built,) = html.fromstring(response.content).cssselect("p.sitemapkit-build")
    assert "." not in built.text_content().split(" of ")[1].split(",")[0]


def test_the_page_explains_a_url_as_the_command_does(built: Path) -> None:
    client = logged_in(staff())
    tree = html.fromstring(client.get(PAGE, {"url": "/articles/a2/"}).content)
    (answer,) = tree.cssselect(".sitemapkit-answer")
    assert answer.cssselect("h2")[0].text_content() == (
        "https://www.example.com/articles/a2/ is listed: section 'testapp-article' in "
        "sitemap-testapp-article-1.xml."
    )
    details = [li.text_content().strip() for li in answer.cssselect("li")]
    assert "lastmod 2026-01-01T02:00:00+00:00, changefreq none, priority none" in details
    # A row saved since the build: present live, not yet in the published build.
    tree = html.fromstring(client.get(PAGE, {"url": "/articles/new0/"}).content)
    heading = tree.cssselect(".sitemapkit-answer h2")[0].text_content()
    assert heading.startswith("https://www.example.com/articles/new0/ is not listed: section ")
    assert "present live, not yet in the published build of " in heading
    # Hostile input is an answer, never a 500.
    response = client.get(PAGE, {"url": "https://www.example.com/\x00<script>"})
    assert response.status_code == 200
    assert b"<script>" not in response.content
