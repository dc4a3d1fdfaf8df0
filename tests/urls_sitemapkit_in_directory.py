"""The sitemap URLs included under ``sitemapkit/`` while most of the site lies at ``/``.

The index is then ``/sitemapkit/sitemap.xml``, which may list only URLs under
``/sitemapkit/``: the two ``sitemapkit/...`` pages are the ones it can list.
"""

from django.urls import include, path
from django.views.generic import TemplateView

from tests.testapp import views

urlpatterns = [
    path("", TemplateView.as_view(template_name="testapp/home.html"), name="home"),
    path("about/", TemplateView.as_view(template_name="testapp/about.html"), name="about"),
    path("articles/<str:slug>/", views.detail, name="article-detail"),
    path(
        "sitemapkit/help/",
        TemplateView.as_view(template_name="testapp/about.html"),
        name="sitemapkit-help",
    ),
    path("sitemapkit/articles/<str:slug>/", views.detail, name="nested-article"),
    path("sitemapkit/", include("django_sitemapkit.urls")),
]
