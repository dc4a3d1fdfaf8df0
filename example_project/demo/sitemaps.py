"""Sitemaps for the demo app, discovered by django_sitemapkit at startup."""

import django_sitemapkit as sitemapkit

from .models import Article, Author, Tag

sitemapkit.register(Tag)  # every row; lastmod from updated_at; loc from get_absolute_url()
sitemapkit.register(Author)  # no updated_at: listed without lastmod (a system check warns)


@sitemapkit.register(Article)
class ArticleSitemap(sitemapkit.ModelSitemap):
    changefreq = "weekly"
    priority = 0.6
    # The fast path: <loc> from the "article-detail" pattern filled with each
    # row's slug, read as columns -- no model instance, no reverse() per row.
    url_name = "article-detail"
    url_kwargs = {"slug": "slug"}

    def get_queryset(self):
        return Article.objects.filter(published=True)


@sitemapkit.register(section="pages")
class PageSitemap(sitemapkit.StaticViewSitemap):
    url_names = ["home", "about"]
