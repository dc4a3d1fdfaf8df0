"""Session-id parameters taken out of a sitemap URL's query and path.

A session id in a sitemap makes every crawl see new URLs and can leak a
logged-in session, so the parameters that carry one are removed; every other
parameter keeps its place and spelling.
"""

from __future__ import annotations

from collections.abc import Collection
from urllib.parse import unquote

__all__ = ["DEFAULT_STRIP_PARAMS", "param_name", "strip_path_params", "strip_query"]

#: Query (and path ``;name=value``) parameters that carry a session id.
#: Names are compared case-insensitively (``PHPSESSID``, ``osCsid``...).
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


def param_name(param: str) -> str:
    """Lower-cased, percent-decoded name of a ``name=value`` parameter."""
    name = param.partition("=")[0]
    if "%" in name:
        name = unquote(name)
    return name.lower()


def strip_query(query: str, names: Collection[str]) -> str:
    """``query`` without its parameters named in ``names`` (lower-case), the others untouched."""
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
