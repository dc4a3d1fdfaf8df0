"""Why a URL is or is not in the sitemaps: ``sitemapkit_explain`` and the admin's lookup.

From the URL alone: Django's resolver names the view, each section that could list it finds
its item (a model section by its URL route's fields, a list by reading it), and the engine's
own entry factory says what a file writes of that item, or why it skips it.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from typing import Any
from urllib.parse import unquote
from xml.etree import ElementTree

from django.db.models import QuerySet
from django.urls import Resolver404, ResolverMatch, resolve
from django.utils import translation

from django_sitemapkit._compat import ContribUrlsSection
from django_sitemapkit._conf import base_url as default_base_url
from django_sitemapkit._engine import rows
from django_sitemapkit._engine.entries import (
    EntryFactory,
    RenderContext,
    entry_factory,
    new_writer,
    url_infos,
)
from django_sitemapkit._engine.pages import PageNotFound, on_current_site
from django_sitemapkit._engine.rendering import (
    SectionRegistry,
    SiteSections,
    make_context,
    page_filename,
    page_path,
)
from django_sitemapkit._engine.sections import list_cuts
from django_sitemapkit._engine.skiplog import one_render
from django_sitemapkit._protocol.extensionxml import XHTML_NS
from django_sitemapkit._protocol.locations import InvalidLocation, LocationBuilder
from django_sitemapkit._protocol.writer import SITEMAP_NS, escape
from django_sitemapkit._publishing.base import PublishError
from django_sitemapkit._publishing.selection import get_publisher
from django_sitemapkit._reversing import rendering_language, site_languages
from django_sitemapkit._serving.cache import build_holds_writes
from django_sitemapkit._siteconfig import SiteConfig, rendering_site
from django_sitemapkit._sitemaps import ModelSitemap, Sitemap, exclusion

#: Items a section is read through, one by one, when no URL route leads to the row: beyond it
#: the section is named as not searched (a large table with ``location()`` per row).
SCAN_LIMIT = 10_000


@dataclass
class Finding:
    """What one section makes of the URL: listed, or why not (``rule`` in a word or two)."""

    section: str
    item: str = ""
    listed: bool = False
    rule: str = ""
    reason: str = ""
    page: int | None = None
    file: str = ""  # as built, in the build's folder
    served_at: str = ""  # the URL the file is served at
    lastmod: str | None = None
    changefreq: str | None = None
    priority: str | None = None
    alternates: list[tuple[str, str]] = field(default_factory=list)  # (hreflang, href)
    published: str = ""  # "yes", "no" (built before this entry), "no build"


@dataclass
class Explanation:
    asked: str
    site: str | None
    url: str | None = None  # the URL as a sitemap would write it
    rule: str = ""  # why no section can list it, before any section is asked
    reason: str = ""
    notes: list[str] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)

    @property
    def listed(self) -> bool:
        return any(f.listed for f in self.findings)

    def as_dict(self) -> dict[str, Any]:
        return {**asdict(self), "listed": self.listed}


@dataclass
class _Target:
    text: str
    url: str | None  # the asked URL normalised; None when it is not one on the site
    path: str | None  # the path Django resolves
    context: RenderContext
    site: SiteConfig | None
    registry: SectionRegistry

    def names(self, raw: object) -> bool:
        """Whether an item's own location (before the protocol's rules) is the asked URL."""
        return isinstance(raw, str) and raw.strip() in (self.text, self.url, self.path)


def explain(asked: str, registry: SectionRegistry, site: SiteConfig | None = None) -> Explanation:
    """Whether ``asked`` (a URL, or a path on the site) is listed, where and with what; else why."""
    explanation = Explanation(asked, None if site is None else site.name)
    base = default_base_url() if site is None else site.base_url
    sections = registry if site is None else SiteSections(registry, site)
    with rendering_language(), rendering_site(site), one_render():
        context = make_context(base, registry.name)
        target = _target(asked.strip(), context, explanation, site, sections)
        match = _resolve(target, explanation)
        for sitemap in sections:
            explanation.findings.extend(_section_findings(sitemap, target, match))
    if not explanation.findings and not explanation.rule:
        explanation.rule = "no section"
        explanation.reason = "no section's items produce this URL"
    return explanation


def _target(
    text: str,
    context: RenderContext,
    out: Explanation,
    site: SiteConfig | None,
    registry: SectionRegistry,
) -> _Target:
    locations = context.locations
    anywhere = LocationBuilder(locations.base_url, strip_params=())  # the whole site, unstripped
    try:
        url = out.url = locations.build(text)
    except InvalidLocation as exc:
        url, out.rule, out.reason = None, "protocol", f"no sitemap may list it: {exc}"
        if "outside the sitemap directory" in str(exc):
            out.rule = "outside the index's directory"
    path = None
    try:
        unstripped = anywhere.build(text)
    except InvalidLocation:  # another host: no path of this site to resolve
        unstripped = ""
    if url is not None and unstripped != url:
        out.notes.append(f"session ids are stripped from every URL: sitemaps list {url}")
    if unstripped.startswith(anywhere.base_url + "/"):
        path = unquote(unstripped[len(anywhere.base_url) :].partition("?")[0])
    return _Target(text, url, path, context, site, registry)


def _resolve(target: _Target, out: Explanation) -> ResolverMatch | None:
    """The view at the path, in the language its prefix names (``i18n_patterns``)."""
    if target.path is None:
        return None
    language = translation.get_language_from_path(target.path)
    head = target.path.split("/")[1]
    if language is None and translation.check_for_language(head) and head not in site_languages():
        out.rule = out.rule or "language not in LANGUAGES"
        out.reason = out.reason or (
            f"the path starts with language {head!r}, which settings.LANGUAGES does not list: "
            "no sitemap lists a URL in it"
        )
    try:
        with translation.override(language or translation.get_language()):
            return resolve(target.path)
    except Resolver404:
        out.notes.append(f"no URL pattern resolves {target.path}")
        return None


def _section_findings(
    sitemap: Sitemap, target: _Target, match: ResolverMatch | None
) -> list[Finding]:
    factory = entry_factory(sitemap, target.context)
    if isinstance(sitemap, ModelSitemap) and (route := rows.url_route(sitemap)) is not None:
        if match is None or match.view_name != route.url_name:
            return []
        values = match.args if route.kwargs is None else [match.kwargs.get(k) for k in route.kwargs]
        return [
            _row_finding(sitemap, factory, target, pk)
            for pk in _keys(sitemap, dict(zip(route.fields, values, strict=False)))
        ]
    found = []
    for number, item in _scan(sitemap, target):
        if isinstance(item, Finding):
            return [item]
        finding = _verdict(sitemap, factory, item, target)
        if finding is not None:
            finding.page = number
            found.append(_filed(finding, target))
    return found


def _keys(sitemap: ModelSitemap, lookup: dict[str, Any]) -> list[Any]:
    """The keys of every row (listed or not) whose URL fields hold these values."""
    assert sitemap.model is not None
    try:
        return list(sitemap.model._base_manager.filter(**lookup).values_list("pk", flat=True)[:10])
    except (ValueError, TypeError):  # a value the field refuses: no row has it
        return []


def _row_finding(sitemap: ModelSitemap, factory: EntryFactory, target: _Target, pk: Any) -> Finding:
    pages = rows.keyset_pages(sitemap)
    item = f"<{pages.queryset.model._meta.label} pk={pk!r}>"
    columns = rows.row_layout(sitemap).columns
    row = pages.queryset.filter(pk=pk).values_list(*columns).first()
    if row is None:
        rows_of_section = on_current_site(sitemap, sitemap.get_queryset()).filter(pk=pk)
        if sitemap.noindex_field and rows_of_section.filter(**{sitemap.noindex_field: True}):
            reason = f"noindex_field {sitemap.noindex_field!r} is true for it"
        elif rows_of_section.exists():  # and out of the news section's two days
            reason = "a news section lists only the last two days' articles"
        else:
            reason = f"the row is not in {type(sitemap).__name__}.get_queryset()"
        return Finding(sitemap.name, item, rule="excluded", reason=reason)
    finding = _verdict(sitemap, factory, row, target, anyway=True)
    assert finding is not None
    finding.page = _page_of(pages, pk)
    return _filed(finding, target)


def _page_of(pages: Any, pk: Any) -> int | None:
    """The page whose key range holds ``pk`` (compared as the database compares the keys)."""
    to_python = pages.pk_field.to_python
    for page in pages.pages():
        if (page.start_key is None or pk >= to_python(page.start_key)) and (
            page.end_key is None or pk < to_python(page.end_key)
        ):
            return int(page.number)
    return None


def _scan(sitemap: Sitemap, target: _Target) -> Iterator[tuple[int | None, Any]]:
    """(page number, item) of every item of a section without a URL route, or one Finding
    saying that it is too large to read."""
    if isinstance(sitemap, ContribUrlsSection):
        yield from _contrib_infos(sitemap, target)
        return
    # A model's rows noindex_field leaves out too: found, they are explained as excluded.
    items: Any = on_current_site(
        sitemap, sitemap.get_queryset() if isinstance(sitemap, ModelSitemap) else sitemap.items()
    )
    count = items.count() if isinstance(items, QuerySet) else len(items)
    if count > SCAN_LIMIT:
        yield (
            None,
            Finding(
                sitemap.name,
                rule="not searched",
                reason=f"its URLs come from location() per item and it has {count:,} items, more "
                f"than the {SCAN_LIMIT:,} read to find one",
            ),
        )
        return
    if isinstance(sitemap, ModelSitemap):
        pages = rows.keyset_pages(sitemap)
        for obj in items.iterator():
            yield _page_of(pages, obj.pk), obj
    elif isinstance(items, QuerySet):
        per_page = rows.rows_per_page(sitemap)
        queryset = items if items.ordered else items.order_by("pk")
        yield from ((i // per_page + 1, item) for i, item in enumerate(queryset.iterator()))
    else:
        cuts = list_cuts(sitemap, target.context, items)
        numbers = {i: n for n, cut in enumerate(cuts, 1) for i in range(cut.start, cut.end)}
        yield from ((numbers.get(i), item) for i, item in enumerate(items))


def _contrib_infos(sitemap: ContribUrlsSection, target: _Target) -> Iterator[tuple[int, Any]]:
    for number in sitemap.page_numbers():
        try:
            yield from ((number, info) for _i, info in url_infos(sitemap, number, target.context))
        except PageNotFound:  # get_urls() raised: logged
            continue


def _verdict(
    sitemap: Sitemap, factory: EntryFactory, item: Any, target: _Target, *, anyway: bool = False
) -> Finding | None:
    """What a file writes of ``item`` for the asked URL; None if the item is not the URL's
    (``anyway``: it is, the route says so)."""
    finding = Finding(sitemap.name, factory.access.describe(item))
    factory.last_skip = ""
    xml: str | None
    locs: list[str] = []
    try:
        excluded = exclusion(sitemap, item)
    except Exception:  # a user's is_indexable(): the factory tells it as a skip
        excluded = None
    if excluded is not None:
        xml = None
        finding.rule, finding.reason = "excluded", excluded
    else:
        xml, locs = factory.entries(item, set())
    if xml is None:
        if not anyway and not target.names(_raw_location(factory, item)):
            return None
        if not finding.rule:
            finding.rule, finding.reason = "skipped", factory.last_skip
        return finding
    if target.url not in locs:
        if not anyway:
            return None
        finding.rule, finding.reason = "another URL", f"the item is listed as {', '.join(locs)}"
        return finding
    finding.listed = True
    _read_entry(finding, sitemap, xml, len(locs), target.url)
    return finding


def _raw_location(factory: EntryFactory, item: Any) -> object:
    try:
        return factory.location(item)
    except Exception:  # a user's location() may raise anything; the skip says what
        return None


def _read_entry(finding: Finding, sitemap: Sitemap, xml: str, entries: int, loc: str) -> None:
    """The values of ``loc``'s ``<url>``, read from the XML the file would hold."""
    writer = new_writer(sitemap)
    writer.add_xml(xml, entries=entries)
    ns = {"s": SITEMAP_NS, "x": XHTML_NS}
    for url in ElementTree.fromstring(writer.content()).iterfind("s:url", ns):
        if url.findtext("s:loc", namespaces=ns) == loc:
            finding.lastmod = url.findtext("s:lastmod", namespaces=ns)
            finding.changefreq = url.findtext("s:changefreq", namespaces=ns)
            finding.priority = url.findtext("s:priority", namespaces=ns)
            finding.alternates = [
                (link.get("hreflang", ""), link.get("href", ""))
                for link in url.iterfind("x:link", ns)
            ]


