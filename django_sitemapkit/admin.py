"""What is published and whether it is current: ``sitemapkit_status`` and the admin's pages.

Unlike the views, which go by the writes the app saw (_serving/cache.py), these scan each model
section's pages (one aggregate query a section). The admin pages hang on a proxy model so that
they appear in the admin index for staff with its "view" permission; the changelist's URL shows
the status instead of rows, and beside it the published build is browsed (_browsing.py).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any
from xml.etree import ElementTree

from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseNotAllowed, QueryDict
from django.template.response import TemplateResponse
from django.urls import URLPattern, path
from django.utils.http import urlencode

from django_sitemapkit._browsing import (
    PublishedSet,
    UrlEntry,
    UrlList,
    at_second,
    history_chart,
    published_set,
    to_seconds,
)
from django_sitemapkit._engine import rows
from django_sitemapkit._engine.rendering import (
    SectionRegistry,
    SiteSections,
    make_context,
    site_time_zone,
)
from django_sitemapkit._engine.rows import route_report
from django_sitemapkit._engine.sections import pages_listing
from django_sitemapkit._engine.skiplog import one_render
from django_sitemapkit._explain import explain, explanation_lines
from django_sitemapkit._publishing.base import (
    BuildRecord,
    Manifest,
    PublishError,
    churn_warning,
)
from django_sitemapkit._publishing.selection import get_publisher
from django_sitemapkit._reversing import rendering_language
from django_sitemapkit._serving.cache import build_holds_writes
from django_sitemapkit._siteconfig import SiteConfig, rendering_site, selected_sites, site_named
from django_sitemapkit._sitemaps import ModelSitemap, Sitemap
from django_sitemapkit._sites import registries
from django_sitemapkit._sites import site as default_registry
from django_sitemapkit.models import SitemapStatus

TEMPLATE = "admin/django_sitemapkit/status.html"
#: A file's URLs shown on one page of the admin's browser.
URLS_PER_PAGE = 100


@dataclass
class SectionStatus:
    section: str
    published: bool
    urls: int = 0
    files: int = 0
    newest_lastmod: str | None = None
    skipped: int = 0
    stale: bool = False
    reason: str = ""  # why the section is stale, in a few words
    # A model section's URLs: from columns (the fast path) or location() per row, and why.
    fast_path: bool | None = None
    urls_from: str = ""


@dataclass
class SiteStatus:
    site: str | None
    published: bool
    generation: str | None = None
    built_at: str | None = None
    seconds: float | None = None
    sections: list[SectionStatus] = field(default_factory=list)
    # The published builds, oldest first, this one last (the manifest's history).
    history: list[BuildRecord] = field(default_factory=list)

    @property
    def stale(self) -> bool:
        return any(section.stale for section in self.sections)

    @property
    def churn_warning(self) -> str:
        """The latest build's lastmod churn warning, or ""."""
        churn = self.history[-1].churn if self.history else []
        return churn_warning(churn) if churn else ""

    def as_dict(self) -> dict[str, Any]:
        return {**asdict(self), "stale": self.stale}


def site_status(registry: SectionRegistry, site: SiteConfig | None = None) -> SiteStatus:
    """The published build of ``site`` (None: the only one) section by section (queries)."""
    if site is not None:
        registry = SiteSections(registry, site)
    try:
        manifest = get_publisher(site, registry.name).manifest()
    except PublishError:
        manifest = None
    name = None if site is None else site.name
    if manifest is None:
        never = [
            SectionStatus(s, False, stale=True, reason="never built") for s in registry.sections()
        ]
        return SiteStatus(name, published=False, sections=never)
    built_at = at_second(manifest.built_at)
    with rendering_site(site):
        sections = [_section_status(sitemap, manifest, registry) for sitemap in registry]
    return SiteStatus(
        name, True, manifest.generation, built_at, manifest.seconds, sections, manifest.history
    )


def _section_status(
    sitemap: Sitemap, manifest: Manifest, registry: SectionRegistry
) -> SectionStatus:
    records = [record for record in manifest.pages if record.section == sitemap.name]
    newest = max((v for r in records if (v := r.lastmod_value()) is not None), default=None)
    reason = _stale_because(sitemap, manifest, registry.name)
    if not reason and not build_holds_writes(registry, manifest.generation, [sitemap.name]):
        reason = "saved since the build: served live"
    fast_path, urls_from = route_report(sitemap) or (None, "")
    return SectionStatus(
        sitemap.name,
        published=bool(records),
        urls=sum(r.urls for r in records),
        files=len(records),
        newest_lastmod=None if newest is None else to_seconds(newest),
        skipped=sum(r.skipped for r in records),
        stale=bool(reason),
        reason=reason,
        fast_path=fast_path,
        urls_from=urls_from,
    )


