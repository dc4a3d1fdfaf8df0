"""IndexNow: telling search engines which URLs a build changed (docs/indexnow.md). ``watch()``
reads each page's old bytes *before* its write (a flat storage overwrites in place): the same
diff gives the build's figures per section (URLs added, removed, redated); ``announce()`` submits
once ``publish()`` returned. A failure is logged, never fails the build."""

from __future__ import annotations

import http.client
import json
import logging
import math
import re
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit
from xml.sax.saxutils import unescape

from django.urls import NoReverseMatch, get_script_prefix, reverse

from django_sitemapkit._boundedhttp import Deadline, exchange
from django_sitemapkit._conf import SETTINGS_NAME, get_settings
from django_sitemapkit._engine.rendering import URL_NAMESPACE, views_routed
from django_sitemapkit._publishing.base import Manifest, Publisher, SectionChange, Transaction

logger = logging.getLogger("django_sitemapkit")

DEFAULT_ENDPOINT = "https://api.indexnow.org/indexnow"
# The protocol's limit of URLs per POST.
MAX_BATCH = 10_000
KEY_PATTERN = re.compile(r"[a-zA-Z0-9-]{8,128}")
# Seconds slept before each retry: four tries in all, about seven seconds.
DELAYS = (1.0, 2.0, 4.0)
# Seconds each socket operation may take, and all the requests of a build together.
TIMEOUT = 10.0
DEFAULT_DEADLINE = 60.0
USER_AGENT = "django-sitemapkit"
KEY_ROUTE = "indexnow-key"
_SETTING = f"{SETTINGS_NAME}['INDEXNOW']"
_KNOWN = {"KEY", "ENDPOINT", "BATCH_SIZE", "DEADLINE"}
# Entries as the writer makes them; text is escaped, so no "<" but a tag's.
_ENTRY = re.compile(rb"<url>(.*?)</url>", re.DOTALL)
_LOC = re.compile(rb"<loc>([^<]*)</loc>")
_LASTMOD = re.compile(rb"<lastmod>([^<]*)</lastmod>")
_PAGE = re.compile(r"sitemap-(.+)-[0-9]+\.xml")
_ENTITIES = {"&quot;": '"', "&apos;": "'"}


@dataclass(frozen=True)
class IndexNowConfig:
    key: str
    endpoint: str = DEFAULT_ENDPOINT
    batch_size: int = MAX_BATCH
    deadline: float = DEFAULT_DEADLINE


def config_problems(value: object) -> list[str]:
    """What is wrong with an ``INDEXNOW`` setting (None, or a dict), in words; none: usable."""
    if value is None:
        return []
    if not isinstance(value, dict):
        return [f"{_SETTING} must be a dict or None, not {type(value).__name__}."]
    problems = [f"{_SETTING} has an unknown key {key!r}." for key in sorted(set(value) - _KNOWN)]
    key = value.get("KEY")
    if not isinstance(key, str) or not KEY_PATTERN.fullmatch(key):
        problems.append(f"{_SETTING}['KEY'] must be 8 to 128 characters of a-z, A-Z, 0-9 and '-'.")
    endpoint = value.get("ENDPOINT", DEFAULT_ENDPOINT)
    if not isinstance(endpoint, str) or urlsplit(endpoint).scheme not in ("http", "https"):
        problems.append(f"{_SETTING}['ENDPOINT'] must be an http or https URL.")
    batch = value.get("BATCH_SIZE", MAX_BATCH)
    if isinstance(batch, bool) or not isinstance(batch, int) or not 1 <= batch <= MAX_BATCH:
        problems.append(f"{_SETTING}['BATCH_SIZE'] must be a number from 1 to {MAX_BATCH:,}.")
    deadline = value.get("DEADLINE", DEFAULT_DEADLINE)
    number = isinstance(deadline, int | float) and not isinstance(deadline, bool)
    if not (number and 0 < deadline < math.inf):
        problems.append(f"{_SETTING}['DEADLINE'] must be a number of seconds above 0.")
    return problems


def indexnow_config() -> IndexNowConfig | None:
    """The configured IndexNow, or None when it is off or unusable (check E022 says why)."""
    value = get_settings().INDEXNOW
    if value is None or config_problems(value):
        return None
    # The setting's keys are the fields' names in capitals; a key left out takes its default.
    return IndexNowConfig(**{key.lower(): item for key, item in value.items()})


def key_location(base_url: str, key: str, namespace: str = URL_NAMESPACE) -> str:
    """The key file's URL: where the site's views serve it, else at the root as Django knows it."""
    if views_routed(namespace):
        try:
            return base_url + reverse(f"{namespace}:{KEY_ROUTE}", kwargs={"key": key})
        except NoReverseMatch:
            pass
    return base_url + get_script_prefix() + f"{key}.txt"


