"""``manage.py sitemapkit_robots``: list the sitemap index in robots.txt (``plan_update()``
decides the edit), writing only when something changed: an unchanged file keeps its mtime."""

from __future__ import annotations

import difflib
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.urls import NoReverseMatch

from django_sitemapkit._conf import BaseUrlError, base_url, clean_base_url, get_settings
from django_sitemapkit._engine.rendering import index_path
from django_sitemapkit._serving.robots import (
    Action,
    RobotsUpdate,
    decode,
    encode,
    plan_update,
    sitemap_line,
    split_lines,
    write_atomically,
)
from django_sitemapkit._siteconfig import SiteConfig, add_site_option, chosen_sites

_LINE_ENDING_NAMES = {"\r\n": "CRLF", "\n": "LF", "\r": "CR"}


class Command(BaseCommand):
    help = (
        "Add 'Sitemap: <index URL>' to robots.txt, replacing a stale line this app wrote "
        "for another location of the site. Changes nothing when the line is already there."
    )
    # BASE_URL and the file are validated here with precise messages; a full
    # system-check run would only stop --print in a half-configured project.
    requires_system_checks: list[str] = []

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--file",
            metavar="PATH",
            help="The robots.txt to update (default: SITEMAPKIT['ROBOTS_TXT_PATH']). "
            "Created when missing; its directory must exist.",
        )
        add_site_option(
            parser,
            "Update only this site of SITEMAPKIT['SITES'] (repeatable; default: every "
            "site, each in its own ROBOTS_TXT_PATH).",
        )
        parser.add_argument(
            "--base-url",
            metavar="URL",
            help="The site's absolute URL (default: SITEMAPKIT['BASE_URL']).",
        )
        mode = parser.add_mutually_exclusive_group()
        for flag, help_text in (
            (
                "--check",
                "Exit with status 1 when the file does not list the index (or lists a "
                "stale one). Writes nothing.",
            ),
            ("--print", "Print the Sitemap line only. Reads and writes no file."),
            ("--dry-run", "Show the change as a unified diff. Writes nothing."),
        ):
            mode.add_argument(flag, action="store_true", help=help_text)

    def handle(self, *args: Any, **options: Any) -> None:
        targets = chosen_sites(options["sites"])
        if len(targets) > 1 and (options["file"] or options["base_url"]):
            raise CommandError(
                "--file and --base-url are one site's: name it with --site "
                f"({', '.join(t.name for t in targets if t is not None)})."
            )
        for target in targets:
            label = f"Site {target.name!r}: " if target is not None and len(targets) > 1 else ""
            self.update(target, {**options, "label": label})

    def update(self, target: SiteConfig | None, options: dict[str, Any]) -> None:
        index_url = self.index_url(options["base_url"], target)
        if options["print"]:
            self.stdout.write(sitemap_line(index_url))  # the output asked for: any verbosity
            return
        path, original = robots_file(options["file"], target)
        update = plan_update(decode(original or b""), index_url)
        self.say(2, f"Index URL: {index_url}", options)
        if original is None:
            self.say(2, f"File: {path} (missing, will be created)", options)
        else:
            ending = _LINE_ENDING_NAMES[update.line_ending]
            self.say(2, f"File: {path} ({len(original)} bytes, {ending} line endings)", options)
        if options["check"]:
            self.say(1, check(path, original, update, index_url), options)
            return
        dry_run = options["dry_run"]
        if dry_run and update.changed:
            self.say(1, diff(path, original, update.text), options)
        elif update.changed:
            data = encode(update.text)
            try:
                write_atomically(path, data)
            except OSError as exc:
                raise CommandError(f"Cannot write {path}: {exc.strerror or exc}.") from None
            self.say(2, f"Wrote {len(data)} bytes to {path} (atomic replace).", options)
        summary = outcome(path, original, update, index_url, would=dry_run)
        self.say(1, ("Dry run, nothing written: " if dry_run else "") + summary, options)

    def index_url(self, base_url_option: str | None, target: SiteConfig | None) -> str:
        try:
            if base_url_option is not None:
                base = clean_base_url(base_url_option, "--base-url")
            else:
                base = base_url() if target is None else target.base_url
            return base + index_path()
        except BaseUrlError as exc:
            raise CommandError(str(exc)) from None
        except NoReverseMatch as exc:
            # Only where something else took the 'sitemapkit' namespace: without
            # it, the index lies at the site's root.
            raise CommandError(
                f"The URL of the sitemap index cannot be reversed ({exc}): the 'sitemapkit' "
                "URL namespace must be the one of django_sitemapkit.urls."
            ) from None

    def say(self, verbosity: int, message: str, options: dict[str, Any]) -> None:
        if options["verbosity"] >= verbosity:
            self.stdout.write(options["label"] + message)


