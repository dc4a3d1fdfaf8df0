"""``manage.py sitemapkit_build``: pre-render and publish every sitemap file."""

from __future__ import annotations

import dataclasses
import json
import sys
from collections.abc import Callable
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from django_sitemapkit._building.builder import Builder, BuildError, BuildResult
from django_sitemapkit._engine.rendering import INDEX_AT_ROOT_HINT, IndexDirectory
from django_sitemapkit._protocol.writer import IndexFull
from django_sitemapkit._publishing.base import BuildLocked, PublishError
from django_sitemapkit._siteconfig import SiteConfig, add_site_option, chosen_sites
from django_sitemapkit._sites import site


class Command(BaseCommand):
    help = (
        "Render the sitemap index and every page of every section into the configured storage, "
        "publishing the new set atomically. Incremental: only changed files are written."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--section",
            action="append",
            dest="sections",
            metavar="NAME",
            help="Rebuild only this section (repeatable); other sections keep their files.",
        )
        parser.add_argument(
            "--full", action="store_true", help="Rewrite every file, changed or not."
        )
        parser.add_argument(
            "--rerender",
            action="store_true",
            help=(
                "Render every page and write those whose bytes changed, even where row counts "
                "and lastmods say nothing did (after raw SQL or update() that left updated_at)."
            ),
        )
        parser.add_argument(
            "--dry-run", action="store_true", help="Report what would change; write nothing."
        )
        parser.add_argument(
            "--wait",
            type=float,
            default=0,
            metavar="SECONDS",
            help="Wait up to SECONDS for a running build instead of stopping at once.",
        )
        add_site_option(
            parser, "Build only this site of SITEMAPKIT['SITES'] (repeatable; default: every site)."
        )
        parser.add_argument(
            "--no-progress", action="store_true", help="No progress bar, even on a terminal."
        )
        parser.add_argument(
            "--force",
            action="store_true",
            help="Publish even if a section lost more than SHRINK_GUARD of its URLs.",
        )
        parser.add_argument(
            "--json",
            action="store_true",
            help="Print each site's build as a JSON list on stdout, instead of the summary.",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        targets = chosen_sites(options["sites"])
        failures: list[str] = []
        self._json: list[dict[str, Any]] = []
        try:
            for target in targets:
                try:
                    self._build(target, options, several=len(targets) > 1)
                except CommandError as exc:
                    self._json.append(
                        {"site": _name(target), "published": False, "error": str(exc)}
                    )
                    if target is None or len(targets) == 1:
                        raise
                    # One site's failure does not keep the others' sitemaps stale.
                    failures.append(f"site {target.name!r}: {exc}")
                    self.stderr.write(f"Site {target.name!r}: {exc}")
        finally:
            if options["json"]:
                self.stdout.write(json.dumps(self._json, indent=2))
        if failures:
            raise CommandError(
                f"{len(failures)} of {len(targets)} sites failed to build: {'; '.join(failures)}"
            )

    def _build(self, target: SiteConfig | None, options: dict[str, Any], *, several: bool) -> None:
        verbosity: int = options["verbosity"]
        show_progress = verbosity >= 1 and not options["no_progress"] and sys.stderr.isatty()
        try:
            builder = site.builder(
                full=options["full"],
                rerender=options["rerender"],
                dry_run=options["dry_run"],
                progress=progress_bar("pages") if show_progress else None,
                site=target,
                force=options["force"],
            )
            ensure_sections_fit_index(builder)
            result = builder.run(options["sections"], wait=options["wait"])
        except BuildLocked as exc:
            raise CommandError(str(exc)) from None
        except (BuildError, PublishError, IndexFull) as exc:
            raise CommandError(f"Sitemap build failed, nothing was published: {exc}") from None
        except Exception as exc:
            raise CommandError(
                f"Sitemap build failed, nothing was published: {type(exc).__name__}: {exc}"
            ) from exc
        finally:
            if show_progress:
                sys.stderr.write("\n")
        if options["json"]:
            figures = dataclasses.asdict(result)
            where = builder.publisher.description
            self._json.append(
                {"site": _name(target), **figures, "summary": result.summary(), "storage": where}
            )
            return
        label = f"Site {target.name!r}: " if several and target is not None else ""
        self._report(result, builder, verbosity, label)

    def _report(self, result: BuildResult, builder: Builder, verbosity: int, label: str) -> None:
        def verb(done: str, would: str) -> str:
            return would if result.dry_run else done

        if verbosity >= 2:
            for name in result.written:
                self.stdout.write(f"{verb('Wrote', 'Would write')} {name}")
            for name in result.removed:
                self.stdout.write(f"{verb('Removed', 'Would remove')} {name}")
            if result.cleaned:
                self.stdout.write(f"Cleaned {result.cleaned} leftovers of earlier builds.")
        if verbosity < 1:
            return
        if result.every_section_because is not None:
            self.stdout.write(
                f"{label}{verb('Rebuilt', 'Would rebuild')} every section, not only those named "
                f"by --section: {result.every_section_because}."
            )
        if result.first_published:
            self.stdout.write(
                f"{label}{verb('Also built', 'Would also build')} sections without published "
                f"files to keep: {', '.join(result.first_published)}."
            )
        for name in result.reconfigured:
            self.stdout.write(
                f"{label}{verb('Re-rendered', 'Would re-render')} section {name!r} (its sitemap "
                "class, URL patterns or output settings changed)."
            )
        where = builder.publisher.description
        self.stdout.write(f"{label}{verb('', 'Dry run: ')}{result.summary()} ({where})")


def _name(target: SiteConfig | None) -> str | None:
    return None if target is None else target.name


def progress_bar(unit: str) -> Callable[[int, int], None]:
    """A progress callback drawing ``[###...] done/total unit`` on stderr (a terminal)."""

    def show(done: int, total: int) -> None:
        width = 30
        filled = width * done // total if total else width
        sys.stderr.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} {unit}")
        sys.stderr.flush()

    return show


def ensure_sections_fit_index(builder: Builder) -> None:
    """Stop before a build that would skip every URL of a section, on its first row (check
    E014 finds what is known without rows)."""
    directory = IndexDirectory(builder.base_url, builder.sitemaps.name)
    for sitemap in builder.sitemaps:
        misplaced = directory.misplaced(sitemap, query=True)
        if misplaced is not None:
            raise BuildError(f"Section {sitemap.name!r} {misplaced} {INDEX_AT_ROOT_HINT}")