def submit(
    urls: Sequence[str],
    *,
    base_url: str,
    config: IndexNowConfig,
    key_url: str,
    sleep: Callable[[float], None] = time.sleep,
) -> tuple[int, int]:
    """POST the URLs of ``base_url``'s host in batches, all within ``config.deadline`` seconds;
    the first batch that fails stops the rest. Returns how many URLs the endpoint accepted and
    how many were not sent because it failed."""
    host = urlsplit(base_url).netloc
    own = [url for url in urls if urlsplit(url).netloc == host]
    deadline = Deadline(config.deadline)
    sent = 0
    for start in range(0, len(own), config.batch_size):
        batch = own[start : start + config.batch_size]
        body = {"host": host, "key": config.key, "keyLocation": key_url, "urlList": batch}
        if not _post(config.endpoint, body, deadline, sleep):
            logger.warning(
                "IndexNow: %d changed URLs of %s not submitted to %s.",
                len(own) - start,
                host,
                config.endpoint,
            )
            break
        sent += len(batch)
    if sent:
        logger.info("IndexNow: %d changed URLs of %s submitted.", sent, host)
    return sent, len(own) - sent


def _post(
    endpoint: str, body: dict[str, Any], deadline: Deadline, sleep: Callable[[float], None]
) -> bool:
    """One batch, tried again after each delay of DELAYS while the failure may pass."""
    data = json.dumps(body).encode("utf-8")
    headers = {"Content-Type": "application/json; charset=utf-8", "User-Agent": USER_AGENT}
    for attempt in range(len(DELAYS) + 1):
        if attempt:
            sleep(min(DELAYS[attempt - 1], deadline.left()))
        if not deadline.left():
            logger.warning(
                "IndexNow: %s gave no answer within the deadline of %g s; giving up.",
                endpoint,
                deadline.seconds,
            )
            return False
        try:
            with exchange("POST", endpoint, deadline, TIMEOUT, data, headers) as response:
                status = response.response.status
        except (OSError, ValueError, http.client.HTTPException) as exc:
            problem = str(exc) or type(exc).__name__
        else:
            if 200 <= status < 300:
                return True
            # Too many requests and server errors may pass; the others say the request is wrong.
            if status != 429 and status < 500:
                redirect = " (a redirect, not followed)" if 300 <= status < 400 else ""
                logger.warning(
                    "IndexNow: %s refused the URLs: HTTP %d%s.", endpoint, status, redirect
                )
                return False
            problem = f"HTTP {status}"
        logger.info("IndexNow: try %d to %s failed (%s).", attempt + 1, endpoint, problem)
    logger.warning("IndexNow: %s failed %d times; giving up.", endpoint, len(DELAYS) + 1)
    return False


def entries(xml: bytes | None) -> Iterator[tuple[str, bytes]]:
    """Each ``<url>`` of a ``<urlset>`` file: its location and a digest of the whole entry."""
    for url, digest, _ in dated_entries(xml):
        yield url, digest


def dated_entries(xml: bytes | None) -> Iterator[tuple[str, bytes, bytes | None]]:
    """Each ``<url>``'s location, its whole entry and ``<lastmod>`` as written (None: none)."""
    for entry in _ENTRY.findall(xml or b""):
        loc = _LOC.search(entry)
        if loc is not None:
            url = unescape(loc.group(1).decode("utf-8").strip(), _ENTITIES)
            lastmod = _LASTMOD.search(entry)
            yield url, entry, None if lastmod is None else lastmod.group(1)


def _differing_entries(old: bytes | None, new: bytes | None) -> tuple[bytes, bytes]:
    """The entries of ``old`` not in ``new`` and the reverse: the writer ends each ``<url>``
    with ``</url>`` and a newline, which no value can hold, so an unchanged entry cancels here
    without being parsed (an edit changes a few entries of a page of 50,000)."""
    old_parts, new_parts = (old or b"").split(_END), (new or b"").split(_END)
    old_set, new_set = set(old_parts), set(new_parts)
    return (
        _END.join(part for part in old_parts if part not in new_set) + _END,
        _END.join(part for part in new_parts if part not in old_set) + _END,
    )


_END = b"</url>\n"


# An entry, as a page lists it: its digest and lastmod.
_Entry = tuple[bytes, bytes | None]


