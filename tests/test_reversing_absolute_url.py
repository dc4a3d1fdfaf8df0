"""Reading get_absolute_url() as a URL pattern (django_sitemapkit/_reversing.py).

Accepted shapes give the pattern and the fields filling it; every other shape
is refused at the line that stopped it, and the section keeps calling the
method for each row. The methods below are real functions of this file, so
the refusals can name their lines; the marker comments find those lines.
"""

from __future__ import annotations

import datetime
import functools
import itertools
import linecache
from pathlib import Path
from typing import Any

import pytest
from django import urls
from django.conf import settings as django_settings
from django.db import models
from django.urls import NoReverseMatch, reverse, reverse_lazy
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

import django_sitemapkit as sitemapkit
from django_sitemapkit._engine.rendering import render_page
from django_sitemapkit._engine.rows import url_route
from django_sitemapkit._reversing import Derived, Refused, derive_location, read_method
from django_sitemapkit._sites import site
from tests.testapp.models import Article, Author, Gallery, Photo
from tests.utils import parse_urlset

BASE = "https://www.example.com"
T0 = datetime.datetime(2026, 3, 4, 5, 6, 7, tzinfo=datetime.UTC)
HERE = Path(__file__)
URL_NAME = "article-slug"


def at(marker: str) -> tuple[str, str]:
    """("test_reversing_absolute_url.py:<n>", the line's text) of the one line ending with ``marker``."""
    lines = HERE.read_text().splitlines()
    hits = [n for n, line in enumerate(lines, 1) if line.rstrip().endswith(marker)]
    assert len(hits) == 1, (marker, hits)
    where = f"{HERE.relative_to(django_settings.BASE_DIR)}:{hits[0]}"
    return where, lines[hits[0] - 1].strip()


# ---------------------------------------------------------------------------- accepted shapes


def kwargs_dict(self: Any) -> str:  # <- def kwargs_dict
    return reverse("article-detail", kwargs={"slug": self.slug})


def args_list(self: Any) -> str:  # <- def args_list
    return reverse("article-by-id", args=[self.pk, self.slug])


def args_tuple(self: Any) -> str:  # <- def args_tuple
    return reverse("author-detail", args=(self.pk,))


def lazy(self: Any) -> Any:  # <- def lazy
    return reverse_lazy("article-detail", kwargs={"slug": self.slug})


def wrapped_in_str(self: Any) -> str:  # <- def wrapped_in_str
    return str(reverse("article-detail", kwargs={"slug": self.slug}))


def documented(self: Any) -> str:  # <- def documented
    """The article's page."""
    return reverse("article-detail", kwargs={"slug": self.slug})


def module_attribute(self: Any) -> str:  # <- def module_attribute
    return urls.reverse("article-detail", kwargs={"slug": self.slug})


def primary_key(self: Any) -> str:  # <- def primary_key
    return reverse("author-detail", kwargs={"pk": self.pk})


def foreign_key_column(self: Any) -> str:  # <- def foreign_key_column
    return reverse("author-detail", kwargs={"pk": self.gallery_id})


def namespaced(self: Any) -> str:  # <- def namespaced
    return reverse("blog:entry", kwargs={"slug": self.slug})


def viewname_keyword(self: Any) -> str:  # <- def viewname_keyword
    return reverse(viewname="article-detail", kwargs={"slug": self.slug})


@pytest.mark.parametrize(
    ("model", "method", "expected"),
    [
        (Article, kwargs_dict, ("article-detail", ("slug",), ("slug",))),
        (Article, args_list, ("article-by-id", ("pk", "slug"), None)),
        (Author, args_tuple, ("author-detail", ("pk",), None)),
        (Article, lazy, ("article-detail", ("slug",), ("slug",))),
        (Article, wrapped_in_str, ("article-detail", ("slug",), ("slug",))),
        (Article, documented, ("article-detail", ("slug",), ("slug",))),
        (Article, module_attribute, ("article-detail", ("slug",), ("slug",))),
        (Author, primary_key, ("author-detail", ("pk",), ("pk",))),
        (Article, namespaced, ("blog:entry", ("slug",), ("slug",))),
        (Article, viewname_keyword, ("article-detail", ("slug",), ("slug",))),
    ],
    ids=lambda value: getattr(value, "__name__", None),
)
def test_accepted_shapes(model: Any, method: Any, expected: tuple[Any, ...]) -> None:
    derived = read_method(model, method)
    where, _line = at(f"# <- def {method.__name__}")
    assert derived == Derived(*expected, where=where)
    assert derived.describe() == (
        f"get_absolute_url() ({where}) is the URL pattern {expected[0]!r}"
    )