def _filed(finding: Finding, target: _Target) -> Finding:
    """``finding`` with its file's names, and whether the published build holds the entry."""
    if finding.page is None:
        return finding
    finding.file = page_filename(finding.section, finding.page)
    path = page_path(finding.section, finding.page, namespace=target.registry.name)
    finding.served_at = target.context.locations.base_url + path
    if not finding.listed or target.url is None:
        return finding
    try:
        publisher = get_publisher(target.site, target.registry.name)
        manifest = publisher.manifest()
    except PublishError:
        manifest = None
    if manifest is None:
        finding.published = "no build"
        return finding
    data = publisher.read(manifest, finding.file) if manifest.record_for(finding.file) else None
    if data is not None and f"<loc>{escape(target.url)}</loc>".encode() in data:
        finding.published = "yes"
        return finding
    finding.published, finding.listed, finding.rule = "no", False, "not yet built"
    finding.reason = f"present live, not yet in the published build of {manifest.built_at}"
    if not build_holds_writes(target.registry, manifest.generation, [finding.section]):
        finding.reason += " (the views serve the section live until the next build)"
    return finding


def explanation_lines(explanation: Explanation, verbosity: int = 1) -> list[str]:
    """``explanation`` as lines for a person: a verdict, then each section's finding; above
    verbosity 1 the entry's values, the file's URL and the build's part too."""
    where = "" if explanation.site is None else f"Site {explanation.site!r}: "
    url = explanation.url or explanation.asked
    listed = [f for f in explanation.findings if f.listed]
    if listed:
        files = ", ".join(f"{f.section!r} in {f.file}" for f in listed)
        lines = [f"{where}{url} is listed: section {files}."]
    else:
        why = explanation.reason or "; ".join(
            f"section {f.section!r}: {f.rule}: {f.reason}" for f in explanation.findings
        )
        lines = [f"{where}{url} is not listed: {why}."]
    lines += [f"  Note: {note}." for note in explanation.notes]
    for finding in explanation.findings:
        lines += _finding_lines(finding, verbosity)
    return lines


def _finding_lines(finding: Finding, verbosity: int) -> list[str]:
    state = "listed" if finding.listed else f"{finding.rule}: {finding.reason}"
    page = "" if finding.page is None else f", page {finding.page} ({finding.file})"
    lines = [f"  Section {finding.section!r}{page}: {finding.item or 'no item'}: {state}"]
    if verbosity < 2 and not finding.listed:
        return lines
    values = (
        ("lastmod", finding.lastmod),
        ("changefreq", finding.changefreq),
        ("priority", finding.priority),
    )
    if finding.listed:
        lines.append("    " + ", ".join(f"{name} {value or 'none'}" for name, value in values))
        for code, href in finding.alternates:
            lines.append(f"    alternate {code}: {href}")
    if verbosity >= 2 and finding.served_at:
        lines.append(f"    file served at {finding.served_at}")
    if verbosity >= 2 and finding.published:
        lines.append(f"    in the published build: {finding.published}")
    return lines
