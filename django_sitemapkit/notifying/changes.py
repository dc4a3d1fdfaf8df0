"""A build's changed URLs, noted as it writes, and announced once its set is published.

``watch()`` wraps the build's transaction when IndexNow is on: each page file
it writes (``sitemap-*.xml``; not the ``.gz``, not the index) has its old bytes
read through the publisher *before* the write, since a flat storage
overwrites in place; the pages a build removes are read before its commit.
``announce()`` submits the difference after ``publish()`` returned, never
before and never for a build that failed or changed nothing.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from django_sitemapkit.notifying.indexnow import indexnow_config, key_location, submit
from django_sitemapkit.notifying.urldiff import UrlDiff
from django_sitemapkit.protocol.deflate import Piece
from django_sitemapkit.publishing.base import Publisher, Reuse, Transaction
from django_sitemapkit.publishing.manifest import Manifest

logger = logging.getLogger("django_sitemapkit")


def is_page(name: str) -> bool:
    return name.startswith("sitemap-") and name.endswith(".xml")


class WatchingTransaction:
    """A transaction that passes everything on and notes which URLs its pages change."""

    def __init__(self, inner: Transaction, publisher: Publisher, previous: Manifest) -> None:
        self._inner = inner
        self._publisher = publisher
        self._previous = previous
        # None once noting failed: nothing is announced rather than a part.
        self.diff: UrlDiff | None = UrlDiff()
        self.published = False

    def write(self, name: str, data: bytes | Sequence[Piece], reuse: Reuse | None = None) -> None:
        if is_page(name):
            self._note(name, data if isinstance(data, bytes) else b"".join(data))
        self._inner.write(name, data, reuse)

    def keep(self, name: str) -> None:
        self._inner.keep(name)

    def publish(self, index: dict[str, bytes], manifest: Manifest) -> None:
        current = set(manifest.files())
        for name in self._previous.files():
            if is_page(name) and name not in current:
                self._note(name, None)
        self._inner.publish(index, manifest)
        self.published = True

    def abort(self) -> None:
        self._inner.abort()

    def _note(self, name: str, new: bytes | None) -> None:
        if self.diff is None:
            return
        try:
            self.diff.page(self._publisher.read(self._previous, name), new)
        except Exception:
            logger.warning("IndexNow: could not compare %s; nothing will be submitted.", name)
            self.diff = None


def watch(
    transaction: Transaction | None,
    publisher: Publisher,
    previous: Manifest | None,
    base_url: str,
) -> Transaction | None:
    """``transaction``, noting changed URLs if IndexNow is on and a set was published before.

    A first build changes nothing a search engine knew of from this site's
    sitemaps: it submits nothing, rather than every URL of the site. Nor does
    the first build for another base URL (a move to another host or scheme),
    whose every URL is new while none of its pages changed.
    """
    if transaction is None or previous is None or indexnow_config() is None:
        return transaction
    if previous.base_url != base_url:
        logger.warning(
            "IndexNow: the base URL is %s, the last build's was %s: every URL moved, "
            "so this build submits none.",
            base_url,
            previous.base_url,
        )
        return transaction
    return WatchingTransaction(transaction, publisher, previous)


def announce(transaction: Transaction | None, base_url: str, namespace: str) -> None:
    """Submit the URLs a published build changed; failures are logged, never raised."""
    config = indexnow_config()
    if not isinstance(transaction, WatchingTransaction) or config is None:
        return
    if not transaction.published or transaction.diff is None:
        return
    try:
        urls = transaction.diff.changed()
        if urls:
            key_url = key_location(base_url, config.key, namespace)
            submit(urls, base_url=base_url, config=config, key_url=key_url)
    except Exception:
        logger.exception("IndexNow: submitting the changed URLs failed.")
