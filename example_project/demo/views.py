from django.views.generic import DetailView

from .models import Article, Author, Tag


class ArticleDetailView(DetailView):
    # Unpublished articles are not in the sitemap and are not served either.
    queryset = Article.objects.filter(published=True)
    template_name = "demo/article_detail.html"


class TagDetailView(DetailView):
    model = Tag
    template_name = "demo/tag_detail.html"


class AuthorDetailView(DetailView):
    model = Author
    template_name = "demo/author_detail.html"
