"""``path("", include("django_sitemapkit.urls"))`` serves the default site, as ``site.urls``."""

from django_sitemapkit._sites import site

app_name = "sitemapkit"

urlpatterns = site.get_urls()
