"""tests/urls_audit.py with a robots.txt of the project's own, for Googlebot."""

from django.http import HttpRequest, HttpResponse
from django.urls import path

from tests.urls_audit import urlpatterns as audit_patterns


def robots_txt(request: HttpRequest) -> HttpResponse:
    rules = "User-agent: *\nDisallow:\n\nUser-agent: Googlebot\nDisallow: /private/\n"
    return HttpResponse(rules, content_type="text/plain")


urlpatterns = [path("robots.txt", robots_txt), *audit_patterns]
