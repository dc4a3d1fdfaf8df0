"""``Sitemap.location(obj)`` made into a ``<loc>`` (docs/protocol.md), or :class:`InvalidLocation`
saying why, so the caller skips one row. Search engines compare URLs as strings: every spelling of
a host becomes one (IDNA 2003, as Django's ``punycode()``). Dot segments (``%2E`` too) are resolved,
so ``/shop/../admin/`` cannot pass for a URL under ``/shop/``. Session ids are removed: every crawl
would see new URLs, and sessions would leak."""

from __future__ import annotations

import functools
import ipaddress
import re
from collections.abc import Collection, Iterable
from urllib.parse import quote, unquote

from django.utils.functional import Promise

# sitemaps.org says "less than 2,048 characters"; Google and Bing accept 2,048.
MAX_URL_LENGTH = 2048

DEFAULT_PORTS = {"http": 80, "https": 443}

# Query or ``;name=value`` parameters holding a session id, case-insensitive. Not
# ``sid``: it often names something else ("site id"), and a wrong URL is worse.
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
    """A URL that cannot be listed; ``str(exc)`` says why."""


# "/" not followed by "/" (a scheme-relative URL), then only characters that need
# no encoding. Dot segments still match, so callers also check for "/.".
_FAST_PATH = re.compile(r"/(?!/)[A-Za-z0-9._~/-]*\Z").match
_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*):").match
_AUTHORITY_END = re.compile(r"[/?#]").search

_LABEL = r"[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?"
_HOSTNAME = re.compile(rf"{_LABEL}(?:\.{_LABEL})*\Z").match
_IPV4_LIKE = re.compile(r"[0-9.]+\Z").match
_PORT = re.compile(r"[0-9]{1,5}\Z").match
# Mapped otherwise by IDNA 2008 (ß, ς, ZWJ, ZWNJ): refused rather than made another domain.
_IDNA_DEVIATIONS = frozenset("\u00df\u03c2\u200c\u200d")

# Kept in path and query: unreserved, sub-delims, ":@/?" and "%" (by quote() time each "%" starts
# an escape); not "[" or "]": libxml2's anyURI refuses them outside an IPv6 host.
_SAFE = "/?@!$&'()*+,;=:%"
_ALREADY_ENCODED = re.compile(r"[A-Za-z0-9._~/?@!$&'()*+,;=:%-]*\Z").match
_LONE_PERCENT = re.compile(r"%(?![0-9A-Fa-f]{2})")

# Servers decode "%2E" to ".".
may_hold_dot_segment = re.compile(r"/(?:\.|%2[Ee])").search


def as_string(value: object, error: type[ValueError] = ValueError) -> str:
    if isinstance(value, Promise):
        value = str(value)
    if not isinstance(value, str):
        raise error(f"not a string but {type(value).__name__}")
    return value


def normalise_host(host: str) -> str:
    """Lower-case, IDNA-encode and validate a host name or IP literal."""
    if not host:
        raise InvalidLocation("the URL has no host")
    if host.startswith("["):
        return _ipv6_host(host)
    name = host.lower()
    if not name.isascii():
        if not _IDNA_DEVIATIONS.isdisjoint(name):
            raise InvalidLocation(
                f"host {host!r} contains a character that IDNA 2003 and 2008 "
                "convert differently; write the host in its 'xn--' form"
            )
        try:
            name = name.encode("idna").decode("ascii").lower()
        except UnicodeError:
            raise InvalidLocation(f"host {host!r} is not a valid domain name") from None
    if name.endswith("."):  # the same host for DNS, another string for search engines
        raise InvalidLocation(f"host {host!r} ends with a dot; write it without")
    if len(name) > 253 or not _HOSTNAME(name):
        raise InvalidLocation(f"host {host!r} is not a valid domain name")
    if _IPV4_LIKE(name):  # no resolver understands "999.1.1.1" or "1.2.3"
        try:
            ipaddress.IPv4Address(name)
        except ValueError:
            raise InvalidLocation(f"host {host!r} is not a valid IPv4 address") from None
    return name


def _ipv6_host(host: str) -> str:
    if not host.endswith("]"):
        raise InvalidLocation(f"host {host!r} is not a valid IPv6 address")
    literal = host[1:-1]
    if "%" in literal:  # zone ids only make sense on the machine that wrote them
        raise InvalidLocation(f"host {host!r}: IPv6 zone ids are not allowed")
    try:
        return f"[{ipaddress.IPv6Address(literal).compressed}]"
    except ValueError:
        raise InvalidLocation(f"host {host!r} is not a valid IPv6 address") from None


