from django.http import HttpRequest, HttpResponse


def article(request: HttpRequest, slug: str) -> HttpResponse:
    """The page every sitemap links to; the benchmark never renders it."""
    return HttpResponse(slug, content_type="text/plain")
