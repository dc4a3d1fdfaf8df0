"""Point robots.txt at the sitemap index: ``Sitemap: <absolute index URL>``.

:func:`add_sitemap_line` edits an existing robots.txt as text and is the only
place that decides what changes; the ``sitemapkit_robots`` command reads,
calls it and writes with :func:`write_atomically`.  :func:`robots_txt` is a
view for sites that have no robots.txt of their own.

The edit is minimal and idempotent (running it on its own output changes
nothing), because a robots.txt is often maintained by hand or by other tools:

* Every byte it does not need to touch is kept: groups, rules, comments,
  blank lines, odd bytes (callers decode with ``surrogateescape``), a UTF-8
  BOM, the line endings and the presence or absence of a final newline.
* A ``Sitemap`` line is recognised the way robots.txt parsers read it: field
  name in any case, optional whitespace around the colon and the line, a
  ``#`` comment after the URL.  A line whose URL is exactly the index URL
  counts as present and is left as written (``sitemap : URL  # ours`` is not
  normalised: crawlers read it the same way, and rewriting it would be a
  change nobody asked for).
* A line is *stale* when it is what this app wrote for an earlier location of
  the same site: an http(s) URL, no query, on the same host once case, port,
  scheme and a leading ``www.`` are ignored, whose last path segment is the
  index's file name (``sitemap.xml``) or its gzip twin (``sitemap.xml.gz``),
  under any path prefix.  The first stale line is replaced in place by the new
  line (keeping its line ending); further stale lines, and every stale line
  when the index URL is already present, are removed so that exactly one
  entry for the index remains.  Other sitemaps (another file name such as
  ``news-sitemap.xml``, another host, a query string) are kept.
* Otherwise the line is appended at the end with the file's dominant line
  ending.  A blank line is put before it unless the file already ends with a
  blank line or with another ``Sitemap`` line (``Sitemap`` lines belong to no
  group; a blank line keeps it from reading as a rule of the last group, and
  consecutive ``Sitemap`` lines read best as one block).  A file without a
  final newline gets none after the added line either: the line ending goes
  before it.  An empty file becomes the line plus a newline.
"""

from __future__ import annotations

import contextlib
import enum
import os
import posixpath
import re
import stat
import tempfile
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from django.http import Http404, HttpRequest, HttpResponse
from django.views.decorators.http import require_safe

from django_sitemapkit.conf import base_url
from django_sitemapkit.engine.rendering import index_path
from django_sitemapkit.publishing.localfolder import fsync_directory
from django_sitemapkit.serving.headers import nosniff
from django_sitemapkit.siteconfig import configured_sites, site_for_host

__all__ = [
    "Action",
    "RobotsUpdate",
    "add_sitemap_line",
    "decode",
    "encode",
    "plan_update",
    "robots_txt",
    "sitemap_line",
    "write_atomically",
]

BOM = "\ufeff"
# Files are edited as text but must survive byte for byte: UTF-8 with
# surrogateescape turns any undecodable byte into a lone surrogate and back.
ENCODING = "utf-8"
ENCODING_ERRORS = "surrogateescape"
DEFAULT_LINE_ENDING = "\n"
ROBOTS_CONTENT_TYPE = "text/plain; charset=utf-8"
# robots.txt is public by nature and must be readable by the web server, which
# often runs as another user; mkstemp() would create it 0o600.
NEW_FILE_MODE = 0o644

# "\r\n" first, so that a CRLF pair is one line ending and not two.
_LINE_ENDING = re.compile(r"(\r\n|\r|\n)")
# Field name, colon and value as parsers read them; "#" always starts a comment.
_SITEMAP_FIELD = re.compile(r"\s*sitemap\s*:\s*([^#]*?)\s*(?:#.*)?", re.IGNORECASE | re.DOTALL)

Line = tuple[str, str]  # (content, line ending); the ending is "" on an unterminated last line


class Action(enum.Enum):
    UNCHANGED = "unchanged"  # the index URL is listed and nothing is stale
    ADDED = "added"  # the line was appended
    REPLACED = "replaced"  # a stale line became the new line
    REMOVED_STALE = "removed stale"  # the index URL was listed; stale duplicates removed


@dataclass(frozen=True)
class RobotsUpdate:
    text: str
    action: Action
    stale: tuple[str, ...]  # URLs of the stale lines replaced or removed
    line_ending: str

    @property
    def changed(self) -> bool:
        return self.action is not Action.UNCHANGED


def sitemap_line(index_url: str) -> str:
    return f"Sitemap: {index_url}"


def decode(data: bytes) -> str:
    """File bytes as text; a UTF-8 BOM stays in the text as U+FEFF."""
    return data.decode(ENCODING, ENCODING_ERRORS)


def encode(text: str) -> bytes:
    """The inverse of :func:`decode`: ``encode(decode(data)) == data`` for any bytes."""
    return text.encode(ENCODING, ENCODING_ERRORS)


def add_sitemap_line(text: str, index_url: str) -> str:
    """The robots.txt ``text`` listing ``index_url`` (rules in the module docstring)."""
    return plan_update(text, index_url).text


