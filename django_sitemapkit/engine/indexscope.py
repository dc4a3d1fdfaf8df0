"""Where the sitemap index lives decides which URLs its sitemaps may list.

sitemaps.org: a sitemap lists only URLs under its own directory. With the
index routed under ``/sitemapkit/``, a section of URLs at ``/`` would have
every URL skipped; system check E014 says so from what is known without rows,
and ``sitemapkit_build`` from a section's first row.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import NoReturn

from django.db import connections

from django_sitemapkit.conf import get_settings
from django_sitemapkit.engine import rows
from django_sitemapkit.engine.entries import item_access
from django_sitemapkit.engine.rendering import URL_NAMESPACE, index_path, make_context
from django_sitemapkit.engine.rows import url_route
from django_sitemapkit.protocol.locations import InvalidLocation, LocationBuilder
from django_sitemapkit.sitemaps import ModelSitemap, Sitemap, StaticViewSitemap

INDEX_AT_ROOT_HINT = (
    'Include the sitemap URLs at the root of the site: path("", site.urls), '
    "or leave the include out where a web server serves the files sitemapkit_build writes."
)


@dataclass(frozen=True)
class Misplaced:
    """A URL of a section (or the start all of them share) outside the index's directory."""

    url: str
    is_prefix: bool
    directory: str
    index_path: str

    def __str__(self) -> str:
        what = f"URLs starting {self.url}" if self.is_prefix else self.url
        return (
            f"lists {what}, outside {self.directory}, the directory of the sitemap index "
            f"{self.index_path}: a sitemap may only list URLs under its own directory."
        )


class IndexDirectory:
    """The directory of the sitemap index, which holds every URL the sitemaps may list."""

    def __init__(self, base_url: str, namespace: str = URL_NAMESPACE) -> None:
        self.index_path = index_path(namespace)
        # The index's directory refuses what lies outside it; the site's
        # refuses only what is wrong anywhere (another host, too long...),
        # which the build skips with its own reason.
        self.inside = make_context(base_url, namespace).locations
        self.site = LocationBuilder(base_url, strip_params=get_settings().STRIP_QUERY_PARAMS)

    @property
    def is_site_root(self) -> bool:
        return self.inside.directory_url == self.site.directory_url

    def misplaced(self, sitemap: Sitemap, *, query: bool = False) -> Misplaced | None:
        """A URL of ``sitemap`` outside the directory; ``query`` lets it read the first row."""
        if self.is_site_root:
            return None
        try:
            samples = _sample_locations(sitemap, query=query)
        except Exception:
            # Whatever fails here fails again where the section is rendered,
            # which skips the item and says why.
            return None
        for raw, is_prefix in samples:
            try:
                url = self.site.build(raw)
            except InvalidLocation:
                continue
            directory = self.inside.directory_url
            # A prefix above the directory ("/" for "/sitemapkit/") leaves the
            # decision to the rest of each URL.
            if not url.startswith(directory) and not (is_prefix and directory.startswith(url)):
                return Misplaced(url, is_prefix, directory, self.index_path)
        return None


def _sample_locations(sitemap: Sitemap, *, query: bool) -> list[tuple[object, bool]]:
    """Locations of ``sitemap`` known cheaply: (what location() gives, is it only a prefix)."""
    if isinstance(sitemap, ModelSitemap):
        return _model_locations(sitemap, query=query)
    items = sitemap.items()
    if isinstance(sitemap, StaticViewSitemap):
        return [(sitemap.location(item), False) for item in items]
    if not query and not isinstance(items, list | tuple):
        return []  # a QuerySet or another lazy sequence: reading it is a query
    return [(sitemap.location(item), False) for item in items[:1]]


def _model_locations(sitemap: ModelSitemap, *, query: bool) -> list[tuple[object, bool]]:
    samples: list[tuple[object, bool]] = []
    route = url_route(sitemap)
    if route is not None:
        template = route.template()
        if template.parts is not None:
            samples.append((template.parts[0], True))
    if query and sitemap.model is not None:
        queryset = sitemap.get_queryset()
        if rows.reads_columns(sitemap):
            queryset = queryset.values_list(*rows.row_layout(sitemap).columns)
        row = queryset.first()
        if row is not None:
            samples.append((item_access(sitemap).location(row), False))
    return samples


def _refuse_database(*args: object, **kwargs: object) -> NoReturn:
    raise RuntimeError("system checks do not query the database")


@contextlib.contextmanager
def without_database() -> Iterator[None]:
    """Refuse this thread's database access, as Django's SimpleTestCase does.

    A check runs before every management command, migrate included, so it
    must not read tables that may not exist yet, nor the rows of a big list
    that ``items()`` builds. Every cursor, and every connect, goes through
    ``ensure_connection()``.
    """
    patched = [(c, vars(c).get("ensure_connection")) for c in connections.all()]
    for connection, _ in patched:
        setattr(connection, "ensure_connection", _refuse_database)  # noqa: B010
    try:
        yield
    finally:
        for connection, previous in patched:
            if previous is None:
                delattr(connection, "ensure_connection")
            else:
                setattr(connection, "ensure_connection", previous)  # noqa: B010