def test_a_foreign_keys_column_is_accepted() -> None:
    """``self.<fk>_id`` is the column's value, as _reversing.py accepts it.

    Fails: Options.get_field() also finds a field by its attname, so
    ``get_field("gallery_id")`` is the foreign key itself and _Reader.field()
    refuses it as "a related field" before its attname branch is reached.
    """
    derived = read_method(Photo, foreign_key_column)
    where, _line = at("# <- def foreign_key_column")
    assert derived == Derived("author-detail", ("gallery_id",), ("pk",), where)


def test_the_test_models_are_derived() -> None:
    assert derive_location(Article) == Derived(
        "article-detail", ("slug",), ("slug",), "testapp/models.py:16"
    )
    assert derive_location(Author) == Derived(
        "author-detail", ("pk",), ("pk",), "testapp/models.py:33"
    )


# ---------------------------------------------------------------------------- refused shapes


def conditional(self: Any) -> str:
    if self.published:  # <- conditional
        return reverse("article-detail", kwargs={"slug": self.slug})
    return reverse("article-slug", kwargs={"slug": self.slug})


def f_string(self: Any) -> str:
    return f"/f/{self.slug}/"  # <- f-string


def method_call(self: Any) -> str:
    return reverse("article-detail", kwargs={"slug": self.get_slug()})  # <- method call


def related_field(self: Any) -> str:
    return reverse("article-detail", kwargs={"slug": self.gallery.slug})  # <- related


def _own_reverse() -> Any:
    def reverse(viewname: str, kwargs: dict[str, Any]) -> str:
        return f"/own/{kwargs['slug']}/"

    def get_absolute_url(self: Any) -> str:
        return reverse("article-detail", kwargs={"slug": self.slug})  # <- own reverse

    return get_absolute_url


own_reverse = _own_reverse()
own_reverse.__name__ = "own_reverse"


def assignment(self: Any) -> str:
    url = reverse("article-detail", kwargs={"slug": self.slug})  # <- assignment
    return url


def current_app(self: Any) -> str:
    return reverse("article-detail", kwargs={"slug": self.slug}, current_app="x")  # <- app


def variable_name(self: Any) -> str:
    return reverse(URL_NAME, kwargs={"slug": self.slug})  # <- variable name


def dict_call(self: Any) -> str:
    return reverse("article-detail", kwargs=dict(slug=self.slug))  # <- dict call


def star_star(self: Any) -> str:
    options = {"kwargs": {"slug": self.slug}}  # <- star-star assignment
    return reverse("article-detail", **options)  # type: ignore[arg-type]


def star_star_only(self: Any) -> str:
    return reverse("article-detail", **{"kwargs": {"slug": self.slug}})  # <- star-star


def star_star_in_kwargs(self: Any) -> str:
    return reverse("article-detail", kwargs={**{"slug": self.slug}})  # <- kwargs unpacked


def a_property(self: Any) -> str:
    return reverse("article-detail", kwargs={"slug": self.lower_slug})  # <- property


def concatenated(self: Any) -> str:
    return reverse("article-detail", kwargs={"slug": self.slug}) + "v2/"  # <- concatenation


def prefixed(method: Any) -> Any:
    @functools.wraps(method)
    def wrapper(self: Any) -> str:
        return "/v2" + method(self)

    return wrapper


@prefixed  # <- decorator
def decorated(self: Any) -> str:
    return reverse("article-detail", kwargs={"slug": self.slug})


def extra_parameter(self: Any, language: str = "en") -> str:  # <- extra parameter
    return reverse("article-detail", kwargs={"slug": self.slug})


def both_args_and_kwargs(self: Any) -> str:
    return reverse("article-detail", args=[], kwargs={"slug": self.slug})  # <- both


def not_a_field(self: Any) -> str:
    return reverse("article-detail", kwargs={"slug": self.nickname})  # <- not a field


