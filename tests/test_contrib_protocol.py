"""A section saying ``protocol = "http"`` on an https site: one scheme, everywhere.

``BASE_URL``'s scheme wins: the views and a build list https URLs,
``sitemapkit_validate`` finds the set valid, and check W005 says the
protocol is ignored.
"""

from __future__ import annotations

import datetime
from pathlib import Path
from typing import Any

import pytest
from django.test import Client

import django_sitemapkit as sitemapkit
from django_sitemapkit._checks import check_sites
from tests import contrib_sitemaps
from tests.contribviews import entries, sitemapkit_files
from tests.testapp.models import Entry
from tests.urls_own_urls import WeblogSitemap
from tests.validation.builds import build, validate, xsd_args

pytestmark = pytest.mark.django_db


class HttpStatic(contrib_sitemaps.StaticViewSitemap):
    protocol = "http"


class HttpWeblog(WeblogSitemap):
    protocol = "http"


def test_base_urls_scheme_wins_in_views_builds_and_validate(
    sitemaps: Any, client: Client, settings: Any, tmp_path: Path
) -> None:
    day = datetime.datetime(2024, 3, 1, tzinfo=datetime.UTC)
    Entry.objects.bulk_create(Entry(slug=f"post-{n}", pub_date=day) for n in range(6))
    sitemapkit.register_sitemaps({"static": HttpStatic, "weblog": HttpWeblog})
    settings.ROOT_URLCONF = "tests.urls_own_urls"
    settings.MIDDLEWARE = ["django.middleware.locale.LocaleMiddleware"]
    settings.LANGUAGE_CODE = "en"
    settings.SITEMAPKIT = {
        "BASE_URL": "https://www.example.com",
        "CACHE_TIMEOUT": 0,
        "BUILD_DIR": str(tmp_path),
    }
    served = [sitemapkit_files(client, section) for section in ("static", "weblog")]
    locs = [entry.loc for files in served for file in files for entry in file]
    assert len(locs) == 9
    assert all(loc.startswith("https://www.example.com/") for loc in locs)
    build()
    built = sorted(tmp_path.glob("current/sitemap-*-*.xml"))
    assert [entries(path.read_bytes()) for path in built] == [
        file for files in served for file in files
    ]
    status, output = validate(*xsd_args())
    assert status == 0, output
    warnings = [message for message in check_sites() if message.id == "sitemapkit.W005"]
    assert len(warnings) == 2
    assert "protocol 'http' is ignored" in warnings[0].msg
