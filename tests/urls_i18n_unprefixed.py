"""``tests/urls_i18n.py`` with ``prefix_default_language=False``."""

from django.conf.urls.i18n import i18n_patterns

from tests.urls_contrib import pages, sitemap_urls

urlpatterns = sitemap_urls() + i18n_patterns(*pages(), prefix_default_language=False)
