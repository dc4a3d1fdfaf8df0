"""Which publisher this process publishes to and serves from, and the views' read of it: the
default ``SitemapSite`` at the storage's root, every other in a folder of its name (``news/``);
under ``SITES`` each site in a folder of its name inside that (``shop/``, ``news/shop/``)."""

from __future__ import annotations

import datetime
from pathlib import Path

from django.conf import settings
from django.core.files.storage import FileSystemStorage, storages

from django_sitemapkit._conf import get_settings
from django_sitemapkit._engine.rendering import INDEX_NAME, URL_NAMESPACE
from django_sitemapkit._publishing.base import Publisher, PublishError
from django_sitemapkit._publishing.flatstorage import FlatPublisher
from django_sitemapkit._publishing.localfolder import CURRENT_LINK, GENERATIONS_DIR, LocalPublisher
from django_sitemapkit._siteconfig import SITE_NAME, SiteConfig, SitesError, configured_sites


def build_dir() -> Path:
    if folder := get_settings().BUILD_DIR:
        return Path(folder)
    base_dir = getattr(settings, "BASE_DIR", None)
    if base_dir is None:
        raise PublishError(
            "Set SITEMAPKIT['BUILD_DIR'] (or a STORAGE alias): settings have no BASE_DIR "
            "to default to."
        )
    return Path(base_dir) / "sitemaps"


_publishers: dict[tuple[str | None, str, str], Publisher] = {}


def get_publisher(site: SiteConfig | None = None, registry: str = URL_NAMESPACE) -> Publisher:
    """The publisher of the set of ``SitemapSite`` ``registry`` (of its ``site``, under SITES),
    one per folder and process, so that its parsed manifest stays cached between requests."""
    alias = get_settings().STORAGE
    folder = publish_folder(registry, site)
    storage = None if alias is None else storages[alias]
    key = (alias, str(build_dir() if storage is None else id(storage)), folder)
    if key not in _publishers:
        if storage is None or isinstance(storage, FileSystemStorage):
            root = build_dir() if storage is None else Path(storage.location)
            _publishers[key] = LocalPublisher(root / folder if folder else root)
        else:
            _publishers[key] = FlatPublisher(storage, str(alias), folder)
    return _publishers[key]


def publish_folder(registry: str, site: SiteConfig | None) -> str:
    """The folder of a set inside the storage ("" for its root); PublishError if it has none."""
    if (problem := folder_problem(registry)) is not None:
        raise PublishError(problem)
    parts = [] if registry == URL_NAMESPACE else [registry]
    return "/".join(parts + ([] if site is None else [site.name]))


def folder_problem(registry: str) -> str | None:
    """Why ``SitemapSite(registry)`` cannot publish into a folder of its name (one the default
    set's files or site folders have, which would mix two sets), or None."""
    if registry == URL_NAMESPACE:
        return None
    where = f"SitemapSite({registry!r}) publishes its builds into a folder of its name"
    if not SITE_NAME.fullmatch(registry):
        return f"{where}, which must be 1-32 lower-case letters, digits, '-' or '_'."
    if registry in (CURRENT_LINK, GENERATIONS_DIR):
        return f"{where}, which is where the default site's local build keeps its {registry!r}."
    try:
        sites = {config.name for config in configured_sites()}
    except SitesError:
        sites = set()  # reported by check E020
    if registry in sites:
        return f"{where}, which is where the default site's build of site {registry!r} goes."
    return None


def published_file(
    name: str, site: SiteConfig | None = None, registry: str = URL_NAMESPACE
) -> tuple[bytes, datetime.datetime | None] | None:
    """The bytes of ``name`` in the published build and its lastmod; None when there is no build
    (the caller renders instead); FileNotFoundError when the build has no ``name``."""
    try:
        publisher = get_publisher(site, registry)
    except PublishError:
        return None
    manifest = publisher.manifest()
    if manifest is None:
        return None
    if name.removesuffix(".gz") == INDEX_NAME:
        stamp = manifest.index_lastmod
    elif (record := manifest.record_for(name)) is not None:
        stamp = record.lastmod
    else:
        raise FileNotFoundError(name)
    data = publisher.read(manifest, name)
    if data is None:
        raise FileNotFoundError(name)
    return data, None if stamp is None else datetime.datetime.fromisoformat(stamp)