REFUSED = [
    (conditional, "# <- conditional", "a conditional"),
    (f_string, "# <- f-string", "an f-string"),
    (method_call, "# <- method call", "an argument that is a call, not a field of self"),
    (related_field, "# <- related", "a related field"),
    (own_reverse, "# <- own reverse", "calls reverse(), not django.urls.reverse()"),
    (assignment, "# <- assignment", "a statement before the return"),
    (current_app, "# <- app", "reverse()'s current_app argument"),
    (variable_name, "# <- variable name", "a URL name that is not a string literal"),
    (dict_call, "# <- dict call", "kwargs that are not a dict literal"),
    (star_star, "# <- star-star assignment", "a statement before the return"),
    (star_star_only, "# <- star-star", "**-unpacked arguments"),
    (star_star_in_kwargs, "# <- kwargs unpacked", "a kwargs key that is not a string"),
    (a_property, "# <- property", "'lower_slug' is not read straight from its column"),
    (concatenated, "# <- concatenation", "returns an expression, not a reverse() call"),
    (decorated, "# <- decorator", "a decorator"),
    (extra_parameter, "# <- extra parameter", "arguments other than self"),
    (both_args_and_kwargs, "# <- both", "both args and kwargs"),
    (not_a_field, "# <- not a field", "'nickname' is not read straight from its column"),
]


def proxy_of(base: type[models.Model], name: str, method: Any, **attrs: Any) -> Any:
    """A proxy model of ``base`` whose get_absolute_url() is ``method``."""

    class Meta:
        proxy = True
        app_label = "testapp"

    return type(
        name,
        (base,),
        {"__module__": __name__, "Meta": Meta, "get_absolute_url": method, **attrs},
    )


def _get_slug(self: Any) -> str:
    return str(self.slug).upper()


PROXIES = {
    method.__name__: proxy_of(
        Photo if method is related_field else Article,
        "Refused" + method.__name__.title().replace("_", ""),
        method,
        get_slug=_get_slug,
        lower_slug=property(lambda self: self.slug.lower()),
        nickname=property(lambda self: f"{self.slug}-n"),
    )
    for method, _marker, _reason in REFUSED
}


@pytest.mark.parametrize(
    ("method", "marker", "reason"), REFUSED, ids=[m.__name__ for m, _, _ in REFUSED]
)
def test_refused_shapes_name_their_line(method: Any, marker: str, reason: str) -> None:
    model = PROXIES[method.__name__]
    refused = read_method(model, method)
    where, line = at(marker)
    assert refused == Refused(reason, where, line)
    assert refused.describe() == f"{where}: {reason}: {line}"
    assert derive_location(model) == refused


def test_absolute_url_overrides_are_refused(settings: Any) -> None:
    settings.ABSOLUTE_URL_OVERRIDES = {"testapp.article": lambda article: f"/o/{article.slug}/"}
    refused = derive_location(Article)
    assert refused == Refused("settings.ABSOLUTE_URL_OVERRIDES replaces get_absolute_url()")
    assert refused.where == refused.line == ""
    assert derive_location(Author) == read_method(Author, Author.get_absolute_url)


def test_a_lambda_or_a_partial_is_refused() -> None:
    assert isinstance(read_method(Article, functools.partial(kwargs_dict)), Refused)
    refused = read_method(Article, lambda self: reverse("a", kwargs={"slug": self.slug}))
    assert isinstance(refused, Refused)


# ------------------------------------------------- refused shapes keep the per-row call (end to end)


def create_rows(model: Any) -> None:
    slugs = ["A0", "B1", "c2"]
    if issubclass(model, Photo):
        for n, slug in enumerate(slugs):
            gallery = Gallery.objects.create(slug=slug, updated_at=T0)
            Photo.objects.create(gallery=gallery, file=f"photos/{n}.jpg")
        return
    Article.objects.bulk_create(
        Article(slug=slug, published=n != 1, updated_at=T0) for n, slug in enumerate(slugs)
    )


def per_row_page(model: Any) -> list[str]:
    """What the section lists: checks it reads instances, and returns its locations."""

    class Section(sitemapkit.ModelSitemap):
        pass

    Section.model = model
    sitemapkit.register(section="refused")(Section)
    assert url_route(site._registry["refused"]) is None
    rendered = render_page("refused", 1, base_url=BASE, sitemaps=site)
    return [entry.loc for entry in parse_urlset(rendered.content)]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("method", "marker", "reason"), REFUSED, ids=[m.__name__ for m, _, _ in REFUSED]
)
def test_refused_shapes_keep_the_per_row_call(
    sitemaps: Any, method: Any, marker: str, reason: str
) -> None:
    model = PROXIES[method.__name__]
    create_rows(model)
    expected = [BASE + str(row.get_absolute_url()) for row in model.objects.order_by("pk")]
    assert per_row_page(model) == expected
    assert len(expected) == 3