def plan_update(text: str, index_url: str) -> RobotsUpdate:
    """:func:`add_sitemap_line` plus what it did, for the command's messages."""
    bom = BOM if text.startswith(BOM) else ""
    lines = split_lines(text[len(bom) :])
    eol = dominant_line_ending(lines)
    present = any(sitemap_url(content) == index_url for content, _ in lines)
    new_line = sitemap_line(index_url)
    is_stale = _stale_matcher(index_url)

    kept: list[Line] = []
    stale: list[str] = []
    for content, ending in lines:
        url = sitemap_url(content)
        if url is None or url == index_url or not is_stale(url):
            kept.append((content, ending))
            continue
        if not present and not stale:
            kept.append((new_line, ending))
        stale.append(url)

    if present:
        action = Action.REMOVED_STALE if stale else Action.UNCHANGED
    elif stale:
        action = Action.REPLACED
    else:
        kept = _append(kept, new_line, eol)
        action = Action.ADDED
    if not _ends_with_newline(lines):
        kept = _without_final_newline(kept)
    new_text = bom + "".join(content + ending for content, ending in kept)
    return RobotsUpdate(new_text, action, tuple(stale), eol)


def split_lines(text: str) -> list[Line]:
    """Lines with their own endings; unlike str.splitlines(), only CR and LF end a line."""
    parts = _LINE_ENDING.split(text)
    # split() alternates content and ending and ends with the text after the
    # last ending, which is "" when the text ends with a newline.
    lines = list(zip(parts[0::2], [*parts[1::2], ""], strict=True))
    if lines[-1] == ("", ""):
        lines.pop()
    return lines


def dominant_line_ending(lines: list[Line]) -> str:
    """The most frequent ending; on a tie the one met first; LF when there is none."""
    counts = Counter(ending for _, ending in lines if ending)
    return counts.most_common(1)[0][0] if counts else DEFAULT_LINE_ENDING


def sitemap_url(content: str) -> str | None:
    """The URL of a ``Sitemap`` line, or None for any other line (or an empty value)."""
    match = _SITEMAP_FIELD.fullmatch(content)
    return (match.group(1) or None) if match else None


def _site_host(host: str) -> str:
    # www.example.com and example.com are one site for robots.txt purposes:
    # moving between them is the commonest reason a sitemap line goes stale.
    return host.lower().removeprefix("www.")


@dataclass(frozen=True)
class _StaleMatcher:
    host: str
    file_name: str

    def __call__(self, url: str) -> bool:
        """True for a URL this app would have written for the same site elsewhere."""
        if not self.host or not self.file_name:
            return False
        try:
            parts = urlsplit(url)
        except ValueError:  # e.g. a malformed IPv6 literal: not ours to judge
            return False
        return (
            parts.scheme.lower() in ("http", "https")
            and not parts.query
            and _site_host(parts.hostname or "") == self.host
            and posixpath.basename(parts.path) in (self.file_name, self.file_name + ".gz")
        )


def _stale_matcher(index_url: str) -> _StaleMatcher:
    parts = urlsplit(index_url)
    name = posixpath.basename(parts.path).removesuffix(".gz")
    return _StaleMatcher(_site_host(parts.hostname or ""), name)


def _append(lines: list[Line], new_line: str, eol: str) -> list[Line]:
    if not lines:
        return [(new_line, eol)]
    last, last_ending = lines[-1]
    # An unterminated last line gets its ending now, so the new line starts on
    # a line of its own.
    result = [*lines[:-1], (last, last_ending or eol)]
    if last.strip() and sitemap_url(last) is None:
        result.append(("", eol))
    result.append((new_line, eol))
    return result


def _ends_with_newline(lines: list[Line]) -> bool:
    # An empty file counts as terminated: it becomes the line plus a newline.
    return not lines or bool(lines[-1][1])


def _without_final_newline(lines: list[Line]) -> list[Line]:
    if not lines:
        return lines
    last, _ = lines[-1]
    return [*lines[:-1], (last, "")]


def write_atomically(path: Path, data: bytes) -> None:
    """Replace ``path`` with ``data`` so that readers see the old file or the new one.

    The bytes go to a temporary file in the same directory (``os.replace`` is
    only atomic within one file system), are fsynced, get the existing file's
    permission bits (``NEW_FILE_MODE`` for a new file) and replace the file.
    A symlink is followed, so the file it points to is updated rather than the
    link being replaced by a regular file.  Ownership is not carried over.
    """
    target = Path(os.path.realpath(path))
    mode = _existing_mode(target)
    fd, temp_name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as temp:
            temp.write(data)
            temp.flush()
            os.fsync(temp.fileno())
        os.chmod(temp_name, NEW_FILE_MODE if mode is None else mode)
        os.replace(temp_name, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp_name)
        raise
    fsync_directory(target.parent)


def _existing_mode(path: Path) -> int | None:
    try:
        return stat.S_IMODE(path.stat().st_mode)
    except FileNotFoundError:
        return None


@nosniff
@require_safe
def robots_txt(request: HttpRequest) -> HttpResponse:
    """A complete robots.txt allowing everything and naming the sitemap index.

    For sites without a robots.txt of their own: ``path("robots.txt", robots_txt)``.
    """
    if configured_sites():
        site = site_for_host(request.get_host())
        if site is None:
            raise Http404("No site of SITEMAPKIT['SITES'] is served at this host.")
        index_url = site.base_url + index_path()
    else:
        index_url = base_url(request) + index_path()
    body = f"User-agent: *\nDisallow:\n\n{sitemap_line(index_url)}\n"
    return HttpResponse(body, content_type=ROBOTS_CONTENT_TYPE)
