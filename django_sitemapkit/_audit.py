"""``sitemapkit_audit``: every URL a site's sitemaps list, requested as a crawler meets it.

The sitemaps are read as crawlers read them: the site's index and page files requested through
Django's test client at the site's host and scheme (so a published build is what is audited
when the views serve one), parsed by ``sitemapkit_validate``'s reader. Each listed URL is then
requested the same way, in-process (no network, no server), through the project's middleware,
and reported when it answers other than 200, redirects, says ``noindex``, names another
canonical URL or is disallowed by the site's robots.txt.
"""

from __future__ import annotations

import io
import logging
import queue
import random
import threading
import time
import urllib.robotparser
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import urljoin

from django.core.management.base import CommandError
from django.db import connections
from django.http import HttpResponseBase
from django.test import Client

from django_sitemapkit._conf import base_url, get_settings
from django_sitemapkit._engine.rendering import index_path
from django_sitemapkit._protocol.locations import InvalidLocation, join_url, split_url
from django_sitemapkit._siteconfig import SiteConfig
from django_sitemapkit._validation import sources, xmlfile

DEFAULT_TIMEOUT = 30.0
DEFAULT_SEED = 28  # a fixed seed: two runs of one --sample audit the same URLs
USER_AGENT = "django-sitemapkit sitemapkit_audit"
#: The crawlers whose rules count: any crawler, and Google's (whose rules it obeys before "*").
AGENTS = ("*", "Googlebot")
_META_NAMES = ("robots", "googlebot")
_NOINDEX = frozenset({"noindex", "none"})
# X-Robots-Tag directives that carry a value after a colon (not a user agent's name).
_VALUED = frozenset({"unavailable_after", "max-snippet", "max-image-preview", "max-video-preview"})
_HTML_TYPES = ("text/html", "application/xhtml+xml")
HTML_CAP = 2 * 1024 * 1024  # the head comes first: what is past this is not read


@dataclass(frozen=True)
class Problem:
    kind: str  # error, timeout, status, redirect, noindex, canonical, robots
    detail: str


@dataclass
class Listed:
    url: str
    section: str  # the section of the sitemap file listing it
    file: str  # that file's URL
    problems: list[Problem] = field(default_factory=list)


@dataclass
class Target:
    """The site audited: its base URL, host and scheme, and the robots.txt it maintains."""

    name: str | None
    root: str
    robots_path: str | None

    @classmethod
    def of(cls, site: SiteConfig | None) -> Target:
        if site is not None:
            return cls(site.name, site.base_url, site.robots_txt_path)
        try:
            return cls(None, base_url(), get_settings().ROBOTS_TXT_PATH)
        except ValueError as exc:  # BaseUrlError: the audit needs the host crawlers use
            raise CommandError(str(exc)) from None

    @property
    def host(self) -> str:
        return self.root.partition("://")[2].partition("/")[0]

    def path(self, url: str) -> str | None:
        """The path Django is asked for ``url``; None for a URL outside the base URL."""
        rest = url.removeprefix(self.root)
        if rest == url or rest[:1] not in ("/", "?", ""):
            return None
        return rest if rest.startswith("/") else "/" + rest

    def get(self, client: Client, url: str) -> HttpResponseBase | None:
        """``url`` requested through ``client`` as a crawler would; None when outside the site."""
        path = self.path(url)
        if path is None:
            return None
        secure = self.root.startswith("https:")
        return client.get(path, secure=secure, HTTP_HOST=self.host, HTTP_USER_AGENT=USER_AGENT)


def body(response: HttpResponseBase, cap: int | None = None) -> bytes:
    """The response's content, at most ``cap`` bytes of it."""
    if not response.streaming:
        return response.content[:cap]  # type: ignore[attr-defined,no-any-return]
    data = bytearray()
    try:
        for chunk in response.streaming_content:  # type: ignore[attr-defined]
            data += chunk
            if cap is not None and len(data) >= cap:
                break
    finally:
        response.close()
    return bytes(data[:cap])


