"""``SITEMAPKIT["SITES"]``: reading it, refusing what is malformed, matching hosts (siteconfig.py)."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from django_sitemapkit._checks import check_index_directory, check_settings
from django_sitemapkit._siteconfig import (
    SiteConfig,
    SitesError,
    configured_sites,
    current_site,
    one_site,
    rendering_site,
    selected_sites,
    site_for_host,
)

SITES = {
    "shop": {"BASE_URL": "https://Shop.Example.com/", "SECTIONS": ["products"], "SITE_ID": 2},
    "blog": {"BASE_URL": "http://blog.example.com:8080/news"},
}


@pytest.fixture
def sites(settings: Any) -> list[SiteConfig]:
    settings.SITEMAPKIT = {"SITES": SITES}
    return configured_sites()


def test_sites_are_read_in_order_and_normalised(sites: list[SiteConfig]) -> None:
    shop, blog = sites
    assert shop == SiteConfig("shop", "https://shop.example.com", ("products",), None, 2)
    assert blog.base_url == "http://blog.example.com:8080/news"
    assert blog.host == "blog.example.com:8080"
    assert blog.sections is None
    assert blog.lists("anything")
    assert shop.lists("products")
    assert not shop.lists("posts")


def test_without_sites_there_are_none(settings: Any) -> None:
    assert configured_sites() == []
    assert selected_sites(None) == [None]
    assert one_site(None) is None
    with pytest.raises(LookupError, match=r"--site shop needs SITEMAPKIT\['SITES'\]"):
        selected_sites(["shop"])


@pytest.mark.parametrize(
    ("host", "expected"),
    [
        ("shop.example.com", "shop"),
        ("SHOP.example.COM", "shop"),
        ("shop.example.com.", "shop"),
        ("shop.example.com:443", "shop"),  # no port in the base URL: any port
        ("shop.example.com:8000", "shop"),
        ("blog.example.com:8080", "blog"),
        ("blog.example.com", None),  # the base URL names a port
        ("blog.example.com:80", None),
        ("example.com", None),
        ("www.shop.example.com", None),
        ("[::1]:8080", None),
    ],
)
def test_a_request_host_finds_its_site(
    sites: list[SiteConfig], host: str, expected: str | None
) -> None:
    found = site_for_host(host)
    assert (found and found.name) == expected


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ([], None),  # empty: no sites
        ("shop", r"must be a dict of site name"),
        ({"Shop": {"BASE_URL": "https://a.example"}}, r"a site name is 1-32 lower-case"),
        ({"a/b": {"BASE_URL": "https://a.example"}}, r"a site name"),
        ({"shop": "https://a.example"}, r"must be a dict with BASE_URL"),
        ({"shop": {}}, r"\['shop'\]\['BASE_URL'\] is not set"),
        ({"shop": {"BASE_URL": "ftp://a.example"}}, r"scheme must be http or https"),
        ({"shop": {"BASE_URL": "https://a.example", "HOST": 1}}, r"unknown keys 'HOST'"),
        ({"shop": {"BASE_URL": "https://a.example", "SECTIONS": "posts"}}, r"list of section"),
        (
            {"a": {"BASE_URL": "https://x.example"}, "b": {"BASE_URL": "http://X.example/b"}},
            r"the sites 'a' and 'b' the same host 'x.example'",
        ),
    ],
)
def test_a_malformed_setting_is_refused_with_where(
    settings: Any, value: Any, message: str | None
) -> None:
    settings.SITEMAPKIT = {"SITES": value}
    if message is None:
        assert configured_sites() == []
        return
    with pytest.raises(SitesError, match=message) as raised:
        configured_sites()
    [error] = [e for e in check_settings() if e.id == "sitemapkit.E020"]
    assert error.msg == str(raised.value)


def test_a_site_naming_an_unregistered_section_is_e021(sitemaps: Any, settings: Any) -> None:
    settings.SITEMAPKIT = {"SITES": SITES}
    errors = check_settings()
    assert [e.id for e in errors] == ["sitemapkit.E021"]
    assert "['shop']['SECTIONS'] names 'products'" in errors[0].msg


def test_base_url_is_not_required_with_sites(sitemaps: Any, settings: Any) -> None:
    settings.SITEMAPKIT = {"SITES": {"shop": {"BASE_URL": "https://shop.example.com"}}}
    assert check_settings() == []
    assert check_index_directory() == []


def test_one_site_is_the_named_or_the_only_one(settings: Any, sites: list[SiteConfig]) -> None:
    assert one_site("blog") == sites[1]
    assert one_site(sites[0]) is sites[0]
    with pytest.raises(LookupError, match=r"several sites; name the one to build: shop, blog"):
        one_site(None)
    with pytest.raises(LookupError, match=r"No site named 'x'.*configured: shop, blog"):
        one_site("x")
    settings.SITEMAPKIT = {"SITES": {"shop": SITES["shop"]}}
    assert one_site(None) == configured_sites()[0]


def test_the_rendering_site_is_scoped(sites: list[SiteConfig]) -> None:
    assert current_site() is None
    with rendering_site(sites[0]):
        assert current_site() is sites[0]
        with rendering_site(None):
            assert current_site() is None
        assert current_site() is sites[0]
    assert current_site() is None


def test_commands_name_the_unknown_site(settings: Any) -> None:
    settings.SITEMAPKIT = {"SITES": SITES}
    for command in ("sitemapkit_build", "sitemapkit_robots"):
        with pytest.raises(CommandError, match=r"No site named 'nope' .*; configured: shop, blog"):
            call_command(command, "--site", "nope")
