"""Where a model section's locations come from: a URL pattern and the fields filling it.

A section names its pattern (``url_name`` + ``url_kwargs``), or its model's
``get_absolute_url()`` is read as one (derivation.py) when the class leaves
every per-row value to columns. Either way it reads column rows and fills
the pattern once reversed (UrlTemplate); otherwise it reads instances and
calls ``location()`` for each.

A ``reverse()`` call costs more than everything else a sitemap does for a
URL. UrlTemplate reverses the pattern once with placeholder values; each row
then only runs the converters Django would run, checks the value against the
converter's regex as ``reverse()`` does, and quotes it the same way: the
string ``reverse()`` returns, byte for byte (the tests compare them on
awkward values), or NoReverseMatch where ``reverse()`` raises it. Patterns
whose converters cannot be known (``re_path`` groups, a name used by several
patterns) fall back to calling ``reverse()`` for every row.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from django.urls import NoReverseMatch, URLPattern, URLResolver, get_resolver, reverse
from django.utils.http import escape_leading_slashes

from django_sitemapkit.derivation import Derived, Refused, derive_location
from django_sitemapkit.engine.internals import yields_instances
from django_sitemapkit.sitemaps import ModelSitemap, Sitemap

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
        self.parts = self._reversed_parts(converters)

    def _reversed_parts(self, converters: dict[str, Any]) -> list[str] | None:
        """The URL reversed with placeholders, split around each; None where that fails."""
        sentinels: dict[str, Any] = {}
        for index, kwarg in enumerate(self.kwarg_names):
            converter = converters[kwarg]
            regex = re.compile(converter.regex)
            sentinel = next(
                (s.format(index) for s in _SENTINELS if regex.fullmatch(s.format(index))), None
            )
            if sentinel is None:
                return None
            self.converters.append(converter)
            self.regexes.append(regex)
            sentinels[kwarg] = converter.to_python(sentinel)
        try:
            parts = [reverse(self.url_name, kwargs=sentinels)]
        except NoReverseMatch:
            return None
        for converter, kwarg in zip(self.converters, self.kwarg_names, strict=True):
            head, *rest = parts[-1].split(str(converter.to_url(sentinels[kwarg])))
            if len(rest) != 1:
                return None  # the placeholder is not unique in the URL
            parts[-1:] = [head, rest[0]]
        return parts if parts[0] else None

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


# Methods taking an item: a section defining one needs instances.
_ITEM_METHODS = ("location", "images", "videos", "news", "extra_xml", "get_languages_for_item")


@dataclass(frozen=True)
class UrlRoute:
    """A URL pattern and the model fields filling it, in argument order."""

    url_name: str
    fields: tuple[str, ...]
    #: The URL keyword each field fills; None: positional ``args``.
    kwargs: tuple[str, ...] | None
    #: Read from get_absolute_url() rather than named by the class.
    derived: bool = False

    def template(self) -> UrlTemplate:
        """The pattern reversed once (in the active language)."""
        if self.kwargs is None:
            return UrlTemplate(self.url_name, len(self.fields))
        return UrlTemplate(self.url_name, self.kwargs)


def url_route(sitemap: ModelSitemap) -> UrlRoute | None:
    """The section's URL route, or None when each location is ``location(instance)``."""
    if sitemap.url_name is not None:
        return UrlRoute(
            sitemap.url_name, tuple(sitemap.url_kwargs.values()), tuple(sitemap.url_kwargs)
        )
    derived = derivation(sitemap)
    if isinstance(derived, Refused):
        return None
    return UrlRoute(derived.url_name, derived.fields, derived.kwargs, derived=True)


def derivation(sitemap: ModelSitemap) -> Derived | Refused:
    """``get_absolute_url()`` read as a URL pattern, where the class needs nothing else per row."""
    refusal = needs_instances(sitemap)
    if refusal is not None:
        return Refused(refusal)
    if sitemap.model is None:
        return Refused("the section has no model")
    queryset = sitemap.get_queryset()
    if queryset.model is not sitemap.model:
        # A proxy's (or another model's) rows answer with their own method.
        return Refused(
            f"the rows are {queryset.model._meta.label}'s, not {sitemap.model._meta.label}'s"
        )
    if not yields_instances(queryset):
        return Refused("the QuerySet yields its own kind of rows (a polymorphic manager?)")
    return derive_location(sitemap.model)


def needs_instances(sitemap: ModelSitemap) -> str | None:
    """What in the class takes an instance per row (None: nothing)."""
    cls = type(sitemap)
    for name in _ITEM_METHODS:
        if getattr(cls, name) is not getattr(Sitemap, name):
            return f"{cls.__qualname__}.{name}() takes instances"
    if sitemap.defines_lastmod():
        return f"{cls.__qualname__} gives lastmod itself rather than lastmod_field"
    for name in ("changefreq", "priority"):
        if callable(getattr(sitemap, name)):
            return f"{cls.__qualname__}.{name}() takes instances"
    return None


def route_report(sitemap: Sitemap) -> tuple[bool, str] | None:
    """Whether a model section fills a URL pattern (the fast path), and how it got it or what
    stopped it; None for other sections. For ``sitemapkit_status`` and ``check --deploy``."""
    if not isinstance(sitemap, ModelSitemap):
        return None
    if sitemap.url_name is not None:
        return True, f"URL pattern {sitemap.url_name!r} (url_name)"
    derived = derivation(sitemap)
    if isinstance(derived, Derived):
        return (
            True,
            f"URL pattern {derived.url_name!r} read from get_absolute_url() ({derived.where})",
        )
    return False, f"location() per row: {derived.describe()}"
