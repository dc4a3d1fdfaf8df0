from django.contrib import admin
from django.urls import include, path, re_path
from django.views.generic import TemplateView

from django_sitemapkit._serving.robots import robots_txt
from tests.testapp import views

urlpatterns = [
    path("", TemplateView.as_view(template_name="testapp/home.html"), name="home"),
    path("about/", TemplateView.as_view(template_name="testapp/about.html"), name="about"),
    path("articles/<str:slug>/", views.detail, name="article-detail"),
    path("tags/<str:slug>/", views.detail, name="tag-detail"),
    # More patterns for column rows' URL templates (tests/engine/test_urltemplates.py).
    path("slugs/<slug:slug>/", views.detail, name="article-slug"),
    path("by-id/<int:pk>/<str:slug>.html", views.detail, name="article-by-id"),
    path("files/<path:slug>", views.detail, name="article-path"),
    path("caf\u00e9/<str:slug>/", views.detail, name="article-cafe"),
    re_path(r"^legacy/(?P<slug>[^/]+)/$", views.detail, name="article-legacy"),
    path("authors/<int:pk>/", views.detail, name="author-detail"),
    path("products/<path:slug>", views.detail, name="product-detail"),
    path("robots.txt", robots_txt),
    path("admin/", admin.site.urls),
    path("", include("django_sitemapkit.urls")),
]