def robots_file(file_option: str | None, target: SiteConfig | None) -> tuple[Path, bytes | None]:
    """The robots.txt to update and its bytes, None when it does not exist yet."""
    if target is not None:
        value = file_option or target.robots_txt_path
        setting = f"SITEMAPKIT['SITES'][{target.name!r}]['ROBOTS_TXT_PATH']"
    else:
        value = file_option or get_settings().ROBOTS_TXT_PATH
        setting = "SITEMAPKIT['ROBOTS_TXT_PATH']"
    if not value:
        raise CommandError(f"No robots.txt to update: pass --file PATH or set {setting}.")
    path = Path(value)
    if path.is_dir():
        raise CommandError(f"{path} is a directory; name the robots.txt file itself.")
    if not path.parent.is_dir():
        raise CommandError(f"Cannot create {path}: the directory {path.parent} does not exist.")
    try:
        return path, path.read_bytes()
    except FileNotFoundError:
        return path, None
    except OSError as exc:
        raise CommandError(f"Cannot read {path}: {exc.strerror or exc}.") from None


def check(path: Path, original: bytes | None, update: RobotsUpdate, index_url: str) -> str:
    """--check's message when the file lists the index; CommandError otherwise."""
    stale = ", ".join(update.stale)
    problems = {
        Action.ADDED: f"has no 'Sitemap: {index_url}' line",
        Action.REPLACED: f"lists a stale sitemap index ({stale}) instead of {index_url}",
        Action.REMOVED_STALE: f"lists {index_url} but also a stale sitemap index ({stale})",
    }
    if original is None:
        raise CommandError(f"{path} does not exist, so it does not list {index_url}.")
    if update.action in problems:
        raise CommandError(f"{path} {problems[update.action]}.")
    return f"{path} lists {index_url}."


def outcome(
    path: Path, original: bytes | None, update: RobotsUpdate, index_url: str, *, would: bool
) -> str:
    """The one-line summary, in the past tense or as what would happen."""
    stale = ", ".join(update.stale)
    if update.action is Action.ADDED:
        created = " (creating the file)" if original is None else ""
        verb = "Would add" if would else "Added"
        return f"{verb} '{sitemap_line(index_url)}' to {path}{created}."
    if update.action is Action.REPLACED:
        verb = "Would replace" if would else "Replaced"
        return f"{verb} stale {stale} with {index_url} in {path}."
    if update.action is Action.REMOVED_STALE:
        verb = "Would remove" if would else "Removed"
        return f"{verb} stale {stale} from {path}, which already lists {index_url}."
    return f"{path} already lists {index_url}."


def diff(path: Path, original: bytes | None, new_text: str) -> str:
    """A unified diff of the lines; line endings are not shown (they never change), and
    undecodable bytes are escaped: lone surrogates cannot be written to a UTF-8 stream."""
    before, after = (
        [content for content, _ in split_lines(data.decode("utf-8", "backslashreplace"))]
        for data in (original or b"", encode(new_text))
    )
    fromfile = "/dev/null" if original is None else str(path)
    return "\n".join(difflib.unified_diff(before, after, fromfile, str(path), lineterm=""))
