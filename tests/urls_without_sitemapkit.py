"""A site whose web server serves the built sitemap files: no ``django_sitemapkit.urls``."""

from django.urls import path
from django.views.generic import TemplateView

from django_sitemapkit._serving.robots import robots_txt
from tests.testapp import views

urlpatterns = [
    path("", TemplateView.as_view(template_name="testapp/home.html"), name="home"),
    path("about/", TemplateView.as_view(template_name="testapp/about.html"), name="about"),
    path("articles/<str:slug>/", views.detail, name="article-detail"),
    path("robots.txt", robots_txt),
]
