"""The quickstart's URLconf (README.md, docs/install.md), beside the test app's pages."""

from django.urls import path
from django.views.generic import TemplateView

import django_sitemapkit as sitemapkit
from tests.testapp import views

urlpatterns = [
    path("", TemplateView.as_view(template_name="testapp/home.html"), name="home"),
    path("about/", TemplateView.as_view(template_name="testapp/about.html"), name="about"),
    path("articles/<str:slug>/", views.detail, name="article-detail"),
    path("tags/<str:slug>/", views.detail, name="tag-detail"),
    # As documented, word for word (tests/test_quickstart.py compares):
    path("robots.txt", sitemapkit.robots_txt),  # "Sitemap: https://www.example.com/sitemap.xml"
    path("", sitemapkit.site.urls),  # index at /sitemap.xml
]