def listed_urls(client: Client, target: Target) -> list[Listed]:
    """Every URL of the site's sitemap files, in their order, with the section of each."""
    index_url = target.root + index_path()
    pages: list[xmlfile.Entry] = []
    _read_sitemap(client, target, index_url, pages.append, "the index")
    listed: list[Listed] = []
    for page in pages:
        entries: list[xmlfile.Entry] = []
        section = _read_sitemap(client, target, page.loc, entries.append, "a file of the index")
        listed += (Listed(entry.loc, section, page.loc) for entry in entries)
    return listed


def _read_sitemap(
    client: Client, target: Target, url: str, on_entry: Callable[[xmlfile.Entry], None], what: str
) -> str:
    """Scan the sitemap at ``url``, calling ``on_entry`` per entry; the section it belongs to."""
    response = target.get(client, url)
    if response is None or response.status_code != 200:
        answer = "is not on the site" if response is None else f"answers {response.status_code}"
        raise CommandError(
            f"{what}, {url}, {answer}: the audit reads the sitemaps through the project's URLs, "
            'as crawlers do (path("", sitemapkit.site.urls)).'
        )
    scan = xmlfile.scan(sources.content(io.BytesIO(body(response))), on_entry)
    if scan.kind is None:
        raise CommandError(f"{what}, {url}, is not a sitemap: {scan.problem and scan.problem[1]}")
    match = getattr(response, "resolver_match", None)
    return str(match.kwargs.get("section", url) if match else url)


class RobotsRules:
    """The rules of the robots.txt crawlers read: the site's /robots.txt as the project serves
    it, else the file ``sitemapkit_robots`` maintains (a web server's), else none (all allowed)."""

    def __init__(self, client: Client, target: Target) -> None:
        scheme, host = sources.origin(target.root)
        url = f"{scheme}://{host}/robots.txt"
        response = target.get(client, url)
        text, self.where = None, url
        if response is not None and response.status_code == 200:
            text = body(response, sources.ROBOTS_MAX_BYTES).decode("utf-8", "replace")
        elif target.robots_path:
            with suppress(FileNotFoundError):
                path = Path(target.robots_path)
                text, self.where = path.read_text(encoding="utf-8", errors="replace"), str(path)
        self.parser = urllib.robotparser.RobotFileParser()
        self.parser.parse((text or "").lstrip("\ufeff").splitlines())

    def check(self, url: str) -> Problem | None:
        for agent in AGENTS:
            if not self.parser.can_fetch(agent, url):
                return Problem("robots", f"disallowed for User-agent {agent} by {self.where}")
        return None


def says_noindex(directives: str) -> bool:
    """Whether a robots meta tag's content names ``noindex`` or ``none``."""
    return any(token.strip().lower() in _NOINDEX for token in directives.split(","))


def header_says_noindex(value: str) -> bool:
    """Whether an X-Robots-Tag value says ``noindex`` or ``none`` to any crawler or Googlebot:
    ``"googlebot: noindex"`` scopes what follows it to one crawler, ``"otherbot: ..."`` to another."""
    agent = ""
    for part in value.split(","):
        name, colon, rest = part.partition(":")
        name = name.strip().lower()
        if colon and name not in _VALUED and " " not in name:
            agent, part = name, rest
        if part.strip().lower() in _NOINDEX and agent in ("", "googlebot"):
            return True
    return False


class _EndOfHead(Exception):
    pass


