"""Settings of the project ``manage.py check`` runs in: nothing imports its URLconf early."""

SECRET_KEY = "checkproject-not-secret"
INSTALLED_APPS = ["django.contrib.contenttypes", "django_sitemapkit"]
DATABASES = {"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": ":memory:"}}
ROOT_URLCONF = "checkproject_urls"
USE_TZ = True
SITEMAPKIT = {"BASE_URL": "https://www.example.com"}
