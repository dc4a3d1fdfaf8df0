"""The IndexNow key file: the key at ``/<key>.txt`` while IndexNow is on, 404 otherwise."""

from __future__ import annotations

from typing import Any

import pytest
from django.http import HttpRequest, HttpResponse
from django.test import Client
from django.urls import include, path

KEY = "0123456789abcdef-key"


@pytest.fixture
def indexnow(settings: Any) -> None:
    settings.SITEMAPKIT = {**settings.SITEMAPKIT, "INDEXNOW": {"KEY": KEY}}


@pytest.mark.usefixtures("indexnow")
def test_the_key_file_holds_the_key_as_text(client: Client) -> None:
    response = client.get(f"/{KEY}.txt")
    assert response.status_code == 200
    assert response.content == KEY.encode()
    assert response["Content-Type"] == "text/plain; charset=utf-8"
    assert response["X-Robots-Tag"] == "noindex"
    assert client.head(f"/{KEY}.txt").status_code == 200
    assert client.post(f"/{KEY}.txt").status_code == 405


@pytest.mark.usefixtures("indexnow")
@pytest.mark.parametrize(
    "path",
    [f"/{KEY.upper()}.txt", f"/{KEY}x.txt", f"/{KEY[:-1]}.txt", "/abcdefgh.txt", f"/{KEY}.TXT"],
)
def test_any_other_name_is_a_404(client: Client, path: str) -> None:
    assert client.get(path).status_code == 404


def test_nothing_is_served_while_indexnow_is_off(client: Client, settings: Any) -> None:
    assert client.get(f"/{KEY}.txt").status_code == 404
    settings.SITEMAPKIT = {**settings.SITEMAPKIT, "INDEXNOW": {"KEY": "bad/key"}}
    assert client.get("/bad/key.txt").status_code == 404


def llms_full(request: HttpRequest) -> HttpResponse:
    return HttpResponse("the project's own")


# The sitemaps first, then a project's file whose name has a key's shape.
urlpatterns = [
    path("", include("django_sitemapkit.urls")),
    path("llms-full.txt", llms_full),
]


@pytest.mark.usefixtures("indexnow")
def test_other_txt_files_fall_through_to_the_projects_views(client: Client, settings: Any) -> None:
    settings.ROOT_URLCONF = __name__
    assert client.get("/llms-full.txt").content == b"the project's own"
    assert client.get(f"/{KEY}.txt").content == KEY.encode()
    settings.SITEMAPKIT = {**settings.SITEMAPKIT, "INDEXNOW": {"KEY": "llms-full"}}
    assert client.get("/llms-full.txt").content == b"llms-full"