@functools.lru_cache(maxsize=256)
def normalise_authority(authority: str, scheme: str) -> str:
    """``host[:port]`` in canonical form; the scheme's default port is dropped."""
    if "@" in authority:
        # "https://www.example.com@evil.example/" is a URL on evil.example.
        raise InvalidLocation("user information ('user@') before the host is not allowed")
    if authority.startswith("["):  # an IPv6 literal holds ":" itself
        end = authority.find("]") + 1
        if not end:
            raise InvalidLocation(f"host {authority!r} is not a valid IPv6 address")
        host, port = authority[:end], authority[end:]
        if port and not port.startswith(":"):
            raise InvalidLocation(f"invalid host {authority!r}")
        port = port[1:]
    else:
        host, _, port = authority.partition(":")
    host = normalise_host(host)
    if not port:  # "host:" means the default port
        return host
    if not _PORT(port) or not 0 < int(port) <= 65535:
        raise InvalidLocation(f"invalid port {port!r}")
    number = int(port)
    return host if number == DEFAULT_PORTS[scheme] else f"{host}:{number}"


def percent_encode(component: str) -> str:
    """Percent-encode what RFC 3986 does not allow in a path or query (idempotent)."""
    if "%" in component:  # a "%" that starts no escape is a literal percent sign
        component = _LONE_PERCENT.sub("%25", component)
    if _ALREADY_ENCODED(component):
        return component
    try:
        return quote(component, safe=_SAFE)
    except UnicodeEncodeError:  # lone surrogates, e.g. from badly decoded bytes
        raise InvalidLocation("contains characters that are not valid Unicode") from None


def remove_dot_segments(path: str) -> str:
    """Resolve "." and ".." segments of an absolute path (RFC 3986 5.2.4)."""
    segments = path.split("/")
    output: list[str] = []
    last = len(segments) - 1
    for index in range(1, last + 1):  # segments[0] is the "" before the leading "/"
        segment = segments[index]
        plain = segment.replace("%2e", ".").replace("%2E", ".") if "%" in segment else segment
        if plain in (".", ".."):
            if plain == ".." and output:
                output.pop()
            if index == last:
                output.append("")  # "/a/b/.." is the directory "/a/": keep its slash
        elif plain.startswith(".") and plain.partition(";")[0] in (".", ".."):
            # Tomcat reads "..;x=1" as "..", which could leave the directory: refuse, not guess.
            raise InvalidLocation("contains an ambiguous dot segment with parameters")
        else:
            output.append(segment)
    return "/" + "/".join(output)


def split_rest(rest: str) -> tuple[str, str]:
    """Path and query after the authority; not urlsplit(), which deletes tabs and newlines."""
    path, _, query = rest.partition("#")[0].partition("?")
    return path, query


def param_name(param: str) -> str:
    name = param.partition("=")[0]
    return (unquote(name) if "%" in name else name).lower()


def strip_query(query: str, names: Collection[str]) -> str:
    """``query`` without its parameters named in ``names`` (lower-case)."""
    params = query.split("&")
    kept = [param for param in params if param_name(param) not in names]
    if len(kept) == len(params):
        return query
    # "?sessionid=1&" leaves only empty pieces: nothing worth a "?".
    return "&".join(kept) if any(kept) else ""


def strip_path_params(path: str, names: Collection[str]) -> str:
    """``path`` without its ``;name=value`` segment parameters named in ``names`` (lower-case)."""
    segments = path.split("/")
    for index, segment in enumerate(segments):
        if ";" in segment:
            head, *params = segment.split(";")
            kept = [param for param in params if param_name(param) not in names]
            segments[index] = ";".join([head, *kept])
    return "/".join(segments)


def split_url(
    text: str, implied_scheme: str, not_absolute: str | None = None
) -> tuple[str, str, str, str]:
    """Scheme, ``host[:port]`` (normalised), path (at least "/") and query of an http(s) URL; a
    scheme-relative one is in ``implied_scheme``. ``not_absolute``, if given, words the refusal
    of any URL without "scheme://" (a relative URL, "mailto:", "https:x")."""
    if text.startswith("//"):
        scheme, after = implied_scheme, text[2:]
    else:
        match = _SCHEME(text)
        if not_absolute and (match is None or not text.startswith("//", match.end())):
            raise InvalidLocation(not_absolute)
        if match is None:
            raise InvalidLocation("relative URL; must start with '/' or 'http(s)://'")
        scheme = match.group(1).lower()
        if scheme not in DEFAULT_PORTS:
            raise InvalidLocation(f"unsupported scheme {scheme!r}")
        if not text.startswith("//", match.end()):
            raise InvalidLocation("no host after the scheme")
        after = text[match.end() + 2 :]
    end = _AUTHORITY_END(after)
    authority, rest = (after[: end.start()], after[end.start() :]) if end else (after, "")
    path, query = split_rest(rest)
    return scheme, normalise_authority(authority, scheme), path or "/", query


def join_url(origin: str, path: str, query: str, strip: Collection[str] = ()) -> str:
    """``origin`` with ``path`` and ``query`` percent-encoded, dot segments resolved, without the
    parameters named in ``strip`` (lower-case)."""
    path = percent_encode(path)
    if ";" in path and strip:
        path = strip_path_params(path, strip)
    if may_hold_dot_segment(path):
        path = remove_dot_segments(path)
    url = origin + path
    if query:
        query = percent_encode(query)
        if strip:
            query = strip_query(query, strip)
        if query:
            url = f"{url}?{query}"
    return url


