"""What ``sitemapkit_validate`` checks: its argument (a path or URL), a storage, or the configured build.

* a URL of a site's root or its ``/robots.txt``: every index its ``Sitemap:``
  lines name; any other URL: the index (or single sitemap) at that URL, and
  the site's ``/robots.txt``;
* a path: the ``current`` set of a build folder, a plain folder of files, or
  an index file;
* ``--storage ALIAS``, or nothing: the published set of the configured
  storage (``STORAGE``, else ``BUILD_DIR``), one per site of ``SITES``.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from urllib.parse import urlsplit

from django.core.exceptions import ImproperlyConfigured
from django.core.files.storage import FileSystemStorage, storages
from django.urls import NoReverseMatch

from django_sitemapkit.boundedhttp import Deadline
from django_sitemapkit.conf import base_url, clean_base_url, get_settings
from django_sitemapkit.engine.rendering import INDEX_NAME, index_path
from django_sitemapkit.publishing.base import Publisher, PublishError
from django_sitemapkit.publishing.flatstorage import FlatPublisher
from django_sitemapkit.publishing.localfolder import LocalPublisher
from django_sitemapkit.publishing.prefixed import PrefixedStorage
from django_sitemapkit.publishing.selection import get_publisher
from django_sitemapkit.siteconfig import SiteConfig, selected_sites
from django_sitemapkit.validation.live import HttpSource, read_robots, robots_url
from django_sitemapkit.validation.sources import (
    FetchError,
    Source,
    folder_source,
    origin,
    published_source,
    sitemap_lines,
)


class TargetError(Exception):
    """Nothing to validate where the command was pointed; the message says why."""


def is_url(target: str) -> bool:
    return urlsplit(target).scheme in ("http", "https")


def is_robots_url(url: str) -> bool:
    """Whether a URL names a site (its root) or its robots.txt rather than a sitemap."""
    path = urlsplit(url).path
    return path in ("", "/") or path.endswith("/robots.txt")


def live_sources(url: str, deadline: Deadline) -> list[Source]:
    """The live site at ``url``: from its robots.txt (read once), or from the sitemap ``url`` names.

    Every index robots.txt names is checked on robots.txt's own scheme and host.
    """
    if not is_robots_url(url):
        return [HttpSource(url, deadline)]
    robots = robots_url(url)
    site = origin(robots)
    try:
        read = read_robots(robots, deadline, site)
    except FetchError as exc:
        raise TargetError(f"cannot read {robots}: {exc}") from None
    if read[1] is None:
        raise TargetError(f"{robots} does not exist: name the sitemap URL instead.")
    listed = sitemap_lines(read[1])
    if not listed:
        raise TargetError(f"{robots} has no Sitemap line: crawlers cannot find the sitemaps.")
    return [HttpSource(index, deadline, site, read) for index in dict.fromkeys(listed)]


def _index_path() -> str:
    try:
        return index_path()
    except NoReverseMatch:
        return "/" + INDEX_NAME


def path_source(path: Path, base: str | None, robots: str | None) -> Source:
    """A folder (a build folder's ``current`` set, or plain files) or an index file."""
    if not path.exists():
        raise TargetError(f"{path} does not exist.")
    manifest = LocalPublisher(path).manifest() if path.is_dir() else None
    try:
        root = clean_base_url(base, "--base-url") if base else None
        root = root or (manifest.base_url if manifest else None) or base_url()
    except ImproperlyConfigured as exc:
        raise TargetError(f"{exc} (or pass --base-url)") from None
    return folder_source(path, root + _index_path(), robots or get_settings().ROBOTS_TXT_PATH)


def _publisher(alias: str | None, site: SiteConfig | None) -> Publisher:
    if alias is None:
        return get_publisher(site)
    try:
        storage = storages[alias]
    except Exception as exc:  # InvalidStorageError
        raise TargetError(f"no storage {alias!r} in STORAGES: {exc}") from None
    folder = "" if site is None else site.name
    if isinstance(storage, FileSystemStorage):
        location = Path(storage.location)
        return LocalPublisher(location / folder if folder else location)
    if folder:
        return FlatPublisher(PrefixedStorage(storage, folder), f"{alias}/{folder}")
    return FlatPublisher(storage, alias)


def published_sources(
    alias: str | None, site_names: Sequence[str] | None, robots: str | None
) -> list[Source]:
    """The published set of every selected site (or of the one site) in the storage."""
    found: list[Source] = []
    try:
        sites = selected_sites(site_names)
    except (LookupError, ImproperlyConfigured) as exc:
        raise TargetError(str(exc)) from None
    for site in sites:
        try:
            publisher = _publisher(alias, site)
        except PublishError as exc:
            raise TargetError(str(exc)) from None
        manifest = publisher.manifest()
        if manifest is None:
            raise TargetError(
                f"Nothing is published in {publisher.description}: run sitemapkit_build first, "
                "or name a folder or URL."
            )
        site_robots = site.robots_txt_path if site is not None else get_settings().ROBOTS_TXT_PATH
        found.append(published_source(publisher, manifest, _index_path(), robots or site_robots))
    return found
