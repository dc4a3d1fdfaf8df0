"""What a build changed, section by section, and the two verdicts drawn from it before anything
is published: the shrink guard (refuse a set that lost most of a section) and the lastmod churn
warning (most dates moved while the URLs did not). Recorded in the manifest's history
(docs/building.md)."""

from __future__ import annotations

import logging
from collections import Counter

from django_sitemapkit._building.pagefiles import BuildError, BuildResult
from django_sitemapkit._conf import get_settings
from django_sitemapkit._publishing.base import BuildRecord, Manifest, SectionChange

logger = logging.getLogger("django_sitemapkit")

# A section "barely moves" while its URL count changes by less than this share: more than
# LASTMOD_CHURN_WARNING of its dates moving then is no wave of real edits.
CHURN_STEADY = 0.1
# Smaller sections are never warned about: one edit moves a large share of their dates.
CHURN_MIN_URLS = 10
CHURN_ADVICE = "see 'Lastmod churn' in docs/building.md"


def listed(manifest: Manifest) -> Counter[str]:
    """URLs listed per section in ``manifest``'s files."""
    counts: Counter[str] = Counter()
    for record in manifest.pages:
        counts[record.section] += record.urls
    return counts


def account(
    manifest: Manifest,
    previous: Manifest | None,
    diff: dict[str, SectionChange] | None,
    result: BuildResult,
    *,
    force: bool,
) -> None:
    """Fill ``result``'s figures and ``manifest``'s history; raise BuildError when the shrink
    guard refuses the set (a dry run only reports it). ``diff``: per section, the URLs added,
    removed and redated on the pages written, None when unknown (a dry run)."""
    before = Counter() if previous is None else listed(previous)
    _section_changes(manifest, previous, diff or {}, result)
    refusal = shrink_refusal(before, listed(manifest))
    if refusal is not None:
        if not (force or result.dry_run):
            raise BuildError(refusal)
        result.forced, result.refused = force, refusal
    result.churn = churned(result.changes, before)
    limit = get_settings().HISTORY
    record = BuildRecord(
        generation=manifest.generation,
        built_at=manifest.built_at,
        seconds=manifest.seconds or 0.0,
        sections=result.changes,
        forced=result.forced,
        churn=result.churn,
    )
    history = ([] if previous is None else previous.history) + [record]
    manifest.history = history[-limit:] if limit > 0 else []


def _section_changes(
    manifest: Manifest,
    previous: Manifest | None,
    diff: dict[str, SectionChange],
    result: BuildResult,
) -> None:
    """Per section of the set: its pages' figures, the diff's (all added: a first build)."""
    # Pages whose every URL was skipped have no record: rendering counted them already.
    changes = result.changes
    for record in manifest.pages:
        change = changes.setdefault(record.section, SectionChange())
        change.listed += record.urls
        change.skipped += record.skipped
        change.excluded += record.excluded
    for name in manifest.configs.keys() | diff.keys():
        change = changes.setdefault(name, SectionChange())
        found = diff.get(name, SectionChange())
        change.added = change.listed if previous is None else found.added
        change.removed, change.lastmod_moved = found.removed, found.lastmod_moved
    result.changes = dict(sorted(changes.items()))


def shrink_refusal(before: Counter[str], after: Counter[str]) -> str | None:
    """Why SHRINK_GUARD refuses a set listing ``after`` URLs per section, the last ``before``;
    None when it does not (or is off)."""
    limit = get_settings().SHRINK_GUARD
    if not limit:
        return None
    problems = []
    for section, old in sorted(before.items()):
        new = after.get(section, 0)
        share = (old - new) / old if old else 0.0
        if share > limit or (old and not new):
            problems.append(
                f"section {section!r} would go from {old:,} to {new:,} URLs (-{share * 100:.0f} %)"
            )
    if not problems:
        return None
    return (
        f"{'; '.join(problems)}, more than SHRINK_GUARD {limit * 100:g} %. "
        "Run with --force (build(force=True)) to publish it."
    )


def churned(changes: dict[str, SectionChange], before: Counter[str]) -> list[str]:
    """Sections most of whose lastmods moved while their URL count barely did; each logged."""
    share = get_settings().LASTMOD_CHURN_WARNING
    if not share:
        return []
    found = []
    for name, change in changes.items():
        old = before.get(name, 0)
        steady = abs(change.listed - old) < CHURN_STEADY * old
        if old >= CHURN_MIN_URLS and steady and change.lastmod_moved > share * change.listed:
            found.append(name)
            logger.warning(
                "%s of %s URLs of section %r got a new lastmod in one build while the section "
                "barely changed: a backfill or migration touched their date? Search engines "
                "distrust sitemaps whose dates all move at once; %s.",
                f"{change.lastmod_moved:,}",
                f"{change.listed:,}",
                name,
                CHURN_ADVICE,
            )
    return found
