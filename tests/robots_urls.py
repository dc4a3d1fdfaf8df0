"""URLconf for the robots.txt view tests: the sitemap URLs plus ``/robots.txt``."""

from django.urls import include, path

from django_sitemapkit._serving.robots import robots_txt

urlpatterns = [
    path("robots.txt", robots_txt, name="robots-txt"),
    path("", include("django_sitemapkit.urls")),
]
