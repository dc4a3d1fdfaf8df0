"""Turn what ``Sitemap.location(obj)`` returns into the URI written in ``<loc>``.

The sitemaps.org protocol asks for fully-qualified, properly escaped URIs
(RFC 3986) of at most 2,048 characters, on the same scheme and host as the
sitemap and below the sitemap's own directory.  Applications, however, return
all sorts of things from ``location()``: relative paths, IRIs with ``é`` or
``日本``, stray spaces, session ids appended by some middleware...
:class:`LocationBuilder` normalises the valid ones and rejects the others with
:class:`InvalidLocation`, whose message says why, so the caller can log and
skip a single bad row instead of writing a sitemap that search engines refuse.

``build()`` runs once per URL, possibly for millions of rows, so everything
that depends only on the configuration is computed once in ``__init__`` and
the common case (a plain ASCII path) is answered by one regex match and a
string concatenation.

The pieces live next door: the host and port in :mod:`.hosts`, path and
query encoding and dot segments in :mod:`.uripaths`, session-id parameters
in :mod:`.sessionids`.  Fragments (``#top``) are dropped, and so is an empty
query (``/a?``): neither reaches the server.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from django.utils.functional import Promise

from django_sitemapkit.protocol.hosts import DEFAULT_PORTS, normalise_authority
from django_sitemapkit.protocol.sessionids import (
    DEFAULT_STRIP_PARAMS,
    strip_path_params,
    strip_query,
)
from django_sitemapkit.protocol.uripaths import (
    InvalidLocation,
    may_hold_dot_segment,
    percent_encode,
    remove_dot_segments,
    split_rest,
)

__all__ = [
    "DEFAULT_STRIP_PARAMS",
    "MAX_URL_LENGTH",
    "InvalidLocation",
    "LocationBuilder",
    "parse_base_url",
]

#: sitemaps.org: "[loc] must be less than 2,048 characters"; Google and Bing
#: accept 2,048, so that is the limit applied.
MAX_URL_LENGTH = 2048

# The common case, checked first: "/" not followed by "/" (that would be a scheme-relative
# URL), then only unreserved characters and "/", which need no encoding.
# Dot segments still match this pattern, so callers also check for "/.".
_FAST_PATH = re.compile(r"/(?!/)[A-Za-z0-9._~/-]*\Z").match

# RFC 3986 scheme syntax; used to tell "mailto:x" (a scheme) from "foo/bar".
_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*):").match
_AUTHORITY_END = re.compile(r"[/?#]").search


def parse_base_url(value: object) -> str:
    """Validate and normalise BASE_URL.

    An http/https scheme, a host, an optional path prefix; no query, fragment
    or user information.  The host is IDNA-encoded and lower-cased, the
    scheme's default port removed and the trailing slash stripped:
    ``'https://Bücher.example/shop/'`` -> ``'https://xn--bcher-kva.example/shop'``.

    Raises ValueError with a precise message otherwise (used by system checks).
    """
    if isinstance(value, Promise):
        value = str(value)
    if not isinstance(value, str):
        raise ValueError(f"must be a string, not {type(value).__name__}")
    text = value.strip()
    if not text:
        raise ValueError("must not be empty")
    match = _SCHEME(text)
    if match is None or not text.startswith("//", match.end()):
        raise ValueError(f"{text!r} must be an absolute URL such as 'https://www.example.com'")
    scheme = match.group(1).lower()
    if scheme not in DEFAULT_PORTS:
        raise ValueError(f"scheme must be http or https, not {scheme!r}")
    rest = text[match.end() + 2 :]
    end = _AUTHORITY_END(rest)
    authority, rest = (rest[: end.start()], rest[end.start() :]) if end else (rest, "")
    if "?" in rest or "#" in rest:
        raise ValueError(f"{text!r} must not contain a query string or fragment")
    netloc = normalise_authority(authority, scheme)
    path = percent_encode(rest) if rest else ""
    if path and may_hold_dot_segment(path):
        path = remove_dot_segments(path)
    return f"{scheme}://{netloc}{path.rstrip('/')}"


class LocationBuilder:
    """Build ``<loc>`` values for one sitemap.

    ``base_url`` is ``scheme://host[:port][/prefix]`` (see
    :func:`parse_base_url`); paths returned by ``location()`` are appended to
    it.  ``directory_url`` is the directory the sitemap file lives in (an
    absolute URL, or a path resolved like a location); every URL must be
    inside it.  It defaults to ``base_url + "/"``.  ``strip_params`` names the
    session-id parameters to remove (case-insensitive).
    """

    def __init__(
        self,
        base_url: str,
        *,
        directory_url: str | None = None,
        strip_params: Iterable[str] = DEFAULT_STRIP_PARAMS,
    ) -> None:
        self.base_url = parse_base_url(base_url)
        scheme, _, after = self.base_url.partition("://")
        slash = after.find("/")
        netloc, prefix = (after[:slash], after[slash:]) if slash >= 0 else (after, "")
        self._scheme = scheme
        self._netloc = netloc
        self._origin = f"{scheme}://{netloc}"
        self._origin_slash = self._origin + "/"
        self._origin_len = len(self._origin)
        self._prefix = prefix
        self._strip = frozenset(name.lower() for name in strip_params)
        # The directory must be known before _normalise() can be used for it.
        self._directory = self.base_url + "/"
        if directory_url is not None:
            if "?" in directory_url or "#" in directory_url:
                raise ValueError("directory_url must not contain a query string or fragment")
            try:
                directory = self._normalise(directory_url)
            except InvalidLocation as exc:
                raise ValueError(f"invalid directory_url {directory_url!r}: {exc}") from None
            # A directory without its slash would let "/shopping/" pass as
            # being inside "/shop".
            self._directory = directory if directory.endswith("/") else directory + "/"
        self._directory_is_base = self._directory == self.base_url + "/"

    @property
    def directory_url(self) -> str:
        return self._directory

    def with_scheme(self, scheme: str) -> LocationBuilder:
        """The same builder for ``scheme``'s URLs (a section's ``protocol``)."""
        if scheme == self._scheme:
            return self
        swap = len(self._scheme)
        return LocationBuilder(
            scheme + self.base_url[swap:],
            directory_url=scheme + self._directory[swap:],
            strip_params=self._strip,
        )

    def build(self, raw: object) -> str:
        """Return the absolute URI for ``raw`` or raise :class:`InvalidLocation`."""
        # The common case: an exact str (not a subclass or lazy string) holding a
        # plain path, or an absolute URL on our own origin with a plain path.
        # Anything unusual, including every error, goes to the slow path,
        # which is the single source of truth for messages.
        if type(raw) is str:
            if _FAST_PATH(raw) and "/." not in raw:
                url = self.base_url + raw
                # base_url + "/..." is inside the default directory by
                # construction; only a custom directory needs the test.
                if len(url) <= MAX_URL_LENGTH and (
                    self._directory_is_base or url.startswith(self._directory)
                ):
                    return url
            elif (
                raw.startswith(self._origin_slash)
                and _FAST_PATH(raw, self._origin_len)
                and "/." not in raw
                and len(raw) <= MAX_URL_LENGTH
                # An absolute URL may lie outside the base prefix: always test.
                and raw.startswith(self._directory)
            ):
                return raw
        return self._build_slow(raw)

    def _build_slow(self, raw: object) -> str:
        url = self._normalise(raw)
        if not url.startswith(self._directory):
            raise InvalidLocation(f"outside the sitemap directory {self._directory}")
        if len(url) > MAX_URL_LENGTH:
            raise InvalidLocation(f"longer than {MAX_URL_LENGTH} characters")
        return url

    def _normalise(self, raw: object) -> str:
        """Everything ``build()`` does except the directory and length checks."""
        if isinstance(raw, Promise):
            raw = str(raw)
        if raw is None:
            raise InvalidLocation("no location (None)")
        if not isinstance(raw, str):
            raise InvalidLocation(f"not a string but {type(raw).__name__}")
        text = raw.strip()
        if not text:
            raise InvalidLocation("empty location")

        if text.startswith("/") and not text.startswith("//"):
            path, query = split_rest(text)
            path = self._prefix + path
        else:
            if text.startswith("//"):
                # Scheme-relative: the base's scheme is implied.
                scheme = self._scheme
                rest = text[2:]
            else:
                match = _SCHEME(text)
                if match is None:
                    raise InvalidLocation("relative URL; must start with '/' or 'http(s)://'")
                scheme = match.group(1).lower()
                if scheme not in DEFAULT_PORTS:
                    raise InvalidLocation(f"unsupported scheme {scheme!r}")
                if not text.startswith("//", match.end()):
                    raise InvalidLocation("no host after the scheme")
                rest = text[match.end() + 2 :]
            end = _AUTHORITY_END(rest)
            authority, rest = (rest[: end.start()], rest[end.start() :]) if end else (rest, "")
            if authority != self._netloc:
                # Only normalise when the spelling differs (case, IDNA, port).
                try:
                    netloc = normalise_authority(authority, scheme)
                except ValueError as exc:
                    raise InvalidLocation(str(exc)) from None
                if netloc != self._netloc:
                    raise InvalidLocation(f"points to another host ({netloc})")
            if scheme != self._scheme:
                raise InvalidLocation(f"uses another scheme ({scheme}, expected {self._scheme})")
            path, query = split_rest(rest)
            if not path:
                path = "/"

        path = percent_encode(path)
        if ";" in path and self._strip:
            path = strip_path_params(path, self._strip)
        if may_hold_dot_segment(path):
            path = remove_dot_segments(path)
        url = self._origin + path
        if query:
            query = percent_encode(query)
            if self._strip:
                query = strip_query(query, self._strip)
            if query:
                url = f"{url}?{query}"
        return url
