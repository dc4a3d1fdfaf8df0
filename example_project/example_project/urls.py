from django.conf.urls.i18n import i18n_patterns
from django.urls import include, path, register_converter
from django.views.generic import TemplateView

import django_sitemapkit as sitemapkit
from demo import views


class UnicodeSlugConverter:
    """Like the built-in ``slug`` converter, but accepting Unicode letters.

    ``<slug:...>`` only matches ASCII (``[-a-zA-Z0-9_]+``), so an article whose
    ``SlugField(allow_unicode=True)`` holds e.g. "café-日本" could not be
    reversed, and would break its own sitemap entry.
    """

    regex = r"[-\w]+"

    def to_python(self, value):
        return value

    def to_url(self, value):
        return value


register_converter(UnicodeSlugConverter, "uslug")

urlpatterns = [
    path("", sitemapkit.site.urls),  # /sitemap.xml
    path("robots.txt", sitemapkit.robots_txt),  # this site has no robots.txt of its own
    path("", TemplateView.as_view(template_name="demo/home.html"), name="home"),
    path("about/", TemplateView.as_view(template_name="demo/about.html"), name="about"),
    path(
        "articles/<str:slug>/",
        views.ArticleDetailView.as_view(),
        name="article-detail",
    ),
    path("tags/<str:slug>/", views.TagDetailView.as_view(), name="tag-detail"),
    path("authors/<int:pk>/", views.AuthorDetailView.as_view(), name="author-detail"),
]

# The guides app is multilingual: /en/guides/..., /fr/guides/..., /de/guides/...
# (its sitemaps, in guides/sitemaps.py, list each guide in all three languages).
urlpatterns += i18n_patterns(path("guides/", include("guides.urls")))