def parse_base_url(value: object) -> str:
    """BASE_URL validated and normalised: ``'https://Bücher.example/shop/'`` ->
    ``'https://xn--bcher-kva.example/shop'``; a precise ValueError otherwise."""
    if not isinstance(value, str | Promise):
        raise ValueError(f"must be a string, not {type(value).__name__}")
    text = str(value).strip()
    if not text:
        raise ValueError("must not be empty")
    match = _SCHEME(text)
    if match is None or not text.startswith("//", match.end()):
        raise ValueError(f"{text!r} must be an absolute URL such as 'https://www.example.com'")
    scheme = match.group(1).lower()
    if scheme not in DEFAULT_PORTS:
        raise ValueError(f"scheme must be http or https, not {scheme!r}")
    if "?" in text or "#" in text:  # a scheme holds neither
        raise ValueError(f"{text!r} must not contain a query string or fragment")
    scheme, netloc, path, _ = split_url(text, scheme)
    return join_url(f"{scheme}://{netloc}", path, "").rstrip("/")


class LocationBuilder:
    """``<loc>`` values on ``base_url`` inside ``directory_url`` (default ``base_url + "/"``),
    without the ``strip_params``. ``build()`` runs once a row: a plain path is one regex match."""

    def __init__(
        self,
        base_url: str,
        *,
        directory_url: str | None = None,
        strip_params: Iterable[str] = DEFAULT_STRIP_PARAMS,
    ) -> None:
        self.base_url = parse_base_url(base_url)
        self._scheme, self._netloc, path, _ = split_url(self.base_url, "")
        self._prefix = path.rstrip("/")  # "" for a site at the root
        self._origin = f"{self._scheme}://{self._netloc}"
        self._origin_slash = self._origin + "/"
        self._origin_len = len(self._origin)
        self._strip = frozenset(name.lower() for name in strip_params)
        # _normalise() needs a directory before it can normalise directory_url.
        self.directory_url = self.base_url + "/"
        if directory_url is not None:
            if "?" in directory_url or "#" in directory_url:
                raise ValueError("directory_url must not contain a query string or fragment")
            try:
                directory = self._normalise(directory_url)
            except InvalidLocation as exc:
                raise ValueError(f"invalid directory_url {directory_url!r}: {exc}") from None
            # Without its slash, "/shopping/" would pass as inside "/shop".
            self.directory_url = directory if directory.endswith("/") else directory + "/"
        self._directory_is_base = self.directory_url == self.base_url + "/"

    def with_scheme(self, scheme: str) -> LocationBuilder:
        if scheme == self._scheme:
            return self
        swap = len(self._scheme)
        return LocationBuilder(
            scheme + self.base_url[swap:],
            directory_url=scheme + self.directory_url[swap:],
            strip_params=self._strip,
        )

    def build(self, raw: object) -> str:
        """The absolute URI for ``raw``, or :class:`InvalidLocation`."""
        # Fast: a plain-path str, bare or on our origin; the rest goes below, which words errors.
        if type(raw) is str:
            if _FAST_PATH(raw) and "/." not in raw:
                url = self.base_url + raw
                # base_url + "/..." is inside the default directory by construction.
                if len(url) <= MAX_URL_LENGTH and (
                    self._directory_is_base or url.startswith(self.directory_url)
                ):
                    return url
            elif (
                raw.startswith(self._origin_slash)
                and _FAST_PATH(raw, self._origin_len)
                and "/." not in raw
                and len(raw) <= MAX_URL_LENGTH
                # An absolute URL may lie outside the base prefix: always test.
                and raw.startswith(self.directory_url)
            ):
                return raw
        url = self._normalise(raw)
        if not url.startswith(self.directory_url):
            raise InvalidLocation(f"outside the sitemap directory {self.directory_url}")
        if len(url) > MAX_URL_LENGTH:
            raise InvalidLocation(f"longer than {MAX_URL_LENGTH} characters")
        return url

    def _normalise(self, raw: object) -> str:
        if raw is None:
            raise InvalidLocation("no location (None)")
        text = as_string(raw, InvalidLocation).strip()
        if not text:
            raise InvalidLocation("empty location")
        if text.startswith("/") and not text.startswith("//"):
            path, query = split_rest(text)
            return join_url(self._origin, self._prefix + path, query, self._strip)
        scheme, netloc, path, query = split_url(text, self._scheme)
        if netloc != self._netloc:
            raise InvalidLocation(f"points to another host ({netloc})")
        if scheme != self._scheme:
            raise InvalidLocation(f"uses another scheme ({scheme}, expected {self._scheme})")
        return join_url(self._origin, path, query, self._strip)
