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

Decisions worth knowing:

* Host names are converted with Python's built-in ``idna`` codec (IDNA 2003,
  the same conversion Django's own ``punycode()`` helper uses).  Labels with
  the four characters IDNA 2003 and IDNA 2008 convert differently (``ß``,
  ``ς``, ZWJ, ZWNJ) are refused rather than silently turned into another
  domain (``straße.de`` would become ``strasse.de``); write those hosts in
  their ``xn--`` form.
* Existing percent-escapes are kept byte for byte (``%c3%a9`` is not
  upper-cased), which is what makes ``build()`` idempotent; the flip side is
  that ``%7e`` and ``~`` are different strings for the directory check.
* Fragments (``#top``) are dropped: they never reach the server, so a
  crawler treats ``/a#top`` as ``/a``. An empty query (``/a?``) is dropped too.
* ``[`` and ``]`` are percent-encoded in paths and queries: RFC 3986 allows
  them only around an IPv6 literal host, though Django's ``iri_to_uri()``
  keeps them, and ``anyURI`` validators (libxml2's among them) refuse them.
* Dot segments (``.``/``..``, also written ``%2E``) are resolved before the
  directory check, so ``/shop/../admin/`` cannot pass for a URL under
  ``/shop/``.
"""

from __future__ import annotations

import functools
import ipaddress
import re
from collections.abc import Iterable
from urllib.parse import quote, unquote

from django.utils.functional import Promise

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

#: Query (and path ``;name=value``) parameters that carry a session id.  A
#: session id in a sitemap makes every crawl see new URLs and can leak a
#: logged-in session, so they are removed.  Names are compared
#: case-insensitively (``PHPSESSID``, ``osCsid``...).
#:
#: * ``sessionid``, ``session_id`` -- generic names, Django-style included;
#: * ``jsessionid`` -- Java servlet containers (usually ``;jsessionid=`` in the
#:   path, sometimes in the query);
#: * ``phpsessid`` -- PHP's ``session.use_trans_sid``;
#: * ``aspsessionid`` -- classic ASP;
#: * ``cfid``, ``cftoken`` -- ColdFusion client management;
#: * ``zenid`` -- Zen Cart; ``oscsid`` -- osCommerce.
#:
#: ``sid`` is deliberately *not* in the list: it is a common name for
#: unrelated things ("site id", "source id", "story id") and removing a real
#: parameter silently lists a wrong URL, which is worse than keeping a session
#: id.  Pass ``strip_params=(*DEFAULT_STRIP_PARAMS, "sid")`` to add it.
DEFAULT_STRIP_PARAMS: tuple[str, ...] = (
    "sessionid",
    "session_id",
    "jsessionid",
    "phpsessid",
    "aspsessionid",
    "cfid",
    "cftoken",
    "zenid",
    "oscsid",
)


class InvalidLocation(ValueError):
    """A URL that cannot be listed; ``str(exc)`` is a short human reason,
    e.g. ``'longer than 2048 characters'``."""


_DEFAULT_PORTS = {"http": 80, "https": 443}

# The fast path: "/" not followed by "/" (that would be a scheme-relative
# URL), then only unreserved characters and "/", which need no encoding.
# Dot segments still match this pattern, so callers also check for "/.".
_FAST_PATH = re.compile(r"/(?!/)[A-Za-z0-9._~/-]*\Z").match

# RFC 3986 scheme syntax; used to tell "mailto:x" (a scheme) from "foo/bar".
_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*):").match
_AUTHORITY_END = re.compile(r"[/?#]").search

# Characters kept as they are in path and query: the unreserved ones
# (always kept by quote()), the sub-delims, ":", "@", "/" and "?" (RFC 3986
# pchar and query), and "%", because by the time quote() runs every "%"
# starts a valid escape. "#", "[" and "]" are gen-delims that a path or query
# may not hold raw.
_SAFE = "/?@!$&'()*+,;=:%"
_ALREADY_ENCODED = re.compile(r"[A-Za-z0-9._~/?@!$&'()*+,;=:%-]*\Z").match
_LONE_PERCENT = re.compile(r"%(?![0-9A-Fa-f]{2})")

# "%2E" is an encoded "." (RFC 3986 section 6.2.2.2); servers decode it, so
# it takes part in dot-segment resolution too.
_MAYBE_DOT_SEGMENT = re.compile(r"/(?:\.|%2[Ee])").search

_LABEL = r"[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?"
_HOSTNAME = re.compile(rf"{_LABEL}(?:\.{_LABEL})*\Z").match
_IPV4_LIKE = re.compile(r"[0-9.]+\Z").match
_PORT = re.compile(r"[0-9]{1,5}\Z").match
# Mapped differently by IDNA 2003 (the stdlib codec) and IDNA 2008.
_IDNA_DEVIATIONS = frozenset("\u00df\u03c2\u200c\u200d")


def _encode(component: str) -> str:
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


def _param_name(param: str) -> str:
    """Lower-cased, percent-decoded name of a ``name=value`` parameter."""
    name = param.partition("=")[0]
    if "%" in name:
        name = unquote(name)
    return name.lower()


def _remove_dot_segments(path: str) -> str:
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


@functools.lru_cache(maxsize=256)
def _normalise_host(host: str) -> str:
    """Lower-case, IDNA-encode and validate a host name or IP literal."""
    if not host:
        raise ValueError("the URL has no host")
    if host.startswith("["):
        if not host.endswith("]"):
            raise ValueError(f"host {host!r} is not a valid IPv6 address")
        literal = host[1:-1]
        if "%" in literal:
            # Zone ids only make sense on the machine that wrote them.
            raise ValueError(f"host {host!r}: IPv6 zone ids are not allowed")
        try:
            return f"[{ipaddress.IPv6Address(literal).compressed}]"
        except ValueError:
            raise ValueError(f"host {host!r} is not a valid IPv6 address") from None
    name = host.lower()
    if not name.isascii():
        if not _IDNA_DEVIATIONS.isdisjoint(name):
            raise ValueError(
                f"host {host!r} contains a character that IDNA 2003 and 2008 "
                "convert differently; write the host in its 'xn--' form"
            )
        try:
            name = name.encode("idna").decode("ascii").lower()
        except UnicodeError:
            raise ValueError(f"host {host!r} is not a valid domain name") from None
    if name.endswith("."):
        # DNS-wise the same host, but a different string for every
        # comparison search engines make: one spelling only.
        raise ValueError(f"host {host!r} ends with a dot; write it without")
    if len(name) > 253 or not _HOSTNAME(name):
        raise ValueError(f"host {host!r} is not a valid domain name")
    if _IPV4_LIKE(name):
        # All-numeric names are IPv4 addresses: reject "999.1.1.1" or "1.2.3"
        # instead of listing a URL no resolver understands.
        try:
            ipaddress.IPv4Address(name)
        except ValueError:
            raise ValueError(f"host {host!r} is not a valid IPv4 address") from None
    return name


def _normalise_authority(authority: str, scheme: str) -> str:
    """``host[:port]`` in canonical form; the scheme's default port is dropped."""
    if "@" in authority:
        # "https://www.example.com@evil.example/" is a URL on evil.example.
        raise ValueError("user information ('user@') before the host is not allowed")
    if authority.startswith("["):
        # An IPv6 literal contains ":" itself; the port follows the "]".
        end = authority.find("]") + 1
        if not end:
            raise ValueError(f"host {authority!r} is not a valid IPv6 address")
        host, port = authority[:end], authority[end:]
        if port and not port.startswith(":"):
            raise ValueError(f"invalid host {authority!r}")
        port = port[1:]
    else:
        host, _, port = authority.partition(":")
    host = _normalise_host(host)
    if not port:
        # "host:" has an empty port, which means the default one.
        return host
    if not _PORT(port) or not 0 < int(port) <= 65535:
        raise ValueError(f"invalid port {port!r}")
    number = int(port)
    if number == _DEFAULT_PORTS[scheme]:
        return host
    return f"{host}:{number}"


def _split_rest(rest: str) -> tuple[str, str]:
    """Split what follows the authority into path and query; the fragment goes.

    Done by hand rather than with urllib.parse.urlsplit(), which silently
    deletes tabs and newlines instead of letting them be percent-encoded.
    """
    rest = rest.partition("#")[0]
    query = ""
    if "?" in rest:
        rest, _, query = rest.partition("?")
    return rest, query


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
    if scheme not in _DEFAULT_PORTS:
        raise ValueError(f"scheme must be http or https, not {scheme!r}")
    rest = text[match.end() + 2 :]
    end = _AUTHORITY_END(rest)
    authority, rest = (rest[: end.start()], rest[end.start() :]) if end else (rest, "")
    if "?" in rest or "#" in rest:
        raise ValueError(f"{text!r} must not contain a query string or fragment")
    netloc = _normalise_authority(authority, scheme)
    path = _encode(rest) if rest else ""
    if path and _MAYBE_DOT_SEGMENT(path):
        path = _remove_dot_segments(path)
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

    def build(self, raw: object) -> str:
        """Return the absolute URI for ``raw`` or raise :class:`InvalidLocation`."""
        # Fast path: an exact str (not a subclass or lazy string) holding a
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
            path, query = _split_rest(text)
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
                if scheme not in _DEFAULT_PORTS:
                    raise InvalidLocation(f"unsupported scheme {scheme!r}")
                if not text.startswith("//", match.end()):
                    raise InvalidLocation("no host after the scheme")
                rest = text[match.end() + 2 :]
            end = _AUTHORITY_END(rest)
            authority, rest = (rest[: end.start()], rest[end.start() :]) if end else (rest, "")
            if authority != self._netloc:
                # Only normalise when the spelling differs (case, IDNA, port).
                try:
                    netloc = _normalise_authority(authority, scheme)
                except ValueError as exc:
                    raise InvalidLocation(str(exc)) from None
                if netloc != self._netloc:
                    raise InvalidLocation(f"points to another host ({netloc})")
            if scheme != self._scheme:
                raise InvalidLocation(f"uses another scheme ({scheme}, expected {self._scheme})")
            path, query = _split_rest(rest)
            if not path:
                path = "/"

        path = _encode(path)
        if ";" in path and self._strip:
            path = self._strip_path_params(path)
        if _MAYBE_DOT_SEGMENT(path):
            path = _remove_dot_segments(path)
        url = self._origin + path
        if query:
            query = _encode(query)
            if self._strip:
                query = self._strip_query(query)
            if query:
                url = f"{url}?{query}"
        return url

    def _strip_query(self, query: str) -> str:
        """Remove session-id parameters, leaving the others untouched."""
        params = query.split("&")
        kept = [param for param in params if _param_name(param) not in self._strip]
        if len(kept) == len(params):
            return query
        # "?sessionid=1&" leaves only empty pieces: nothing worth a "?".
        return "&".join(kept) if any(kept) else ""

    def _strip_path_params(self, path: str) -> str:
        """Remove ``;jsessionid=...``-style parameters from path segments."""
        segments = path.split("/")
        for index, segment in enumerate(segments):
            if ";" in segment:
                head, *params = segment.split(";")
                kept = [param for param in params if _param_name(param) not in self._strip]
                segments[index] = ";".join([head, *kept])
        return "/".join(segments)
