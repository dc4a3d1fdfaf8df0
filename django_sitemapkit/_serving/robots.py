"""robots.txt listing the sitemap index: ``Sitemap: <absolute index URL>``.

:func:`plan_update` decides how ``sitemapkit_robots`` edits a robots.txt, which is often kept
by hand or by other tools, so the edit is minimal and idempotent:

* Every byte it need not touch is kept: rules, comments, blank lines, odd bytes
  (decoded with ``surrogateescape``), a BOM, the line endings, the presence or
  absence of a final newline.
* ``Sitemap`` lines are read as parsers read them (any case, spaces around the
  colon, a ``#`` comment after the URL). The index URL's line is left as written.
* A line is *stale* when this app would have written it for an earlier location
  of the site: an http(s) URL without query on the same host (ignoring case,
  port, scheme and a leading ``www.``), whose file name is the index's or its
  ``.gz`` twin, under any prefix. The first stale line becomes the new line in
  place, further ones go; other sitemaps are kept.
* Otherwise the line is appended with the file's dominant line ending, after a
  blank line unless the file ends with one or with another ``Sitemap`` line
  (a blank line keeps it from reading as a rule of the last group).

:func:`robots_txt` is a view for sites without a robots.txt of their own.
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

from django.http import HttpRequest, HttpResponse

from django_sitemapkit._conf import base_url
from django_sitemapkit._engine.rendering import index_path
from django_sitemapkit._publishing.localfolder import fsync_directory
from django_sitemapkit._serving.views import file_view, request_site

BOM = "\ufeff"
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


# Files are edited as text but must survive byte for byte: UTF-8 with
# surrogateescape turns any undecodable byte into a lone surrogate and back.
def decode(data: bytes) -> str:
    """File bytes as text; a UTF-8 BOM stays in the text as U+FEFF."""
    return data.decode("utf-8", "surrogateescape")


def encode(text: str) -> bytes:
    """The inverse of :func:`decode`: ``encode(decode(data)) == data`` for any bytes."""
    return text.encode("utf-8", "surrogateescape")


def plan_update(text: str, index_url: str) -> RobotsUpdate:
    """The robots.txt ``text`` listing ``index_url`` (rules in the module docstring)."""
    bom = BOM if text.startswith(BOM) else ""
    lines = split_lines(text[len(bom) :])
    eol = dominant_line_ending(lines)
    urls = [sitemap_url(content) for content, _ in lines]
    stale = [url for url in urls if url and url != index_url and is_stale(url, index_url)]
    kept = [line for line, url in zip(lines, urls, strict=True) if url not in stale]
    if index_url in urls:
        action = Action.REMOVED_STALE if stale else Action.UNCHANGED
    elif stale:
        # Every line before the first stale one is kept: the new line takes its place.
        first = urls.index(stale[0])
        kept.insert(first, (sitemap_line(index_url), lines[first][1]))
        action = Action.REPLACED
    else:
        kept = _append(kept, sitemap_line(index_url), eol)
        action = Action.ADDED
    if lines and not lines[-1][1]:
        # No final newline before: none after (an empty file gets one).
        kept[-1] = (kept[-1][0], "")
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
    return counts.most_common(1)[0][0] if counts else "\n"


def sitemap_url(content: str) -> str | None:
    """The URL of a ``Sitemap`` line, or None for any other line (or an empty value)."""
    match = _SITEMAP_FIELD.fullmatch(content)
    return (match.group(1) or None) if match else None


def _site_host(host: str) -> str:
    # www.example.com and example.com are one site here: moving between them is
    # the commonest reason a sitemap line goes stale.
    return host.lower().removeprefix("www.")


def is_stale(url: str, index_url: str) -> bool:
    """Whether ``url`` is what this app would have written for ``index_url``'s site elsewhere."""
    index = urlsplit(index_url)
    name = posixpath.basename(index.path).removesuffix(".gz")
    host = _site_host(index.hostname or "")
    if not host or not name:
        return False
    try:
        parts = urlsplit(url)
    except ValueError:  # e.g. a malformed IPv6 literal: not ours to judge
        return False
    return (
        parts.scheme.lower() in ("http", "https")
        and not parts.query
        and _site_host(parts.hostname or "") == host
        and posixpath.basename(parts.path) in (name, name + ".gz")
    )


def _append(lines: list[Line], new_line: str, eol: str) -> list[Line]:
    if not lines:
        return [(new_line, eol)]
    last, last_ending = lines[-1]
    # An unterminated last line gets its ending, so the new line starts its own.
    result = [*lines[:-1], (last, last_ending or eol)]
    if last.strip() and sitemap_url(last) is None:
        result.append(("", eol))
    result.append((new_line, eol))
    return result


def write_atomically(path: Path, data: bytes) -> None:
    """Replace ``path`` with ``data`` so that readers see the old file or the new one.

    Written beside it (``os.replace`` is atomic within one file system) with its
    permission bits (``NEW_FILE_MODE`` for a new file), not its owner; a symlink
    is followed, so the file it points to is updated.
    """
    target = Path(os.path.realpath(path))
    try:
        mode = stat.S_IMODE(target.stat().st_mode)
    except FileNotFoundError:
        mode = NEW_FILE_MODE
    fd, temp_name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as temp:
            temp.write(data)
            temp.flush()
            os.fsync(temp.fileno())
        os.chmod(temp_name, mode)
        os.replace(temp_name, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp_name)
        raise
    fsync_directory(target.parent)


@file_view
def robots_txt(request: HttpRequest) -> HttpResponse:
    """A complete robots.txt allowing everything and naming the sitemap index.

    For sites without a robots.txt of their own: ``path("robots.txt", robots_txt)``.
    """
    site = request_site(request)
    index_url = (base_url(request) if site is None else site.base_url) + index_path()
    body = f"User-agent: *\nDisallow:\n\n{sitemap_line(index_url)}\n"
    return HttpResponse(body, content_type="text/plain; charset=utf-8")