def _stale_because(sitemap: Sitemap, manifest: Manifest, namespace: str) -> str:
    """Why ``sitemap``'s live pages differ from what ``manifest`` published of it, or "".

    A row added by ``bulk_create`` changes a count; an edit moves a lastmod. A
    model section without a lastmod field is compared by row counts only,
    and a list section's items are the project's code, published as they were.
    """
    if not isinstance(sitemap, ModelSitemap):
        return ""
    published = {r.number: r for r in manifest.pages if r.section == sitemap.name}
    live = {f.number: f for f in rows.keyset_pages(sitemap).figures(site_time_zone())}
    missing = set(live) - set(published)
    if missing:
        # A build leaves out (and the index does not name) a page whose every
        # row is skipped: probed as the live index probes it.
        with rendering_language(), one_render():
            context = make_context(manifest.base_url, namespace)
            unpublished = pages_listing(sitemap, context, sorted(missing))
        if unpublished:
            return f"{len(unpublished)} pages not published"
    empty = set(published) - set(live)
    if empty:
        return f"{len(empty)} pages now empty"
    was = sum(r.urls + r.skipped + r.excluded for r in published.values())
    now = sum(f.count for f in live.values())
    for number, figures in sorted(live.items()):
        before = published.get(number)  # None: split off while rendering, or all rows skipped
        if before is not None and before.fingerprint != figures.fingerprint:
            return f"page {number} changed ({now - was:+,} rows in all)"
    return ""


def status_lines(status: SiteStatus, builds: int | None = 10) -> list[str]:
    """``status`` as the command prints it: a line for the build, one per section, then the
    history, newest first (the last ``builds``; None: all)."""
    where = "" if status.site is None else f"Site {status.site!r}: "
    if not status.published:
        return [f"{where}no published build: run sitemapkit_build."]
    took = "" if status.seconds is None else f" in {status.seconds:.2f} s"
    state = "STALE" if status.stale else "current"
    lines = [f"{where}build {status.generation} of {status.built_at}{took}: {state}."]
    for s in status.sections:
        state = f"STALE ({s.reason})" if s.stale else "current"
        lines.append(
            f"  {s.section}: {s.urls:,} URLs in {s.files} files, {s.skipped:,} skipped, "
            f"newest lastmod {s.newest_lastmod or 'none'}; {state}"
        )
        if s.urls_from:
            lines.append(f"    URLs: {s.urls_from}")
    if status.churn_warning:
        lines.append(f"  {status.churn_warning}")
    shown = status.history[::-1][:builds]
    if shown:
        lines.append(f"  Last {len(shown)} of {len(status.history)} builds kept, newest first:")
        lines.extend(f"    {history_line(build)}" for build in shown)
    return lines


def history_line(build: BuildRecord) -> str:
    """One build of the history: when, how long, and per section listed (+added -removed,
    lastmods moved)."""
    sections = "; ".join(
        f"{name} {c.listed:,} (+{c.added:,} -{c.removed:,}, {c.lastmod_moved:,} redated)"
        for name, c in build.sections.items()
    )
    flags = " forced past the shrink guard;" if build.forced else ""
    if build.churn:
        flags += f" lastmod churn in {', '.join(build.churn)};"
    return f"{build.built_at} ({build.seconds:.2f} s):{flags} {sections or 'no sections'}"


if TYPE_CHECKING:
    StatusAdminBase = admin.ModelAdmin[SitemapStatus]
else:  # ModelAdmin is generic only in django-stubs
    StatusAdminBase = admin.ModelAdmin


