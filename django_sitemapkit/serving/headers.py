"""The header every response of the package's own files carries: ``nosniff``."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import ParamSpec, TypeVar

from django.http import HttpResponseBase

P = ParamSpec("P")
R = TypeVar("R", bound=HttpResponseBase)


def nosniff(view: Callable[P, R]) -> Callable[P, R]:
    """``view``, its responses sent with ``X-Content-Type-Options: nosniff``.

    A browser then takes each file for the type it is sent as (XML, gzip,
    XSL, text) and never for HTML it guessed from bytes a row supplied, also
    where the project has no ``SecurityMiddleware``.
    """

    @functools.wraps(view)
    def wrapped(*args: P.args, **kwargs: P.kwargs) -> R:
        response = view(*args, **kwargs)
        response["X-Content-Type-Options"] = "nosniff"
        return response

    return wrapped
