"""A URL pattern reversed once and filled per row: the ``reverse()`` of column rows.

A ``reverse()`` call costs more than everything else a sitemap does for a
URL. A model section that names its URL pattern and the fields filling it
has the pattern reversed once with placeholder values; each row then only
runs the converters Django would run, checks the value against the
converter's regex as ``reverse()`` does, and quotes it the same way. The
result is the string ``reverse()`` returns, byte for byte (the tests compare
them on awkward values), or NoReverseMatch where ``reverse()`` raises it.

Patterns whose converters cannot be known (``re_path`` groups, a name used by
several patterns) fall back to calling ``reverse()`` for every row.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any
from urllib.parse import quote

from django.urls import NoReverseMatch, URLPattern, URLResolver, get_resolver, reverse
from django.utils.http import escape_leading_slashes

# What reverse() leaves unquoted (django.urls.resolvers: RFC 3986 sub-delims + "/~:@").
_SAFE = "!$&'()*+,;=/~:@"
_PLAIN = re.compile(r"[A-Za-z0-9_.~-]*")
_SENTINELS = ("sitemapkitarg{}zz", "7351{}9246", "7351{}92-4600-4000-8000-000000000000")


def find_converters(url_name: str) -> dict[str, Any] | None:
    """The converters of every kwarg of the one pattern named ``url_name``, or None."""
    *namespaces, name = url_name.split(":")
    found: list[dict[str, Any]] = []

    def walk(patterns: Sequence[Any], remaining: list[str], converters: dict[str, Any]) -> None:
        for pattern in patterns:
            own = dict(getattr(pattern.pattern, "converters", {}))
            if isinstance(pattern, URLResolver):
                if pattern.namespace:
                    if not remaining or pattern.namespace != remaining[0]:
                        continue
                    walk(pattern.url_patterns, remaining[1:], {**converters, **own})
                else:
                    walk(pattern.url_patterns, remaining, {**converters, **own})
            elif isinstance(pattern, URLPattern) and pattern.name == name and not remaining:
                found.append({**converters, **own})

    walk(get_resolver().url_patterns, namespaces, {})
    return found[0] if len(found) == 1 else None


class UrlTemplate:
    """``reverse(url_name, kwargs=...)`` for many rows at the cost of one call."""

    def __init__(self, url_name: str, kwarg_names: Sequence[str] | int) -> None:
        """``kwarg_names``: the URL keywords filled, in order, or how many positional args."""
        self.url_name = url_name
        # Positional args fill the pattern's keywords in order, as reverse() does.
        self.positional = isinstance(kwarg_names, int)
        self.kwarg_names: tuple[str, ...] = (
            tuple(str(n) for n in range(kwarg_names))
            if isinstance(kwarg_names, int)
            else tuple(kwarg_names)
        )
        # The reversed URL split around each value; None: reverse() per row.
        self.parts: list[str] | None = None
        self.converters: list[Any] = []
        self.regexes: list[re.Pattern[str]] = []
        converters = find_converters(url_name)
        if converters is not None and self.positional:
            if len(converters) != len(self.kwarg_names):
                return  # reverse() refuses it, row by row
            self.kwarg_names = tuple(converters)
        if converters is None or set(self.kwarg_names) - set(converters):
            return  # unknown constraints: reverse() per row
        sentinels: dict[str, Any] = {}
        for index, kwarg in enumerate(self.kwarg_names):
            converter = converters[kwarg]
            regex = re.compile(converter.regex)
            sentinel = next(
                (s.format(index) for s in _SENTINELS if regex.fullmatch(s.format(index))), None
            )
            if sentinel is None:
                return
            self.converters.append(converter)
            self.regexes.append(regex)
            sentinels[kwarg] = converter.to_python(sentinel)
        try:
            url = reverse(url_name, kwargs=sentinels)
        except NoReverseMatch:
            return
        parts = [url]
        for kwarg in self.kwarg_names:
            text = str(self.converters[self.kwarg_names.index(kwarg)].to_url(sentinels[kwarg]))
            head, *rest = parts[-1].split(text)
            if len(rest) != 1:
                return  # the placeholder is not unique in the URL
            parts[-1:] = [head, rest[0]]
        if not parts[0]:
            return
        self.parts = parts

    def fill(self, values: Sequence[Any]) -> str:
        """The URL of one row; raises NoReverseMatch exactly where reverse() would."""
        if self.parts is None:
            if self.positional:
                return reverse(self.url_name, args=list(values))
            return reverse(self.url_name, kwargs=dict(zip(self.kwarg_names, values, strict=True)))
        parts = self.parts
        out = [parts[0]]
        for index, value in enumerate(values):
            try:
                text = str(self.converters[index].to_url(value))
            except ValueError as exc:
                raise NoReverseMatch(str(exc)) from None
            if not self.regexes[index].fullmatch(text):
                raise NoReverseMatch(
                    f"Reverse for {self.url_name!r} with {self.kwarg_names[index]}={text!r} "
                    "not found: the value does not match the URL pattern."
                )
            out.append(text if _PLAIN.fullmatch(text) else quote(text, safe=_SAFE))
            out.append(parts[index + 1])
        url = "".join(out)
        # reverse() never builds a scheme-relative URL.
        return escape_leading_slashes(url) if url.startswith("//") else url
