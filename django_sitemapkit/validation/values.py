"""The values the sitemaps.org schemas allow in ``<loc>``, ``<lastmod>``, ``<changefreq>``, ``<priority>``.

The same rules as ``sitemap.xsd`` and ``siteindex.xsd``, in Python, for
when lxml or the schemas are not at hand. Each function returns what is
wrong, or None.
"""

from __future__ import annotations

import datetime
import re
from urllib.parse import urlsplit

from django_sitemapkit.protocol.writer import CHANGEFREQS

# tLoc: an anyURI of 12 to 2,048 characters; the protocol wants it absolute.
LOC_MIN, LOC_MAX = 12, 2048
# xsd:date or xsd:dateTime (seconds required, fractions and a zone optional).
_LASTMOD = re.compile(
    r"(?P<date>\d{4}-\d{2}-\d{2})"
    r"(?:T(?P<time>\d{2}:\d{2}:\d{2})(?P<fraction>\.\d+)?)?"
    r"(?P<zone>Z|[+-]\d{2}:\d{2})?"
)
_DECIMAL = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)")


def collapse(text: str | None) -> str:
    """An element's text as the schema reads a token: surrounding whitespace dropped."""
    return (text or "").strip()


def loc_problem(value: str) -> str | None:
    if not LOC_MIN <= len(value) <= LOC_MAX:
        return f"<loc> must be {LOC_MIN} to {LOC_MAX:,} characters long, not {len(value):,}"
    if any(c.isspace() for c in value):
        return f"<loc> {value[:100]!r} contains whitespace"
    try:
        parts = urlsplit(value)
    except ValueError:
        return f"<loc> {value[:100]!r} is not a URL"
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return f"<loc> {value[:100]!r} is not an absolute http(s) URL"
    return None


def parse_lastmod(value: str) -> datetime.datetime | None:
    """The instant a lastmod names (a date: its start, at UTC+14), or None when invalid."""
    match = _LASTMOD.fullmatch(value)
    if match is None:
        return None
    zone = match["zone"] or "+14:00"  # no zone: read as early as it can be anywhere
    zone = "+00:00" if zone == "Z" else zone
    try:
        offset = datetime.timezone(
            int(zone[0] + "1") * datetime.timedelta(hours=int(zone[1:3]), minutes=int(zone[4:6]))
        )
        day = datetime.date.fromisoformat(match["date"])
        clock = datetime.time.fromisoformat(match["time"] or "00:00:00")
    except ValueError:
        return None
    return datetime.datetime.combine(day, clock, tzinfo=offset)


def lastmod_problem(value: str) -> str | None:
    if parse_lastmod(value) is None:
        return f"<lastmod> {value[:60]!r} is not a W3C date or date-time"
    return None


def changefreq_problem(value: str) -> str | None:
    if value not in CHANGEFREQS:
        return f"<changefreq> {value[:60]!r} is not one of {', '.join(sorted(CHANGEFREQS))}"
    return None


def priority_problem(value: str) -> str | None:
    if not _DECIMAL.fullmatch(value) or not 0 <= float(value) <= 1:
        return f"<priority> {value[:60]!r} is not a number from 0.0 to 1.0"
    return None
