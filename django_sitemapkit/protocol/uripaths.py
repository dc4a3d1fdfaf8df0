"""The path and query of a sitemap URL: split, percent-encoded, dot segments resolved.

Decisions worth knowing:

* Existing percent-escapes are kept byte for byte (``%c3%a9`` is not
  upper-cased), which is what makes encoding idempotent; the flip side is
  that ``%7e`` and ``~`` are different strings for the directory check.
* ``[`` and ``]`` are percent-encoded in paths and queries: RFC 3986 allows
  them only around an IPv6 literal host, though Django's ``iri_to_uri()``
  keeps them, and ``anyURI`` validators (libxml2's among them) refuse them.
* Dot segments (``.``/``..``, also written ``%2E``) are resolved, so that
  ``/shop/../admin/`` cannot pass for a URL under ``/shop/``.
"""

from __future__ import annotations

import re
from urllib.parse import quote

__all__ = [
    "InvalidLocation",
    "may_hold_dot_segment",
    "percent_encode",
    "remove_dot_segments",
    "split_rest",
]


class InvalidLocation(ValueError):
    """A URL that cannot be listed; ``str(exc)`` is a short human reason,
    e.g. ``'longer than 2048 characters'``."""


# Characters kept as they are in path and query: the unreserved ones
# (always kept by quote()), the sub-delims, ":", "@", "/" and "?" (RFC 3986
# pchar and query), and "%", because by the time quote() runs every "%"
# starts a valid escape. "#", "[" and "]" are gen-delims that a path or query
# may not hold raw.
_SAFE = "/?@!$&'()*+,;=:%"
_ALREADY_ENCODED = re.compile(r"[A-Za-z0-9._~/?@!$&'()*+,;=:%-]*\Z").match
_LONE_PERCENT = re.compile(r"%(?![0-9A-Fa-f]{2})")

#: Whether a path may hold a dot segment: a cheap test before the real work.
#: "%2E" is an encoded "." (RFC 3986 section 6.2.2.2); servers decode it, so
#: it takes part in dot-segment resolution too.
may_hold_dot_segment = re.compile(r"/(?:\.|%2[Ee])").search


def percent_encode(component: str) -> str:
    """Percent-encode what RFC 3986 does not allow in a path or query.

    Valid escapes and reserved characters are left alone so that encoding an
    already-encoded URI changes nothing (RFC 3987 section 3.1 conversion).
    """
    if "%" in component:
        # A "%" that does not start an escape is a literal percent sign.
        component = _LONE_PERCENT.sub("%25", component)
    if _ALREADY_ENCODED(component):
        return component
    try:
        return quote(component, safe=_SAFE)
    except UnicodeEncodeError:
        # Lone surrogates, e.g. from badly decoded bytes.
        raise InvalidLocation("contains characters that are not valid Unicode") from None


def remove_dot_segments(path: str) -> str:
    """Resolve "." and ".." segments of an absolute path (RFC 3986 5.2.4)."""
    segments = path.split("/")
    output: list[str] = []
    last = len(segments) - 1
    # segments[0] is the empty string before the leading "/".
    for index in range(1, last + 1):
        segment = segments[index]
        plain = segment.replace("%2e", ".").replace("%2E", ".") if "%" in segment else segment
        if plain in (".", ".."):
            if plain == ".." and output:
                output.pop()
            if index == last:
                # "/a/b/.." means the directory "/a/", keep its slash.
                output.append("")
        elif plain.startswith(".") and plain.partition(";")[0] in (".", ".."):
            # Some servers (Tomcat) treat "..;x=1" as "..": refuse rather
            # than guess, it could step out of the sitemap directory.
            raise InvalidLocation("contains an ambiguous dot segment with parameters")
        else:
            output.append(segment)
    return "/" + "/".join(output)


def split_rest(rest: str) -> tuple[str, str]:
    """Split what follows the authority into path and query; the fragment goes.

    Fragments never reach the server, so a crawler treats ``/a#top`` as
    ``/a``.  Done by hand rather than with urllib.parse.urlsplit(), which
    silently deletes tabs and newlines instead of letting them be
    percent-encoded.
    """
    rest = rest.partition("#")[0]
    query = ""
    if "?" in rest:
        rest, _, query = rest.partition("?")
    return rest, query
