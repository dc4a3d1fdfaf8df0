"""What is published and whether it is current: ``sitemapkit_status`` and the admin page."""

from __future__ import annotations

import datetime
from dataclasses import asdict, dataclass, field
from typing import Any

from django_sitemapkit.engine.rendering import Sections, SiteSections
from django_sitemapkit.engine.rows import route_report
from django_sitemapkit.publishing.freshness import published_manifest, section_staleness
from django_sitemapkit.publishing.manifest import Manifest
from django_sitemapkit.siteconfig import SiteConfig, rendering_site


@dataclass
class SectionStatus:
    section: str
    published: bool
    urls: int = 0
    files: int = 0
    newest_lastmod: str | None = None
    skipped: int = 0
    stale: bool = False
    # Why the section is stale, in a few words, or "".
    reason: str = ""
    # A model section's URLs: a URL pattern filled from columns (the fast
    # path) or location() per row, and why (see engine/rows.py).
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

    @property
    def stale(self) -> bool:
        return any(section.stale for section in self.sections)

    def as_dict(self) -> dict[str, Any]:
        return {**asdict(self), "stale": self.stale}


def site_status(sitemaps: Sections, site: SiteConfig | None = None) -> SiteStatus:
    """The published build of ``site`` (None: the only one) section by section (queries)."""
    if site is not None:
        sitemaps = SiteSections(sitemaps, site)
    manifest = published_manifest(site, sitemaps.name)
    name = None if site is None else site.name
    if manifest is None:
        return SiteStatus(
            name,
            published=False,
            sections=[
                SectionStatus(s, False, stale=True, reason="never built")
                for s in sitemaps.sections()
            ],
        )
    built_at = to_seconds(datetime.datetime.fromisoformat(manifest.built_at))
    status = SiteStatus(name, True, manifest.generation, built_at, manifest.seconds)
    with rendering_site(site):
        for sitemap in sitemaps:
            status.sections.append(_section_status(sitemap.name, manifest))
            staleness = section_staleness(sitemap, manifest, sitemaps.name)
            status.sections[-1].stale = staleness.stale
            status.sections[-1].reason = staleness.reason
            report = route_report(sitemap)
            if report is not None:
                status.sections[-1].fast_path, status.sections[-1].urls_from = report
    return status


def _section_status(name: str, manifest: Manifest) -> SectionStatus:
    records = [record for record in manifest.pages if record.section == name]
    lastmods = [r.lastmod_value() for r in records if r.lastmod is not None]
    newest = max((value for value in lastmods if value is not None), default=None)
    return SectionStatus(
        name,
        published=bool(records),
        urls=sum(r.urls for r in records),
        files=len(records),
        newest_lastmod=None if newest is None else to_seconds(newest),
        skipped=sum(r.skipped for r in records),
    )


def to_seconds(value: datetime.datetime) -> str:
    """``value`` in ISO 8601 to the second, as sitemaps write lastmods: no microseconds."""
    return value.replace(microsecond=0).isoformat()


def status_lines(status: SiteStatus) -> list[str]:
    """``status`` as the command prints it: a line for the build, then one per section."""
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
    return lines