class HeadParser(HTMLParser):
    """A page's robots meta tags and canonical links, up to its body."""

    def __init__(self, url: str) -> None:
        super().__init__(convert_charrefs=True)
        self.base = url
        self.noindex: str | None = None
        self.canonicals: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {name: (value or "").strip() for name, value in attrs}
        if tag == "base" and values.get("href"):
            self.base = joined(self.base, values["href"])
        elif tag == "meta" and values.get("name", "").lower() in _META_NAMES:
            if self.noindex is None and says_noindex(values.get("content", "")):
                self.noindex = f'<meta name="{values["name"]}" content="{values["content"]}">'
        elif tag == "link" and "canonical" in values.get("rel", "").lower().split():
            self.canonicals.append(joined(self.base, values.get("href", "")))
        elif tag == "body":
            raise _EndOfHead

    def handle_endtag(self, tag: str) -> None:
        if tag == "head":
            raise _EndOfHead

    def read(self, html: str) -> HeadParser:
        with suppress(_EndOfHead):
            self.feed(html)
            self.close()
        return self


def joined(base: str, href: str) -> str:
    """``href`` made absolute against ``base``; as written where it is no URL (``http://[``)."""
    try:
        return urljoin(base, href)
    except ValueError:
        return href


def same_url(one: str, other: str) -> bool:
    """Whether two absolute URLs are one, as the engine writes URLs (case of the scheme and
    host, default port, percent-encoding, dot segments; the fragment is no part of it)."""
    return _normal(one) == _normal(other)


def _normal(url: str) -> str:
    try:
        scheme, netloc, path, query = split_url(url, "https")
        return join_url(f"{scheme}://{netloc}", path, query)
    except InvalidLocation:
        return url


def page_problems(client: Client, target: Target, url: str) -> list[Problem]:
    """What is wrong with the page at ``url``, requested through ``client``."""
    try:
        response = target.get(client, url)
        if response is None:
            return [Problem("status", f"not under {target.root}: not requested")]
        if exc_info := getattr(response, "exc_info", None):
            return [Problem("error", f"{exc_info[0].__name__}: {exc_info[1]}")]
        return answer_problems(response, url)
    except Exception as exc:  # raised outside the handler, e.g. reading a streamed body
        return [Problem("error", f"{type(exc).__name__}: {exc}")]


def answer_problems(response: HttpResponseBase, url: str) -> list[Problem]:
    status = response.status_code
    if 300 <= status < 400:
        to = joined(url, response.get("Location", "")) if response.has_header("Location") else ""
        return [Problem("redirect", f"{status} to {to or 'nowhere (no Location)'}")]
    if status != 200:
        return [Problem("status", f"{status}")]
    problems = []
    header = response.get("X-Robots-Tag", "")
    if header and header_says_noindex(header):
        problems.append(Problem("noindex", f"X-Robots-Tag: {header}"))
    if response.get("Content-Type", "").partition(";")[0].strip().lower() in _HTML_TYPES:
        html = body(response, HTML_CAP).decode(response.charset or "utf-8", "replace")
        head = HeadParser(url).read(html)
        if head.noindex and not problems:
            problems.append(Problem("noindex", head.noindex))
        others = [href for href in head.canonicals if not same_url(href, url)]
        if others:
            problems.append(Problem("canonical", f"rel=canonical names {others[0]}"))
    return problems


class _Worker(threading.Thread):
    """Requests pages in turn with a client of its own; a daemon, so that one a view keeps past
    the timeout never keeps the command from ending. It closes its database connections."""

    def __init__(self, check: Callable[[Client, str], list[Problem]]) -> None:
        super().__init__(name="sitemapkit_audit", daemon=True)
        self.check = check
        self.jobs: queue.SimpleQueue[str | None] = queue.SimpleQueue()
        self.answers: queue.SimpleQueue[list[Problem]] = queue.SimpleQueue()
        self.start()

    def run(self) -> None:
        client = Client(raise_request_exception=False)
        try:
            while (url := self.jobs.get()) is not None:
                self.answers.put(self.check(client, url))
        finally:
            connections.close_all()