@pytest.mark.django_db
def test_per_row_pages_show_the_methods_own_urls(sitemaps: Any) -> None:
    """What a fast path reading slug would get wrong, the per-row call gets right."""
    create_rows(Article)
    pages = {}
    for name in ("conditional", "own_reverse", "decorated", "a_property", "variable_name"):
        site._registry.pop("refused", None)
        pages[name] = [loc.removeprefix(BASE) for loc in per_row_page(PROXIES[name])]
    assert pages == {
        "conditional": ["/articles/A0/", "/slugs/B1/", "/articles/c2/"],
        "own_reverse": ["/own/A0/", "/own/B1/", "/own/c2/"],
        "decorated": ["/v2/articles/A0/", "/v2/articles/B1/", "/v2/articles/c2/"],
        "a_property": ["/articles/a0/", "/articles/b1/", "/articles/c2/"],
        "variable_name": ["/slugs/A0/", "/slugs/B1/", "/slugs/c2/"],
    }


@pytest.mark.django_db
def test_absolute_url_overrides_keep_the_per_row_call(sitemaps: Any, settings: Any) -> None:
    settings.ABSOLUTE_URL_OVERRIDES = {"testapp.article": lambda article: f"/o/{article.slug}/"}
    create_rows(Article)
    assert per_row_page(Article) == [
        BASE + row.get_absolute_url() for row in Article.objects.order_by("pk")
    ]


# ---------------------------------------------------------------- generated get_absolute_url()

MUTATIONS = [
    "f-string",
    "own reverse",
    "assignment",
    "conditional",
    "concatenation",
    "related field",
    "method call",
    "current_app",
    "urlconf",
    "variable name",
    "dict call",
    "star-star",
    "decorator",
    "extra parameter",
    "not a field",
    "positional",
]
_counter = itertools.count()


@st.composite
def sources(draw: Any, mutation: str | None) -> tuple[str, str | None]:
    """The text of a module defining get_absolute_url(), and the mutation applied (or None)."""
    function = draw(st.sampled_from(["reverse", "reverse_lazy", "urls.reverse"]))
    form = draw(st.sampled_from(["kwargs", "list", "tuple"]))
    fields = draw(st.sampled_from([("slug",), ("pk",), ("pk", "slug")]))
    url_name = {("slug",): "article-detail", ("pk",): "author-detail"}.get(fields, "article-by-id")
    wrap = draw(st.booleans())
    docstring = draw(st.booleans())
    mark = "  # mutated"
    head = ["from django import urls", "from django.urls import reverse, reverse_lazy", ""]
    if mutation == "own reverse":
        function = "reverse"
        head += ["def reverse(viewname, *args, **kwargs):", "    return '/own/'", ""]
    if mutation == "decorator":
        head += ["def keep(method):", "    return method", ""]
    if mutation == "variable name":
        head += [f"NAME = {url_name!r}", ""]
    if mutation == "dict call":
        form = "kwargs"
    values = [f"self.{name}" for name in fields]
    if mutation == "related field":
        values[0] = "self.author.slug"
    elif mutation == "method call":
        values[0] = "self.get_slug()"
    elif mutation == "not a field":
        values[0] = "self.nickname"
    if form == "kwargs":
        keys = [{"slug": "slug", "pk": "pk"}[name] for name in fields]
        if mutation == "dict call":
            pairs = ", ".join(f"{k}={v}" for k, v in zip(keys, values, strict=True))
            arguments = f"kwargs=dict({pairs})"
        else:
            pairs = ", ".join(f"{k!r}: {v}" for k, v in zip(keys, values, strict=True))
            arguments = "kwargs={" + pairs + "}"
    elif form == "list":
        arguments = "args=[" + ", ".join(values) + "]"
    else:
        arguments = "args=(" + "".join(f"{v}, " for v in values) + ")"
    if mutation == "star-star":
        arguments = "**{" + repr(arguments.split("=", 1)[0]) + ": " + arguments.split("=", 1)[1]
        arguments += "}"
    name = "NAME" if mutation == "variable name" else repr(url_name)
    if mutation == "positional":
        name += ", None"
    extra = {"current_app": ", current_app='x'", "urlconf": ", urlconf='tests.urls'"}
    call = f"{function}({name}, {arguments}{extra.get(mutation or '', '')})"
    if wrap:
        call = f"str({call})"
    if mutation == "concatenation":
        call += " + '#top'"
    if mutation == "f-string":
        call = "f'/articles/{self.slug}/'"
    body = ['    """Where the row is listed."""'] if docstring else []
    if mutation == "assignment":
        body += [f"    url = {call}{mark}", "    return url"]
    elif mutation == "conditional":
        body += [f"    if self.published:{mark}", f"        return {call}", f"    return {call}"]
    else:
        body += [f"    return {call}" + (mark if mutation in _ON_RETURN else "")]
    signature = "(self, language=None)" if mutation == "extra parameter" else "(self)"
    define = f"def get_absolute_url{signature}:" + (mark if mutation == "extra parameter" else "")
    lines = [*head, *(["@keep" + mark] if mutation == "decorator" else []), define, *body]
    return "\n".join(lines) + "\n", mutation


