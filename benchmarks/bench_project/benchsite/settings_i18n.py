"""The benchmark project in three languages: the settings of the ``i18n`` contenders.

The same database, table and environment variables as ``benchsite.settings``;
only translation differs. ``LANGUAGES`` offers en, fr and de, and the article
pattern is under ``i18n_patterns`` (``benchsite/urls_i18n.py``), so each
language's URLs carry its prefix (``/fr/articles/<slug>/``). The other
contenders keep ``USE_I18N = False`` and their unprefixed URLconf.
"""

from benchsite.settings import *  # noqa: F403

ROOT_URLCONF = "benchsite.urls_i18n"
USE_I18N = True
# x-default (sitemapkit's and contrib's alike) is the URL of LANGUAGE_CODE
# with its prefix removed; "en-us" is in no item's languages, so none would be written.
LANGUAGE_CODE = "en"
LANGUAGES = [("en", "English"), ("fr", "French"), ("de", "German")]
# bench/sitemaps.py registers the i18n section (and only it).
BENCH_SITEMAPKIT_MODE = "i18n"