def checked(
    urls: Sequence[str], check: Callable[[Client, str], list[Problem]], timeout: float
) -> Iterator[list[Problem]]:
    """``check(client, url)`` of each URL, waiting at most ``timeout`` seconds for each: a page
    still rendering then is a timeout, and its thread is left to finish alone."""
    worker = _Worker(check)
    try:
        for url in urls:
            worker.jobs.put(url)
            try:
                yield worker.answers.get(timeout=timeout)
            except queue.Empty:
                worker.jobs.put(None)  # it ends once the view returns
                worker = _Worker(check)
                yield [Problem("timeout", f"no answer within {timeout:g} s")]
    finally:
        worker.jobs.put(None)
        worker.join()


def kinds(counts: Mapping[str, int]) -> str:
    """``"canonical 1, noindex 2"``: counts of problems by kind."""
    return ", ".join(f"{kind} {number:,}" for kind, number in sorted(counts.items()))


@dataclass
class Report:
    """One site's audit."""

    site: str | None
    base_url: str
    listed: int
    audited: list[Listed]
    seconds: float

    @property
    def findings(self) -> list[Listed]:
        return [entry for entry in self.audited if entry.problems]

    def counts(self) -> Counter[str]:
        return Counter(problem.kind for entry in self.audited for problem in entry.problems)

    def sections(self) -> dict[str, dict[str, int]]:
        """Problems per kind in each section listing URLs with problems."""
        found: dict[str, Counter[str]] = {}
        for entry in self.findings:
            found.setdefault(entry.section, Counter()).update(p.kind for p in entry.problems)
        return {section: dict(counts) for section, counts in found.items()}

    def summary(self) -> str:
        where = f"site {self.site!r}" if self.site else self.base_url
        sample = "" if len(self.audited) == self.listed else f" of {self.listed:,} listed"
        counts = kinds(self.counts())
        verdict = f"{len(self.findings):,} with problems ({counts})" if counts else "no problems"
        return (
            f"Audited {len(self.audited):,}{sample} URL(s) of {where} in {self.seconds:.1f} s: "
            f"{verdict}."
        )

    def as_dict(self) -> dict[str, Any]:
        return {
            "site": self.site,
            "base_url": self.base_url,
            "listed": self.listed,
            "audited": len(self.audited),
            "seconds": round(self.seconds, 3),
            "counts": dict(self.counts()),
            "sections": self.sections(),
            "problems": [
                {
                    "url": entry.url,
                    "section": entry.section,
                    "file": entry.file,
                    "problems": [{"kind": p.kind, "detail": p.detail} for p in entry.problems],
                }
                for entry in self.findings
            ],
            "summary": self.summary(),
        }


def audit(
    site: SiteConfig | None,
    *,
    sample: int | None = None,
    seed: int = DEFAULT_SEED,
    timeout: float = DEFAULT_TIMEOUT,
    progress: Callable[[int, int], None] | None = None,
) -> Report:
    """Audit every URL the site's sitemaps list (``sample`` of them, chosen by ``seed``)."""
    with _quiet_request_log():
        started = time.monotonic()
        target = Target.of(site)
        client = Client(raise_request_exception=False)
        listed = listed_urls(client, target)
        robots = RobotsRules(client, target)
        chosen = listed
        if sample is not None and sample < len(listed):
            picked = random.Random(seed).sample(range(len(listed)), sample)
            chosen = [listed[number] for number in sorted(picked)]
        check = lambda client, url: page_problems(client, target, url)  # noqa: E731
        answers = checked([entry.url for entry in chosen], check, timeout)
        for done, (entry, problems) in enumerate(zip(chosen, answers, strict=True), 1):
            entry.problems = [*problems, *filter(None, [robots.check(entry.url)])]
            if progress is not None:
                progress(done, len(chosen))
        return Report(target.name, target.root, len(listed), chosen, time.monotonic() - started)


@contextmanager
def _quiet_request_log() -> Iterator[None]:
    """``django.request`` silent while pages are audited: the report names each 404 and each
    view that raised, where the log would send a line, or an ADMINS email, for every one."""
    logger = logging.getLogger("django.request")
    disabled, logger.disabled = logger.disabled, True
    try:
        yield
    finally:
        logger.disabled = disabled