_ON_RETURN = {
    "f-string",
    "own reverse",
    "concatenation",
    "related field",
    "method call",
    "current_app",
    "urlconf",
    "variable name",
    "dict call",
    "star-star",
    "not a field",
    "positional",
}


def define(text: str) -> tuple[Any, str]:
    """get_absolute_url of the module ``text``, with its source in linecache."""
    filename = f"<generated-get-absolute-url-{next(_counter)}>"
    lines = text.splitlines(keepends=True)
    linecache.cache[filename] = (len(text), None, lines, filename)
    namespace: dict[str, Any] = {"__name__": "generated"}
    exec(compile(text, filename, "exec"), namespace)
    return namespace["get_absolute_url"], filename


class Section(sitemapkit.ModelSitemap):
    model = Article


SLUGS = st.text(st.characters(blacklist_categories=("Cs",)), max_size=20)


@pytest.mark.parametrize("mutation", [None, *MUTATIONS])
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    data=st.data(),
    rows=st.lists(st.tuples(st.integers(-3, 10**9), SLUGS), min_size=1, max_size=6),
)
def test_generated_methods_fill_what_they_return(
    mutation: str | None, data: Any, rows: list[tuple[int, str]]
) -> None:
    text, mutation = data.draw(sources(mutation), label="source")
    event(mutation or "accepted")
    method, filename = define(text)
    saved = Article.__dict__["get_absolute_url"]
    Article.get_absolute_url = method  # type: ignore[method-assign]
    try:
        derived = derive_location(Article)
        route = url_route(Section())
    finally:
        Article.get_absolute_url = saved  # type: ignore[method-assign]
    if mutation is not None:
        assert isinstance(derived, Refused), text
        assert route is None
        number = next(n for n, line in enumerate(text.splitlines(), 1) if "# mutated" in line)
        assert derived.where == f"{filename}:{number}", (text, derived)
        assert derived.line == text.splitlines()[number - 1].strip()
        return
    assert isinstance(derived, Derived), (text, derived)
    number = next(n for n, line in enumerate(text.splitlines(), 1) if line.startswith("def get_"))
    assert derived.where == f"{filename}:{number}"
    assert route is not None
    assert (route.url_name, route.fields, route.kwargs) == (
        derived.url_name,
        derived.fields,
        derived.kwargs,
    )
    template = route.template()
    assert template.parts is not None  # every generated pattern is a path() one
    for pk, slug in rows:
        article = Article(pk=pk, slug=slug)
        values = [getattr(article, name) for name in route.fields]
        try:
            expected = str(method(article))
        except NoReverseMatch:
            event("NoReverseMatch")
            with pytest.raises(NoReverseMatch):
                template.fill(values)
        else:
            event("filled")
            assert template.fill(values) == expected, (text, pk, slug)


@pytest.mark.django_db
def test_rows_of_another_class_than_the_sections_model_keep_their_own_method(
    sitemaps: Any,
) -> None:
    """``model = Article`` while get_queryset() gives rows of a proxy with its own
    get_absolute_url() (or a polymorphic queryset giving subclasses): the per-row
    call lists what each row's own method returns.

    Fails: the route is derived from Article.get_absolute_url(), so the section
    lists /articles/<slug>/ where the rows' method says /f/<slug>/.
    """
    proxy = PROXIES["f_string"]

    @sitemapkit.register(Article)
    class Section(sitemapkit.ModelSitemap):
        def get_queryset(self) -> Any:
            return proxy.objects.all()

    create_rows(Article)
    rendered = render_page("testapp-article", 1, base_url=BASE, sitemaps=site)
    assert [entry.loc for entry in parse_urlset(rendered.content)] == [
        BASE + row.get_absolute_url() for row in proxy.objects.order_by("pk")
    ]
