"""What ``sitemapkit_validate`` found: one finding per problem, and the report holding them.

A finding names its file (a file name for a build, a URL for a live site),
the rule it breaks, what is wrong and where in the file (the entry's
number). Each rule reports at most :data:`MAX_PER_RULE` findings per file,
then one line saying how many more there were, so that a broken file of
50,000 entries gives a readable report.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

# Findings of one rule in one file before the rest are only counted.
MAX_PER_RULE = 10

# Rule ids, as the JSON report names them.
RULES = (
    "fetch",  # a file could not be read (HTTP error, unreadable)
    "missing",  # the index (or robots.txt) names a file that does not exist
    "xml",  # not well-formed XML
    "schema",  # well-formed, but not what the sitemaps.org schema allows
    "limit",  # more than 50,000 entries or 52,428,800 bytes in one file
    "scope",  # a location on another scheme or host, or outside the file's directory
    "duplicate",  # a URL listed twice, in one file or across files
    "gzip",  # the .gz twin does not decompress to the file's bytes
    "lastmod",  # a lastmod in the future
    "robots",  # robots.txt does not name the index
)


@dataclass(frozen=True)
class Finding:
    file: str
    rule: str
    message: str
    where: str = ""

    def line(self) -> str:
        where = f" ({self.where})" if self.where else ""
        return f"{self.file}: [{self.rule}] {self.message}{where}"


@dataclass
class Report:
    """Every finding of one run, and what was checked."""

    target: str
    findings: list[Finding] = field(default_factory=list)
    files: int = 0
    urls: int = 0
    # Findings past MAX_PER_RULE, per (file, rule): reported as one line each at the end.
    _extra: Counter[tuple[str, str]] = field(default_factory=Counter)
    _counts: Counter[tuple[str, str]] = field(default_factory=Counter)

    def add(self, file: str, rule: str, message: str, where: str = "") -> None:
        key = (file, rule)
        self._counts[key] += 1
        if self._counts[key] > MAX_PER_RULE:
            self._extra[key] += 1
        else:
            self.findings.append(Finding(file, rule, message, where))

    def finish(self) -> Report:
        """Add a line per (file, rule) that had more findings than it listed."""
        for (file, rule), count in self._extra.items():
            self.findings.append(Finding(file, rule, f"... and {count:,} more like these"))
        self._extra.clear()
        return self

    @property
    def ok(self) -> bool:
        return not self.findings
