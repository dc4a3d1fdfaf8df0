"""Which publisher this process publishes to and serves from, and the views' read of it.

One publisher per configured storage and process, so that its parsed
manifest stays cached between requests.
"""

from __future__ import annotations

import datetime
from pathlib import Path

from django.conf import settings
from django.core.files.storage import FileSystemStorage, storages

from django_sitemapkit.conf import get_settings
from django_sitemapkit.engine.filenames import INDEX_NAME
from django_sitemapkit.publishing.base import Publisher, PublishError
from django_sitemapkit.publishing.flatstorage import FlatPublisher
from django_sitemapkit.publishing.localfolder import LocalPublisher
from django_sitemapkit.publishing.prefixed import PrefixedStorage
from django_sitemapkit.siteconfig import SiteConfig


def build_dir() -> Path:
    conf = get_settings()
    if conf.BUILD_DIR:
        return Path(conf.BUILD_DIR)
    base_dir = getattr(settings, "BASE_DIR", None)
    if base_dir is None:
        raise PublishError(
            "Set SITEMAPKIT['BUILD_DIR'] (or a STORAGE alias): settings have no BASE_DIR "
            "to default to."
        )
    return Path(base_dir) / "sitemaps"


_publishers: dict[tuple[str | None, str, str], Publisher] = {}


def get_publisher(site: SiteConfig | None = None) -> Publisher:
    """The publisher for the configured storage (one per process, for its caches).

    Each site of ``SITEMAPKIT["SITES"]`` publishes into a folder of its name
    (a prefix of the storage), with its own manifest and lock.
    """
    alias = get_settings().STORAGE
    folder = "" if site is None else site.name
    if alias is None:
        root = build_dir()
        key: tuple[str | None, str, str] = (None, str(root), folder)
        if key not in _publishers:
            _publishers[key] = LocalPublisher(root / folder if folder else root)
        return _publishers[key]
    storage = storages[alias]
    key = (alias, str(id(storage)), folder)
    if key not in _publishers:
        if isinstance(storage, FileSystemStorage):
            location = Path(storage.location)
            _publishers[key] = LocalPublisher(location / folder if folder else location)
        elif folder:
            _publishers[key] = FlatPublisher(PrefixedStorage(storage, folder), f"{alias}/{folder}")
        else:
            _publishers[key] = FlatPublisher(storage, alias)
    return _publishers[key]


def published_file(
    name: str, site: SiteConfig | None = None
) -> tuple[bytes, datetime.datetime | None] | None:
    """The bytes of ``name`` in the published build and its lastmod, if a build is published.

    Returns None when there is no build, so the caller renders instead; a
    build that does not contain ``name`` raises FileNotFoundError.
    """
    try:
        publisher = get_publisher(site)
    except PublishError:
        return None
    manifest = publisher.manifest()
    if manifest is None:
        return None
    if name.removesuffix(".gz") == INDEX_NAME:
        stamp = manifest.index_lastmod
    else:
        record = manifest.record_for(name)
        if record is None:
            raise FileNotFoundError(name)
        stamp = record.lastmod
    data = publisher.read(manifest, name)
    if data is None:
        raise FileNotFoundError(name)
    return data, None if stamp is None else datetime.datetime.fromisoformat(stamp)
