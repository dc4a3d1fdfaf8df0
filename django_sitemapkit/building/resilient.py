"""The build's reads of the database, done again on fresh connections if the database dropped ours."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TypeVar

from django.db import InterfaceError, OperationalError, connections

from django_sitemapkit.engine import sections
from django_sitemapkit.engine.entries import RenderContext
from django_sitemapkit.engine.pages import PageNotFound
from django_sitemapkit.engine.sections import RenderedPage
from django_sitemapkit.sitemaps import Sitemap

T = TypeVar("T")


def resiliently(read: Callable[[], T]) -> T:
    """``read()``, again on fresh connections if the database dropped ours.

    Long builds meet servers and proxies that close idle or long-lived
    connections. Each page, and the scan that lists the pages, is a read of
    its own, so it can simply be done again -- unless a transaction is open,
    whose work a reconnect would lose: then the error propagates and the
    build fails without publishing.
    """
    try:
        return read()
    except (OperationalError, InterfaceError):
        if any(connection.in_atomic_block for connection in connections.all()):
            raise
        for connection in connections.all():
            connection.close()
        return read()


def render_page_resiliently(sitemap: Sitemap, number: int, context: RenderContext) -> RenderedPage:
    """Render one page, again on a fresh connection if the database dropped ours."""
    return resiliently(lambda: sections.render_sitemap_page(sitemap, number, context))


def render_section(
    sitemap: Sitemap,
    context: RenderContext,
    numbers: list[int],
    skipped: Callable[[int], None] = lambda count: None,
    invalidate_listing: Callable[[str], None] = lambda section: None,
    render: Callable[[list[int]], Iterator[tuple[int, RenderedPage | PageNotFound]]] | None = None,
) -> Iterator[tuple[int, RenderedPage]]:
    """Pages ``numbers`` of a section, then any page split off while rendering them.

    A page whose every URL is skipped has no file; ``skipped`` is told how
    many rows it held, ``invalidate_listing`` when a split changed the section's pages.
    ``render`` renders a list of pages (by default one after the other, here).
    """
    render = render or (lambda pending: rendered_one_by_one(sitemap, context, pending))
    done: set[int] = set()
    pending = numbers
    while True:
        overflowed = False
        for number, page in render(pending):
            done.add(number)
            if isinstance(page, PageNotFound):
                skipped(page.skipped)
                continue
            overflowed = overflowed or page.overflowed
            if page.pages_recut:
                invalidate_listing(sitemap.name)
            yield number, page
            # Not held while the next page renders: a page is megabytes.
            del page
        if not overflowed:
            return
        figures = sections.page_figures(sitemap, context)
        pending = [f.number for f in figures if f.number not in done]


def rendered_one_by_one(
    sitemap: Sitemap, context: RenderContext, numbers: list[int]
) -> Iterator[tuple[int, RenderedPage | PageNotFound]]:
    """Pages ``numbers``, each rendered in turn (PageNotFound for a page with no URL)."""
    for number in numbers:
        try:
            yield number, render_page_resiliently(sitemap, number, context)
        except PageNotFound as exc:
            yield number, exc
