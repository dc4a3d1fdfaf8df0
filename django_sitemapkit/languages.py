"""The languages sitemaps are written in: one for every request, and the site's own.

A sitemap lists URLs, and with ``i18n_patterns`` a URL carries the language
active when it is reversed. Rendering under the requester's language would
make the bytes depend on ``Accept-Language`` (and cache one visitor's choice
for everyone), so every file is rendered in one language, the site's default,
and a section lists other languages only through ``i18n``.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from django.conf import settings
from django.conf.urls.i18n import is_language_prefix_patterns_used
from django.utils import translation


def site_languages() -> list[str]:
    """The codes of ``settings.LANGUAGES``, in order: contrib's default ``languages``."""
    return [code for code, _name in settings.LANGUAGES]


def default_language() -> str:
    """The language every sitemap file is rendered in.

    ``LANGUAGE_CODE`` itself where ``i18n_patterns`` leaves the default
    language unprefixed (``prefix_default_language=False``: its URLs carry no
    prefix only under that exact code); otherwise the variant of it that
    ``LANGUAGES`` offers, so that startproject's ``"en-us"`` with ``"en"`` in
    ``LANGUAGES`` reverses ``/en/...``, the URL that resolves, not ``/en-us/...``.
    """
    code: str = settings.LANGUAGE_CODE
    used, prefixes_default = is_language_prefix_patterns_used(settings.ROOT_URLCONF)
    if used and not prefixes_default:
        return code
    try:
        return translation.get_supported_language_variant(code)
    except LookupError:
        return code


@contextmanager
def rendering_language() -> Iterator[None]:
    """Render in :func:`default_language`, whatever the request activated."""
    with translation.override(default_language()):
        yield
