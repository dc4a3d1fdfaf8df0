import time

from django.http import Http404, HttpRequest, HttpResponse, HttpResponsePermanentRedirect


def detail(request: HttpRequest, **kwargs: object) -> HttpResponse:
    return HttpResponse("ok")


def page(head: str = "") -> HttpResponse:
    """An HTML page with ``head`` in its head (tests/urls_audit.py's pages)."""
    return HttpResponse(f"<!doctype html><html><head><title>A page</title>{head}</head><body>Hi")


def audit_ok(request: HttpRequest) -> HttpResponse:
    # Its own canonical URL, relative, and robots directives that still index it.
    return page('<link rel="canonical" href="/ok/"><meta name="robots" content="index, follow">')


def audit_missing(request: HttpRequest, **kwargs: object) -> HttpResponse:
    raise Http404("gone")


def audit_moved(request: HttpRequest) -> HttpResponse:
    return HttpResponsePermanentRedirect("/ok/")


def audit_meta(request: HttpRequest, name: str, content: str) -> HttpResponse:
    return page(f'<meta name="{name}" content="{content}">')


def audit_header(request: HttpRequest, value: str) -> HttpResponse:
    response = page()
    response["X-Robots-Tag"] = value
    return response


def audit_canonical(request: HttpRequest, href: str) -> HttpResponse:
    return page(f'<link rel="canonical" href="{href}">')


def audit_raises(request: HttpRequest) -> HttpResponse:
    raise ValueError("the view broke")


def audit_slow(request: HttpRequest) -> HttpResponse:
    time.sleep(2)
    return page()