class UrlDiff:
    """The URLs whose entries differ between the old and new bytes of the pages given, and per
    section those added, removed and whose lastmod moved; equal entries on one page cancel at
    once, so memory grows with the changes, not the pages."""

    def __init__(self, *, keep_urls: bool = True) -> None:
        # The URLs edited in place, for IndexNow only: a backfill edits every one.
        self.keep_urls = keep_urls
        self._edited: set[str] = set()
        # Per section, URLs whose entry changed in place with a new lastmod.
        self._redated: Counter[str] = Counter()
        # (section, URL) only in an old page, or only in a new one.
        self._gone: dict[tuple[str, str], _Entry] = {}
        self._came: dict[tuple[str, str], _Entry] = {}

    def page(self, old: bytes | None, new: bytes | None, section: str = "") -> None:
        """Compare a page's old bytes (None: it is new) with its new ones (None: removed)."""
        old, new = _differing_entries(old, new)
        before = {url: (digest, lastmod) for url, digest, lastmod in dated_entries(old)}
        for url, digest, lastmod in dated_entries(new):
            was = before.pop(url, None)
            if was is None:
                self._came[section, url] = (digest, lastmod)
            elif was[0] != digest:
                if self.keep_urls:
                    self._edited.add(url)
                self._redated[section] += was[1] != lastmod
        self._gone.update(((section, url), entry) for url, entry in before.items())

    def changed(self) -> list[str]:
        """Every URL added, edited or removed (moved to another page unchanged: not), sorted."""
        gone = {url: entry[0] for (_, url), entry in self._gone.items()}
        came = {url: entry[0] for (_, url), entry in self._came.items()}
        urls = {url for url in gone.keys() | came.keys() if gone.get(url) != came.get(url)}
        return sorted(urls | self._edited)

    def sections(self) -> dict[str, SectionChange]:
        """Per section with a change: URLs added, removed, and kept with a new lastmod."""
        changes: dict[str, SectionChange] = {}
        for section, count in self._redated.items():
            changes.setdefault(section, SectionChange()).lastmod_moved += count
        for key in self._gone.keys() | self._came.keys():
            change = changes.setdefault(key[0], SectionChange())
            gone, came = self._gone.get(key), self._came.get(key)
            if gone is None:
                change.added += 1
            elif came is None:
                change.removed += 1
            else:  # moved to another page of its section
                change.lastmod_moved += gone[1] != came[1]
        return changes


def page_section(name: str) -> str | None:
    """The section of a page file's name, None for any other file."""
    match = _PAGE.fullmatch(name)
    return None if match is None else match.group(1)


@dataclass(eq=False)
class WatchingTransaction:
    """A transaction that passes everything on and notes which URLs its pages change."""

    inner: Transaction
    publisher: Publisher
    previous: Manifest
    # Whether IndexNow may be told: not when every URL moved to another base URL.
    submit: bool = True
    # None once noting failed: nothing is announced rather than a part.
    diff: UrlDiff | None = field(default_factory=UrlDiff)
    published: bool = False
    _removed_noted: bool = False

    def write(self, name: str, data: bytes) -> None:
        if (section := page_section(name)) is not None:
            self._note(name, section, data)
        self.inner.write(name, data)

    def keep(self, name: str) -> None:
        self.inner.keep(name)

    def changes(self, manifest: Manifest) -> dict[str, SectionChange] | None:
        """Per section, what the pages written and those ``manifest`` no longer lists changed;
        None when a page could not be compared."""
        if not self._removed_noted:
            self._removed_noted = True
            current = set(manifest.files())
            for name in self.previous.files():
                if (section := page_section(name)) is not None and name not in current:
                    self._note(name, section, None)
        return None if self.diff is None else self.diff.sections()

    def publish(self, index: dict[str, bytes], manifest: Manifest) -> None:
        self.changes(manifest)
        self.inner.publish(index, manifest)
        self.published = True

    def abort(self) -> None:
        self.inner.abort()

    def _note(self, name: str, section: str, new: bytes | None) -> None:
        if self.diff is None:
            return
        try:
            self.diff.page(self.publisher.read(self.previous, name), new, section)
        except Exception:
            logger.warning(
                "Could not compare %s with its published bytes: no URL of this build is "
                "submitted to IndexNow, nor are its URLs added and removed counted.",
                name,
            )
            self.diff = None


def watch(
    transaction: Transaction | None, publisher: Publisher, previous: Manifest | None, base_url: str
) -> WatchingTransaction | None:
    """``transaction`` noting which URLs its pages change (the build's figures, IndexNow), or
    None for a dry run or a first build: it submits nothing rather than every URL, nor does a
    build for another base URL."""
    if transaction is None or previous is None:
        return None
    moved = previous.base_url != base_url
    if moved and indexnow_config() is not None:
        logger.warning(
            "IndexNow: the base URL is %s, the last build's was %s: every URL moved, "
            "so this build submits none.",
            base_url,
            previous.base_url,
        )
    submit = not moved
    diff = UrlDiff(keep_urls=submit and indexnow_config() is not None)
    return WatchingTransaction(transaction, publisher, previous, submit=submit, diff=diff)


def announce(transaction: Transaction | None, base_url: str, namespace: str) -> None:
    """Submit the URLs a published build changed; failures are logged, never raised."""
    config = indexnow_config()
    if not isinstance(transaction, WatchingTransaction) or config is None:
        return
    if not (transaction.published and transaction.submit) or transaction.diff is None:
        return
    try:
        urls = transaction.diff.changed()
        if urls:
            key_url = key_location(base_url, config.key, namespace)
            submit(urls, base_url=base_url, config=config, key_url=key_url)
    except Exception:
        logger.exception("IndexNow: submitting the changed URLs failed.")
