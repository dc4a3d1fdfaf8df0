"""The default site at the root, and a second site under /news/."""

from django.urls import path

from django_sitemapkit._sites import SitemapSite, site
from tests.testapp import views

news = SitemapSite("news")

urlpatterns = [
    path("tags/<str:slug>/", views.detail, name="tag-detail"),
    path("news/<str:slug>/", views.detail, name="news-detail"),
    path("", site.urls),
    path("news/", news.urls),
]
