"""Pre-rendering every sitemap file into a storage for ``sitemapkit_build``, with the views'
own rendering code, so a built file and a served one are the same bytes."""

from __future__ import annotations

import contextlib
import datetime
import hashlib
import inspect
import time
import uuid
from collections.abc import Iterator
from typing import Any

from django.db.models import QuerySet
from django.urls import get_resolver

from django_sitemapkit._building.history import account
from django_sitemapkit._building.pagefiles import (
    BuildError,
    BuildResult,
    PageFiles,
    Progress,
    SectionPages,
    changed_lastmod,
    sha256,
)
from django_sitemapkit._conf import BaseUrlError, base_url, get_settings
from django_sitemapkit._engine.pages import PageNotFound
from django_sitemapkit._engine.rendering import (
    INDEX_NAME,
    IndexEntry,
    RenderedFile,
    SectionRegistry,
    SiteSections,
    empty_site_file,
    gzipped,
    make_context,
    stylesheet,
    stylesheet_href,
    write_index,
)
from django_sitemapkit._engine.rows import url_route
from django_sitemapkit._engine.skiplog import one_render
from django_sitemapkit._indexnow import announce, watch
from django_sitemapkit._publishing.base import FileRecord, Manifest, Publisher, Transaction
from django_sitemapkit._publishing.selection import get_publisher
from django_sitemapkit._reversing import rendering_language
from django_sitemapkit._siteconfig import SiteConfig, SitesError, one_site, rendering_site
from django_sitemapkit._sitemaps import ModelSitemap, Sitemap, StaticViewSitemap, UrlName

# Defined in pagefiles.py, imported from here.
__all__ = ["BuildError", "BuildResult", "Builder", "Progress"]

# Classes of this package: their code is the package version's, not the project's.
_OWN_MODULE_PREFIX = "django_sitemapkit."


