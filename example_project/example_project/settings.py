"""Settings for the django-sitemapkit example project.

Everything that varies between machines is read from the environment through
django-environ (an optional ``example_project/.env`` file is read too):

* ``DATABASE_URL``        default ``sqlite:///<example_project>/db.sqlite3``; also
                          ``postgres://``, ``mysql://`` or ``mariadb://`` (PyMySQL)
* ``CACHE_URL``           default ``locmemcache://``
* ``SITEMAPKIT_BASE_URL`` default ``http://127.0.0.1:8000``
* ``DEBUG``               default ``True``
* ``ALLOWED_HOSTS``       comma separated, added to 127.0.0.1 and localhost
* ``SECRET_KEY``          default: an insecure development key
"""

from pathlib import Path

import environ

BASE_DIR = Path(__file__).resolve().parent.parent  # example_project/

env = environ.Env(DEBUG=(bool, True))
if (BASE_DIR / ".env").is_file():
    environ.Env.read_env(BASE_DIR / ".env")

DEBUG = env("DEBUG")
SECRET_KEY = env("SECRET_KEY", default="django-insecure-example-project-only-do-not-deploy")
ALLOWED_HOSTS = ["127.0.0.1", "localhost", *env.list("ALLOWED_HOSTS", default=[])]

INSTALLED_APPS = [
    "django.contrib.contenttypes",
    "django.contrib.auth",
    # The guides app is written for django.contrib.sitemaps (its Sitemap and GenericSitemap
    # classes import without it; a project moving over from contrib has it listed).
    "django.contrib.sitemaps",
    "django_sitemapkit",
    "demo",
    "guides",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    # The language of the guides' URLs (i18n_patterns); redirects /guides/... to /en/guides/...
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
]

ROOT_URLCONF = "example_project.urls"
WSGI_APPLICATION = "example_project.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.debug",
                "django.template.context_processors.request",
            ],
        },
    },
]

# django-environ knows MariaDB only as mysql://; accept the name users reach for too.
environ.Env.DB_SCHEMES.setdefault("mariadb", "django.db.backends.mysql")
DATABASE_URL = env.str("DATABASE_URL", default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}")
DATABASES = {"default": env.db_url_config(DATABASE_URL)}

if DATABASES["default"]["ENGINE"] == "django.db.backends.mysql":
    # No mysqlclient (C headers) on a fresh machine: use PyMySQL (the "mysql" extra) under
    # the MySQLdb name. Django's MySQL backend requires MySQLdb.version_info >= (2, 2, 1).
    import pymysql

    pymysql.version_info = (2, 2, 1, "final", 0)
    pymysql.install_as_MySQLdb()

    _options = DATABASES["default"].setdefault("OPTIONS", {})
    # The demo's Unicode titles need a Unicode connection whatever the server's default, and
    # strict mode turns a value that does not fit into an error instead of a silent truncation.
    _options.setdefault("charset", "utf8mb4")
    _options.setdefault("init_command", "SET sql_mode='STRICT_TRANS_TABLES'")

CACHES = {"default": env.cache_url("CACHE_URL", default="locmemcache://")}

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# "en", a code of LANGUAGES: the sitemaps render in it, and x_default names its URL.
LANGUAGE_CODE = "en"
LANGUAGES = [("en", "English"), ("fr", "Français"), ("de", "Deutsch")]
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

SITEMAPKIT = {
    "BASE_URL": env("SITEMAPKIT_BASE_URL", default="http://127.0.0.1:8000"),
    # `manage.py sitemapkit_build` publishes here; the views then serve the build.
    "BUILD_DIR": env("SITEMAPKIT_BUILD_DIR", default=str(BASE_DIR / "sitemaps")),
    "ROBOTS_TXT_PATH": env("SITEMAPKIT_ROBOTS_TXT", default=str(BASE_DIR / "robots.txt")),
}

# demo.Author has no ``updated_at`` field, so django_sitemapkit's system check
# reports sitemapkit.W001 for it.  It is deliberately NOT silenced here: the
# warning is part of what the example demonstrates.
