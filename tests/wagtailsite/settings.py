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
if DATABASES["default"]["ENGINE"] == "django.db.backends.mysql":
    # Wagtail's migrations compare CAST(... AS char), in the connection's collation, with
    # columns: the two must agree (the test database's is utf8mb4_unicode_ci).
    DATABASES["default"]["OPTIONS"]["init_command"] += ", collation_connection='utf8mb4_unicode_ci'"

WAGTAIL_SITE_NAME = "sitemapkit tests"
WAGTAIL_I18N_ENABLED = True
WAGTAIL_CONTENT_LANGUAGES = [("en", "English"), ("fr", "French")]
