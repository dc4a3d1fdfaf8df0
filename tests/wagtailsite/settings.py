"""The test settings with Wagtail: its pages in two locales (tests/wagtailsite/).

Its tests run in a pytest of their own (tests/test_wagtail.py starts it), so
the main suite's settings stay without Wagtail and its migrations.
"""

from tests.settings import *  # noqa: F403
from tests.settings import DATABASES, INSTALLED_APPS

INSTALLED_APPS = [*INSTALLED_APPS, "wagtail", "modelcluster", "taggit", "tests.wagtailsite"]

# A database of its own beside the main run's, which is open meanwhile.
if DATABASES["default"]["ENGINE"] != "django.db.backends.sqlite3":
    DATABASES["default"].setdefault("TEST", {})
    DATABASES["default"]["TEST"]["NAME"] = f"test_{DATABASES['default']['NAME']}_wagtail"

WAGTAIL_SITE_NAME = "sitemapkit tests"
WAGTAIL_I18N_ENABLED = True
WAGTAIL_CONTENT_LANGUAGES = [("en", "English"), ("fr", "French")]
