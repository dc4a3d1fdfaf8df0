"""Checking what ``Sitemap.extra_xml()`` returns before it reaches a file.

A fragment must be well-formed XML whose elements use only prefixes the
file's ``<urlset>`` declares (the section's ``namespaces`` and the built-in
image/video/news/xhtml ones it uses), at the top level elements of another
namespace than the sitemap's, and no text there: what sitemap.xsd allows
after ``<priority>``. Parsed with the standard library's expat, which
resolves no external entity and loads no DTD.
"""

from __future__ import annotations

from collections.abc import Mapping
from xml.parsers import expat

from django_sitemapkit.protocol.writer import SITEMAP_NS, escape


class FragmentError(ValueError):
    """The fragment cannot go into the file; the message says why."""


class FragmentChecker:
    """Checks fragments against one file's declared namespaces (prefix -> URI)."""

    def __init__(self, namespaces: Mapping[str, str]) -> None:
        declarations = "".join(
            f' xmlns:{prefix}="{escape(uri)}"' for prefix, uri in sorted(namespaces.items())
        )
        self.open = f'<urlset xmlns="{SITEMAP_NS}"{declarations}>'.encode()
        self.close = b"</urlset>"

    def check(self, fragment: str) -> None:
        """Raise FragmentError unless ``fragment`` may follow ``<priority>`` in a ``<url>``."""
        parser = expat.ParserCreate("UTF-8", " ")
        depth = 0
        problem: list[str] = []

        def start(name: str, attributes: object) -> None:
            nonlocal depth
            depth += 1
            if depth == 2 and (" " not in name or name.startswith(SITEMAP_NS + " ")):
                problem.append(f"element {name.rpartition(' ')[2]!r} is not of an extension")

        def end(name: str) -> None:
            nonlocal depth
            depth -= 1

        def characters(data: str) -> None:
            if depth == 1 and data.strip():
                problem.append(f"text {data.strip()[:40]!r} outside any element")

        def declaration(prefix: str | None, uri: str) -> None:
            if depth >= 1:
                problem.append(f"it declares namespace {uri!r} itself; add it to namespaces")

        parser.StartElementHandler = start
        parser.EndElementHandler = end
        parser.CharacterDataHandler = characters
        parser.StartNamespaceDeclHandler = declaration
        parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
        try:
            encoded = fragment.encode("utf-8")
        except UnicodeEncodeError:
            raise FragmentError("it holds characters that are not valid Unicode") from None
        try:
            parser.Parse(self.open, False)
            parser.Parse(encoded, False)
            parser.Parse(self.close, True)
        except expat.ExpatError as exc:
            raise FragmentError(
                f"not well-formed XML ({expat.errors.messages[exc.code]})"
            ) from None
        if problem:
            raise FragmentError(problem[0])
