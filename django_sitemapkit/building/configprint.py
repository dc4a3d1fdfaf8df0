"""A fingerprint of what shapes a section's files besides its rows.

Row counts and newest lastmods tell a build which pages' rows changed; they
cannot tell that the sitemap class now writes another ``changefreq``, that
its ``location()`` builds other URLs, or that the URL pattern it reverses has
a new route. The fingerprint covers those: the class's name, the values of
its public attributes, the source of every method a project's class defines
(``location``, ``lastmod``, ``extra_xml``, ``images``, ``get_queryset``...),
the routes of the URL names it reverses (and the source of its model's
``get_absolute_url``), and the settings that change every file. The manifest
keeps it per section; a build whose fingerprint of a section differs renders
that section's pages again instead of keeping them (builder.py).
"""

from __future__ import annotations

import hashlib
import inspect
from collections.abc import Iterator
from typing import Any

from django.urls import get_resolver

from django_sitemapkit.conf import get_settings
from django_sitemapkit.engine.routes import url_route
from django_sitemapkit.sitemaps import ModelSitemap, Sitemap, StaticViewSitemap, UrlName

# Classes of this package: their code is the package version's, not the project's.
_OWN_MODULE_PREFIX = "django_sitemapkit."


def config_fingerprint(sitemap: Sitemap) -> str:
    """A short digest of the class, URL patterns and settings that shape ``sitemap``'s output."""
    digest = hashlib.sha256()
    for part in _parts(sitemap):
        digest.update(part.encode("utf-8", "surrogatepass"))
        digest.update(b"\0")
    return digest.hexdigest()[:32]


def _parts(sitemap: Sitemap) -> Iterator[str]:
    cls = type(sitemap)
    yield f"{cls.__module__}.{cls.__qualname__}"
    conf = get_settings()
    yield f"strip={sorted(conf.STRIP_QUERY_PARAMS)!r} stylesheet={conf.STYLESHEET!r}"
    yield from _attributes(sitemap)
    yield from _sources(cls)
    for name in _url_names(sitemap):
        yield f"url {name}: {_routes(name)}"
    model = sitemap.get_model()
    if model is not None:
        yield f"model {model._meta.label}"
        if not getattr(sitemap, "url_name", None):
            yield _source(getattr(model, "get_absolute_url", None))


def _attributes(sitemap: Sitemap) -> Iterator[str]:
    """``name=repr(value)`` of each public, non-method attribute, in name order."""
    for name in sorted(dir(sitemap)):
        if name.startswith("_"):
            continue
        try:
            value = getattr(sitemap, name)
        except Exception:
            continue
        if inspect.ismethod(value) or inspect.isfunction(value) or isinstance(value, type):
            continue
        yield f"{name}={_stable_repr(value)}"


def _stable_repr(value: Any) -> str:
    """``repr`` without memory addresses, which change from one process to the next."""
    if callable(value):
        return f"<callable {getattr(value, '__qualname__', type(value).__qualname__)}>"
    text = repr(value)
    return text if " at 0x" not in text else f"<{type(value).__qualname__}>"


def _sources(cls: type[Any]) -> Iterator[str]:
    """The source of each function defined by the project's classes of ``cls``'s MRO."""
    for klass in cls.__mro__:
        if klass.__module__.startswith(_OWN_MODULE_PREFIX) or klass is object:
            continue
        for name, member in sorted(vars(klass).items()):
            function = getattr(member, "__func__", member)
            if inspect.isfunction(function):
                yield f"{klass.__qualname__}.{name}: {_source(function)}"


def _source(function: Any) -> str:
    if function is None:
        return ""
    try:
        return inspect.getsource(function)
    except (OSError, TypeError):
        # No source at hand (built in a shell, a frozen app): its bytecode stands in.
        code = getattr(function, "__code__", None)
        return "" if code is None else code.co_code.hex()


def _url_names(sitemap: Sitemap) -> list[str]:
    if isinstance(sitemap, ModelSitemap):
        route = url_route(sitemap)
        return [] if route is None else [route.url_name]
    if isinstance(sitemap, StaticViewSitemap):
        names = []
        for entry in sitemap.url_names:
            try:
                names.append(UrlName.of(entry).name)
            except Exception:
                continue
        return sorted(set(names))
    return []


def _routes(name: str) -> str:
    """The patterns the URL ``name`` (``namespace:name`` allowed) reverses to, as text."""
    resolver = get_resolver()
    *namespaces, view = name.split(":")
    prefix = ""
    try:
        for namespace in namespaces:
            found, resolver = resolver.namespace_dict[namespace]
            prefix += found
        possibilities = resolver.reverse_dict.getlist(view)
    except Exception:
        return "unresolvable"
    return prefix + "|".join(
        sorted(pattern for _, pattern, _, _ in possibilities if isinstance(pattern, str))
    )
