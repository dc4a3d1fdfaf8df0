from django.http import HttpRequest, HttpResponse


def detail(request: HttpRequest, **kwargs: object) -> HttpResponse:
    return HttpResponse("ok")
