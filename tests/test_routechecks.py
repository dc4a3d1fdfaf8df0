"""check --deploy's I001/I002: how each model section makes its URLs, and what stopped the fast path."""

from __future__ import annotations

import inspect
from typing import Any

import pytest
from django.core import checks
from django.core.management import call_command
from django.db.models import QuerySet

import django_sitemapkit as sitemapkit
from django_sitemapkit._checks import check_url_routes
from tests.perrow import PerRow
from tests.testapp.models import Article, Document, Event


def messages(**kwargs: Any) -> dict[str, checks.CheckMessage]:
    """The I001/I002 messages of a deploy check run, by section name."""
    found = checks.run_checks(include_deployment_checks=True, **kwargs)
    return {
        message.msg.split("'")[1]: message
        for message in found
        if message.id in ("sitemapkit.I001", "sitemapkit.I002")
    }


def test_a_derived_section_is_named_with_its_pattern_and_line(sitemaps: Any) -> None:
    sitemapkit.register(Article)
    [message] = messages().values()
    assert message.id == "sitemapkit.I002"
    assert message.level == checks.INFO
    _, first = inspect.getsourcelines(Article.get_absolute_url)
    assert (
        f"URL pattern 'article-detail' read from get_absolute_url() "
        f"(testapp/models.py:{first})" in message.msg
    )


def test_a_refused_body_names_the_line_that_stopped_it(sitemaps: Any) -> None:
    sitemapkit.register(Document)
    [message] = messages().values()
    assert message.id == "sitemapkit.I001"
    lines, first = inspect.getsourcelines(Document.get_absolute_url)
    assert f"models.py:{first + 1}: an f-string: " in message.msg
    assert lines[1].strip() in message.msg
    assert "url_name" in (message.hint or "")


def test_a_body_that_is_no_call_is_refused_too(sitemaps: Any) -> None:
    sitemapkit.register(Event, section="events")
    [message] = messages().values()
    assert message.id == "sitemapkit.I001"
    _, first = inspect.getsourcelines(Event.get_absolute_url)
    assert (
        f"models.py:{first + 1}: returns an attribute, not a reverse() call: return self.url"
        in (message.msg)
    )


def test_a_class_that_reads_instances_says_which_method(sitemaps: Any) -> None:
    @sitemapkit.register(Article)
    class ArticleSitemap(PerRow, sitemapkit.ModelSitemap):
        pass

    [message] = messages().values()
    assert message.id == "sitemapkit.I001"
    assert "ArticleSitemap.location() takes instances" in message.msg


def test_a_named_pattern_is_the_fast_path(sitemaps: Any) -> None:
    @sitemapkit.register(Article)
    class ArticleSitemap(sitemapkit.ModelSitemap):
        url_name = "article-detail"
        url_kwargs = {"slug": "slug"}

    [message] = messages().values()
    assert message.id == "sitemapkit.I002"
    assert "URL pattern 'article-detail' (url_name)" in message.msg


def test_lists_say_nothing_and_a_broken_section_does_not_break_the_check(sitemaps: Any) -> None:
    @sitemapkit.register(section="pages")
    class Pages(sitemapkit.StaticViewSitemap):
        url_names = ["home"]

    @sitemapkit.register(Article, section="broken")
    class Broken(sitemapkit.ModelSitemap):
        def get_queryset(self) -> QuerySet[Article]:
            raise RuntimeError("no queryset today")

    found = {message.msg.split("'")[1]: message for message in check_url_routes()}
    assert set(found) == {"broken"}
    assert found["broken"].id == "sitemapkit.I001"
    assert "RuntimeError: no queryset today" in found["broken"].msg


def test_only_check_deploy_runs_it(sitemaps: Any, capsys: pytest.CaptureFixture[str]) -> None:
    sitemapkit.register(Article)
    plain = checks.run_checks()
    assert not [m for m in plain if m.id in ("sitemapkit.I001", "sitemapkit.I002")]
    call_command("check", "--deploy", "--tag", "sitemapkit")
    captured = capsys.readouterr()
    assert "sitemapkit.I002" in captured.out + captured.err