class Builder:
    def __init__(
        self,
        *,
        publisher: Publisher | None = None,
        sitemaps: SectionRegistry,
        full: bool = False,
        dry_run: bool = False,
        progress: Progress | None = None,
        rerender: bool = False,
        site: str | SiteConfig | None = None,
        force: bool = False,
    ) -> None:
        try:
            self.site = site = one_site(site)
        except (LookupError, SitesError) as exc:
            raise BuildError(str(exc)) from None
        if site is not None:
            self.base_url = site.base_url
            sitemaps = SiteSections(sitemaps, site)
        else:
            try:
                self.base_url = base_url()
            except BaseUrlError as exc:
                raise BuildError(str(exc)) from None
        self.publisher = publisher or get_publisher(site, sitemaps.name)
        self.sitemaps = sitemaps
        self.full = full
        self.rerender = rerender
        self.dry_run = dry_run
        # Publish past the shrink guard.
        self.force = force
        self.gzip = get_settings().GZIP
        self.progress = progress
        self.started = datetime.datetime.now(tz=datetime.UTC).replace(microsecond=0)
        self._start = time.perf_counter()
        # A build died writing into the published set (a flat storage's).
        self._interrupted = False

    def run(self, sections: list[str] | None = None, *, wait: float = 0) -> BuildResult:
        unknown = sorted(set(sections or []) - set(self.sitemaps.sections()))
        if unknown:
            where = "registered" if self.site is None else f"listed on site {self.site.name!r}"
            raise BuildError(
                f"Unknown section {', '.join(map(repr, unknown))}; {where}: "
                f"{', '.join(self.sitemaps.sections()) or 'none'}."
            )
        self._start = time.perf_counter()
        with (
            self.publisher.lock(wait=wait),
            rendering_language(),
            rendering_site(self.site),
            one_render(),
        ):
            result, transaction = self._run(set(sections or []))
        result.seconds = time.perf_counter() - self._start
        announce(transaction, self.base_url, self.sitemaps.name)
        return result

    def _run(self, asked: set[str]) -> tuple[BuildResult, Transaction | None]:
        result = BuildResult(dry_run=self.dry_run)
        if not self.dry_run:
            result.cleaned = self.publisher.cleanup()
        previous = self.publisher.manifest()
        if self.publisher.interrupted():
            # The files may not be what the manifest says: every one is written again.
            self.full = self._interrupted = True
        manifest = self._new_manifest(previous)
        selected, unpublished = self._select(asked, previous, result)
        transaction = None if self.dry_run else self.publisher.begin(manifest, previous)
        watching = watch(transaction, self.publisher, previous, self.base_url)
        transaction = watching or transaction
        try:
            self._build(manifest, previous, transaction, selected, result)
            diff = None if watching is None else watching.changes(manifest)
            account(manifest, previous, diff, result, force=self.force)
            self._publish(manifest, previous, transaction, result)
        except BaseException:
            if transaction is not None:
                transaction.abort()
            raise
        with_pages = {record.section for record in manifest.pages}
        result.first_published = sorted(unpublished & with_pages)
        return result, transaction

    def _new_manifest(self, previous: Manifest | None) -> Manifest:
        return Manifest(
            generation=f"{self.started:%Y%m%dT%H%M%S}-{uuid.uuid4().hex[:8]}",
            built_at=self.started.isoformat(),
            base_url=self.base_url,
            gzip=self.gzip,
            previous_generation=None if previous is None else previous.generation,
            stylesheet=stylesheet_href(self.sitemaps.name),
            stylesheet_sha256="" if (sheet := stylesheet()) is None else sha256(sheet.content),
        )

    def _select(
        self, asked: set[str], previous: Manifest | None, result: BuildResult
    ) -> tuple[set[str], set[str]]:
        """The sections to build (none: every one), and those built unasked as never published;
        ``result`` tells why every one is built, where the others' pages cannot stay."""
        if not asked:
            return set(), set()
        result.every_section_because = self._stale_pages_reason(previous)
        if result.every_section_because is not None:
            return set(), set()
        # A section with no published pages has no files to keep: left out, the index would miss it.
        assert previous is not None
        have_pages = {record.section for record in previous.pages}
        unpublished = set(self.sitemaps.sections()) - asked - have_pages
        return asked | unpublished, unpublished

    def _build(
        self,
        manifest: Manifest,
        previous: Manifest | None,
        transaction: Transaction | None,
        selected: set[str],
        result: BuildResult,
    ) -> None:
        configs = {sitemap.name: config_fingerprint(sitemap) for sitemap in self.sitemaps}
        old_configs = {} if previous is None else previous.configs
        # A page's .gz can be kept only where the last build wrote one.
        rewrite = self.full or (self.gzip and not (previous is not None and previous.gzip))
        files = PageFiles(
            transaction, result, rewrite=rewrite, gzip=self.gzip, started=self.started
        )
        pages = SectionPages(
            self.sitemaps,
            files,
            selected=selected,
            old={} if previous is None else {(r.section, r.number): r for r in previous.pages},
            context=make_context(self.base_url, self.sitemaps.name, self.sitemaps),
            keep_sections=self._keep_sections(configs, previous, selected, result),
            progress=self.progress,
        )
        try:
            for sitemap in self.sitemaps:
                if pages.wanted(sitemap):
                    result.sections += 1
                    manifest.configs[sitemap.name] = configs[sitemap.name]
                    manifest.pages.extend(pages.build(sitemap))
                    continue
                result.sections_kept += 1
                if sitemap.name in old_configs:
                    manifest.configs[sitemap.name] = old_configs[sitemap.name]
                manifest.pages.extend(pages.keep_published(sitemap))
            files.settle()
        finally:
            files.close()
        manifest.seconds = round(time.perf_counter() - self._start, 3)

    def _keep_sections(
        self,
        configs: dict[str, str],
        previous: Manifest | None,
        selected: set[str],
        result: BuildResult,
    ) -> set[str]:
        """Sections whose unchanged pages may be kept; sets ``result.reconfigured``: the others."""
        if self.full or self.rerender or self._stale_pages_reason(previous) is not None:
            return set()
        assert previous is not None
        result.reconfigured = [
            name
            for name, config in configs.items()
            if previous.configs.get(name, config) != config and (not selected or name in selected)
        ]
        return set(configs) - set(result.reconfigured)

    def _stale_pages_reason(self, previous: Manifest | None) -> str | None:
        """Why no published page can be kept as built (URLs, .gz, stylesheet differ), or None."""
        if previous is None:
            return "nothing was published before"
        if self._interrupted:
            return "a build died while writing to the storage"
        if previous.base_url != self.base_url:
            return f"BASE_URL was {previous.base_url} at the last build"
        if self.gzip and not previous.gzip:
            return "GZIP was off at the last build"
        if previous.stylesheet != stylesheet_href(self.sitemaps.name):
            # Every file's head names the stylesheet (or does not).
            return f"the files' stylesheet was {previous.stylesheet or 'off'} at the last build"
        return None

    def _publish(
        self,
        manifest: Manifest,
        previous: Manifest | None,
        transaction: Transaction | None,
        result: BuildResult,
    ) -> None:
        """Write the index and publish the set, unless nothing changed and the build is not full."""
        index = self._index(manifest.pages)
        manifest.index_sha256 = sha256(index.content)
        manifest.index_lastmod = self._index_file_lastmod(index, previous, manifest.index_sha256)
        files = {INDEX_NAME: index.content}
        if manifest.gzip:
            files[INDEX_NAME + ".gz"] = gzipped(index.content)
        result.bytes += len(index.content)
        current = set(manifest.files())
        result.removed = (
            [] if previous is None else [n for n in previous.files() if n not in current]
        )
        digests = (manifest.index_sha256, manifest.stylesheet_sha256)
        same = (
            previous is not None and (previous.index_sha256, previous.stylesheet_sha256) == digests
        )
        if same and not (self.full or result.written or result.removed):
            result.unchanged += len(files)
            if transaction is not None:
                transaction.abort()  # nothing changed: keep the published set as it is
            return
        result.written.extend(files)
        result.bytes_written += sum(map(len, files.values()))
        if transaction is None:
            return
        # The stylesheet every file's <?xml-stylesheet?> names (not counted as a sitemap file).
        if (sheet := stylesheet()) is not None:
            if previous is not None and previous.stylesheet_sha256 == manifest.stylesheet_sha256:
                transaction.keep(sheet.name)
            else:
                files[sheet.name] = sheet.content
        transaction.publish(files, manifest)
        result.published = True

    def _index(self, pages: list[FileRecord]) -> RenderedFile:
        try:
            return write_index(
                (IndexEntry(r.section, r.number, r.index_lastmod_value()) for r in pages),
                base_url=self.base_url,
                namespace=self.sitemaps.name,
            )
        except PageNotFound:
            # No section has a URL yet: what the views serve then (see there).
            return empty_site_file(base_url=self.base_url, namespace=self.sitemaps.name)

    def _index_file_lastmod(
        self, index: RenderedFile, previous: Manifest | None, digest: str
    ) -> str | None:
        """The index's Last-Modified: its newest entry's lastmod, None when an entry has none;
        later than the old one's whenever its bytes changed (see ``changed_lastmod``)."""
        if previous is not None and previous.index_sha256 == digest:
            return previous.index_lastmod
        before = None if previous is None else previous.index_lastmod
        return changed_lastmod(index.last_modified, previous is not None, before, self.started)


