"""``tests/urls_contrib.py`` with its pages under ``i18n_patterns`` (every language prefixed)."""

from django.conf.urls.i18n import i18n_patterns

from tests.urls_contrib import pages, sitemap_urls

urlpatterns = sitemap_urls() + i18n_patterns(*pages())
