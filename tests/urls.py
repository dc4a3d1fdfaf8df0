from django.urls import include, path
from django.views.generic import TemplateView

from django_sitemapkit.robots import robots_txt
from tests.testapp import views

urlpatterns = [
    path("", TemplateView.as_view(template_name="testapp/home.html"), name="home"),
    path("about/", TemplateView.as_view(template_name="testapp/about.html"), name="about"),
    path("articles/<str:slug>/", views.detail, name="article-detail"),
    path("tags/<str:slug>/", views.detail, name="tag-detail"),
    path("authors/<int:pk>/", views.detail, name="author-detail"),
    path("robots.txt", robots_txt),
    path("", include("django_sitemapkit.urls")),
]
