"""Django settings for the django-sitemapkit test suite.

Backends come from the environment (django-environ URLs):

* ``DATABASE_URL`` -- default ``sqlite://:memory:``; e.g.
  ``postgres://postgres@127.0.0.1:5432/test`` or ``mysql://root@127.0.0.1:3306/test``.
  pytest-django creates (and drops) ``test_<NAME>`` on PostgreSQL/MariaDB.
* ``CACHE_URL`` -- default ``locmemcache://``; e.g. ``redis://127.0.0.1:6379/1``
  (Django's own ``RedisCache`` unless django-redis is installed).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import environ

BASE_DIR = Path(__file__).resolve().parent

env = environ.Env()

SECRET_KEY = "django-sitemapkit-tests-not-secret"
DEBUG = False
ALLOWED_HOSTS = ["testserver", "localhost", "127.0.0.1", "www.example.com", "example.com"]

INSTALLED_APPS = [
    # The admin: its sitemap status page (tests/test_admin.py).
    "django.contrib.admin",
    "django.contrib.contenttypes",
    "django.contrib.auth",
    "django.contrib.sessions",
    "django.contrib.messages",
    # Its templates render contrib's views, which tests compare with sitemapkit's.
    "django.contrib.sitemaps",
    # The app config without sitemap autodiscovery: tests register what they need.
    "django_sitemapkit.apps.SimpleSitemapkitConfig",
    "tests.testapp",
]

MIDDLEWARE: list[str] = [
    # What the admin needs, and nothing else.
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
]

ROOT_URLCONF = "tests.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ]
        },
    }
]

# --------------------------------------------------------------------------- database
DATABASES: dict[str, dict[str, Any]] = {
    "default": env.db("DATABASE_URL", default="sqlite://:memory:"),
}

if DATABASES["default"]["ENGINE"] == "django.db.backends.mysql":
    # No mysqlclient (C headers) on a fresh machine: use PyMySQL under the MySQLdb name.
    # Django's MySQL backend requires MySQLdb.version_info >= (2, 2, 1).
    import pymysql

    pymysql.version_info = (2, 2, 1, "final", 0)
    pymysql.install_as_MySQLdb()

    _db = DATABASES["default"]
    _db.setdefault("OPTIONS", {})
    _db["OPTIONS"].setdefault("charset", "utf8mb4")
    _db["OPTIONS"].setdefault("init_command", "SET sql_mode='STRICT_TRANS_TABLES'")
    _db.setdefault("TEST", {})
    _db["TEST"].setdefault("CHARSET", "utf8mb4")
    _db["TEST"].setdefault("COLLATION", "utf8mb4_unicode_ci")

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --------------------------------------------------------------------------- cache
CACHES = {"default": env.cache("CACHE_URL", default="locmemcache://")}

# --------------------------------------------------------------------------- misc
USE_TZ = True
# The live server (crawler tests) wraps the site in a static-files handler.
STATIC_URL = "/static/"
TIME_ZONE = "UTC"
LANGUAGE_CODE = "en-us"
LANGUAGES = [("en", "English"), ("fr", "French"), ("de", "German")]
USE_I18N = True

# Fast hashing: the suite never needs real password security.
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

SITEMAPKIT = {"BASE_URL": "https://www.example.com"}