@admin.register(SitemapStatus)
class SitemapStatusAdmin(StatusAdminBase):
    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    has_change_permission = has_delete_permission = has_add_permission

    def get_urls(self) -> list[URLPattern]:
        opts = self.model._meta
        name = f"{opts.app_label}_{opts.model_name}"
        wrap = self.admin_site.admin_view
        return [
            path("", wrap(self.changelist_view), name=f"{name}_changelist"),
            path("published/", wrap(self.published_view), name=f"{name}_published"),
            path("published/file/", wrap(self.file_view), name=f"{name}_file"),
            path("history/", wrap(self.builds_view), name=f"{name}_history"),
        ]

    def _refusal(self, request: HttpRequest) -> HttpResponse | None:
        """Every page's guard: read-only, for staff with the view permission."""
        if not self.has_view_permission(request):
            raise PermissionDenied
        if request.method not in ("GET", "HEAD"):
            return HttpResponseNotAllowed(["GET", "HEAD"])
        return None

    def _page(
        self, request: HttpRequest, template: str, title: str, **context: Any
    ) -> TemplateResponse:
        return TemplateResponse(
            request,
            f"admin/django_sitemapkit/{template}",
            {
                **self.admin_site.each_context(request),
                "title": title,
                "opts": self.model._meta,
                **context,
            },
        )

    def changelist_view(
        self, request: HttpRequest, extra_context: dict[str, Any] | None = None
    ) -> HttpResponse:
        if (refusal := self._refusal(request)) is not None:
            return refusal
        sites = selected_sites(None)
        statuses = [site_status(default_registry, site) for site in sites]
        asked = request.GET.get("url", "").strip()[:4096]  # no URL is longer: 2,048 listed
        # The command's answer, line by line: one lookup, two ways to print it.
        answers = [
            explanation_lines(explain(asked, default_registry, s), 2) for s in sites if asked
        ]
        context = {"statuses": statuses, "asked": asked, "answers": answers}
        return self._page(
            request, "status.html", "Sitemap status", **context, **(extra_context or {})
        )

    def published_view(self, request: HttpRequest) -> HttpResponse:
        if (refusal := self._refusal(request)) is not None:
            return refusal
        return self._page(request, "published.html", "Published sitemaps", sets=published_sets())

    def builds_view(self, request: HttpRequest) -> HttpResponse:
        if (refusal := self._refusal(request)) is not None:
            return refusal
        charts = [
            (s, history_chart(s.manifest.history) if s.manifest and s.manifest.history else None)
            for s in published_sets()
        ]
        return self._page(request, "history.html", "Sitemap build history", charts=charts)

    def file_view(self, request: HttpRequest) -> HttpResponse:
        """One published file's URLs, searched (``q``) and paginated (``page``)."""
        if (refusal := self._refusal(request)) is not None:
            return refusal
        chosen = _chosen_set(request.GET)
        name = request.GET.get("file", "")
        record = chosen.manifest.record_for(name) if chosen.manifest else None
        data = None if record is None or record.name != name else chosen.read(record)
        if record is None or data is None:
            raise Http404(f"The published build has no file {name!r}.")
        query = request.GET.get("q", "").strip()[:2048]
        problem = ""
        paginator: Paginator[UrlEntry] = Paginator(UrlList(data, query, record.urls), URLS_PER_PAGE)
        try:
            page = paginator.get_page(request.GET.get("page"))
            page_range = list(paginator.get_elided_page_range(page.number))
        except ElementTree.ParseError as exc:
            page, page_range, problem = None, [], f"The published file cannot be read: {exc}."
        keep = {"registry": chosen.registry, "site": chosen.site or "", "file": name}
        return self._page(
            request,
            "file.html",
            name,
            chosen=chosen,
            record=record,
            query=query,
            page=page,
            page_range=page_range,
            problem=problem,
            keep=urlencode({**keep, "q": query}),
        )


def published_sets() -> list[PublishedSet]:
    """Every registry's published build for every site, the default registry first; another
    registry only where it has sections."""
    chosen = sorted(
        (r for r in registries() if r is default_registry or r.sections()),
        key=lambda r: (r is not default_registry, r.name),
    )
    return [published_set(r.name, site) for r in chosen for site in selected_sites(None)]


def _chosen_set(query: QueryDict) -> PublishedSet:
    """The set a request's ``registry`` and ``site`` name; Http404 for any other."""
    registry, site = query.get("registry", ""), query.get("site", "")
    if registry not in {r.name for r in registries()}:
        raise Http404("No such SitemapSite.")
    try:
        config = site_named(site) if site else None
    except LookupError:
        raise Http404("No such site.") from None
    if (config is None) != (selected_sites(None) == [None]):
        raise Http404("Name a site of SITEMAPKIT['SITES'], and only then.")
    return published_set(registry, config)
