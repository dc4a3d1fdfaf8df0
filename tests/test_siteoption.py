"""``--site`` as the commands take it (siteconfig.py)."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.management.base import CommandError, CommandParser

from django_sitemapkit._siteconfig import add_site_option, chosen_sites

SITES = {
    "blog": {"BASE_URL": "https://blog.example.com"},
    "shop": {"BASE_URL": "https://shop.example.com"},
}


def test_the_option_is_repeatable() -> None:
    parser = CommandParser()
    add_site_option(parser, "Only this site.")
    assert parser.parse_args(["--site", "blog", "--site", "shop"]).sites == ["blog", "shop"]
    assert parser.parse_args([]).sites is None


def test_without_sites_there_is_one_site_and_no_name(settings: Any) -> None:
    assert chosen_sites(None) == [None]
    with pytest.raises(CommandError, match="blog"):
        chosen_sites(["blog"])


def test_named_sites_and_an_unknown_one(settings: Any) -> None:
    settings.SITEMAPKIT = {**settings.SITEMAPKIT, "SITES": SITES}
    assert [site.name for site in chosen_sites(["shop"]) if site is not None] == ["shop"]
    assert [site.name for site in chosen_sites(None) if site is not None] == ["blog", "shop"]
    with pytest.raises(CommandError, match="nope"):
        chosen_sites(["nope"])
