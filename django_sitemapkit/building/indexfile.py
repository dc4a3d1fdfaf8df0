"""The last step of a build: the index of the pages, and the publish of the whole set."""

from __future__ import annotations

import datetime

from django_sitemapkit.building.pagefiles import changed_lastmod, sha256
from django_sitemapkit.building.result import BuildResult
from django_sitemapkit.engine.pages import PageNotFound
from django_sitemapkit.engine.rendering import (
    INDEX_NAME,
    IndexEntry,
    RenderedFile,
    empty_site_file,
    write_index,
)
from django_sitemapkit.protocol.stylesheet import STYLESHEET_NAME, stylesheet_bytes
from django_sitemapkit.publishing.base import Transaction
from django_sitemapkit.publishing.manifest import Manifest


def publish_index(
    manifest: Manifest,
    previous: Manifest | None,
    transaction: Transaction | None,
    result: BuildResult,
    *,
    base_url: str,
    namespace: str,
    full: bool,
    started: datetime.datetime,
) -> None:
    """Write the index of ``manifest``'s pages and publish the set, unless nothing changed
    (and the build is not ``full``)."""
    try:
        index = write_index(
            (IndexEntry(r.section, r.number, r.index_lastmod_value()) for r in manifest.pages),
            base_url=base_url,
            namespace=namespace,
        )
    except PageNotFound:
        # No section has a URL yet: what the views serve then (see there).
        index = empty_site_file(base_url=base_url, namespace=namespace)
    manifest.index_sha256 = sha256(index.content)
    manifest.index_lastmod = _index_lastmod(index, previous, manifest.index_sha256, started)
    index_files = {INDEX_NAME: index.content}
    if manifest.gzip:
        index_files[INDEX_NAME + ".gz"] = index.gzipped().content
    result.bytes += len(index.content)
    index_unchanged = (
        previous is not None
        and previous.index_sha256 == manifest.index_sha256
        and previous.stylesheet_sha256 == manifest.stylesheet_sha256
    )
    current = set(manifest.files())
    result.removed = [] if previous is None else [n for n in previous.files() if n not in current]
    if index_unchanged and not result.written and not result.removed and not full:
        result.unchanged += len(index_files)
        if transaction is not None:
            transaction.abort()  # nothing changed: keep the published set as it is
        return
    result.written.extend(index_files)
    result.bytes_written += sum(map(len, index_files.values()))
    if transaction is not None:
        # The stylesheet beside the index, where every file's <?xml-stylesheet?>
        # names it (not a sitemap file: not counted as one).
        if previous is not None and previous.stylesheet_sha256 == manifest.stylesheet_sha256:
            if manifest.stylesheet is not None:
                transaction.keep(STYLESHEET_NAME)
        elif manifest.stylesheet is not None:
            index_files[STYLESHEET_NAME] = stylesheet_bytes()
        transaction.publish(index_files, manifest)
        result.published = True


def _index_lastmod(
    index: RenderedFile, previous: Manifest | None, digest: str, started: datetime.datetime
) -> str | None:
    """The index's Last-Modified: its newest entry's lastmod, None when an entry has none.

    When its bytes changed while that did not move forward (a page added
    with older rows, or gone), a later time (see :func:`changed_lastmod`):
    a client that holds the old index must never be told it is current.
    """
    if previous is not None and previous.index_sha256 == digest:
        return previous.index_lastmod
    if index.last_modified is None:
        return None
    before = None if previous is None else previous.index_lastmod
    before_value = None if before is None else datetime.datetime.fromisoformat(before)
    return changed_lastmod(index.last_modified, previous is not None, before_value, started)