def config_fingerprint(sitemap: Sitemap) -> str:
    """A digest of what shapes a section's files besides its rows (which figures cannot tell): its
    class's name and public attributes, the project's methods' source, the routes of the URL names
    it reverses (or its model's ``get_absolute_url``), and the settings that change every file."""
    text = "".join(part + "\0" for part in _config_parts(sitemap))
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:32]


def _config_parts(sitemap: Sitemap) -> Iterator[str]:
    cls = type(sitemap)
    yield f"{cls.__module__}.{cls.__qualname__}"
    conf = get_settings()
    yield f"strip={sorted(conf.STRIP_QUERY_PARAMS)!r} stylesheet={conf.STYLESHEET!r}"
    yield from _attributes(sitemap)
    for klass in cls.__mro__:
        if klass.__module__.startswith(_OWN_MODULE_PREFIX) or klass is object:
            continue
        for name, member in sorted(vars(klass).items()):
            function = getattr(member, "__func__", member)
            if inspect.isfunction(function):
                yield f"{klass.__qualname__}.{name}: {_source(function)}"
    for name in sorted(_url_names(sitemap)):
        yield f"url {name}: {_routes(name)}"
    model = sitemap.get_model()
    if model is not None:
        yield f"model {model._meta.label}"
        if not getattr(sitemap, "url_name", None):
            yield _source(getattr(model, "get_absolute_url", None))


def _attributes(sitemap: Sitemap) -> Iterator[str]:
    for name in sorted(n for n in dir(sitemap) if not n.startswith("_")):
        try:
            value = getattr(sitemap, name)
        except Exception:
            continue
        if inspect.ismethod(value) or inspect.isfunction(value) or isinstance(value, type):
            continue
        # Stable from one process to the next: no memory address.
        if callable(value):
            text = f"<callable {getattr(value, '__qualname__', type(value).__qualname__)}>"
        elif " at 0x" in (text := _config_text(value)):
            text = f"<{type(value).__qualname__}>"
        yield f"{name}={text}"


def _config_text(value: Any) -> str:
    """``repr(value)``, but a QuerySet's (in ``lastmod_sources``) is its SQL: its repr would
    read rows, and change with them."""
    if isinstance(value, dict):
        return (
            "{" + ", ".join(f"{key!r}: {_config_text(item)}" for key, item in value.items()) + "}"
        )
    if isinstance(value, QuerySet):
        try:
            return f"<QuerySet {value.query}>"
        except Exception:  # no SQL for it (an empty result): rendering will tell
            return f"<QuerySet of {value.model._meta.label}>"
    return repr(value)


def _source(function: Any) -> str:
    if function is None:
        return ""
    try:
        return inspect.getsource(function)
    except (OSError, TypeError):
        # No source at hand (built in a shell, a frozen app): its bytecode stands in.
        code = getattr(function, "__code__", None)
        return "" if code is None else code.co_code.hex()


def _url_names(sitemap: Sitemap) -> set[str]:
    if isinstance(sitemap, ModelSitemap):
        route = url_route(sitemap)
        return set() if route is None else {route.url_name}
    names = set()
    for entry in sitemap.url_names if isinstance(sitemap, StaticViewSitemap) else []:
        with contextlib.suppress(Exception):
            names.add(UrlName.of(entry).name)
    return names


def _routes(name: str) -> str:
    """The patterns the URL ``name`` (``namespace:name`` too) reverses to."""
    resolver = get_resolver()
    *namespaces, view = name.split(":")
    prefix = ""
    try:
        for namespace in namespaces:
            found, resolver = resolver.namespace_dict[namespace]
            prefix += found
        possibilities = resolver.reverse_dict.getlist(view)
    except Exception:
        return "unresolvable"
    return prefix + "|".join(
        sorted(pattern for _, pattern, _, _ in possibilities if isinstance(pattern, str))
    )
