"""How sitemap URLs are reversed: in the default language (under the requester's, the bytes would
depend on ``Accept-Language``), and ``get_absolute_url()`` read as a URL pattern to fill from
columns (docs/sitemaps.md, the fast path): from its syntax tree, never from samples of its output.
Only one return of ``reverse()`` of a literal name with literal kwargs/args of ``self.<field>``
(perhaps in ``str()``) is read; anything else is refused with its line."""

from __future__ import annotations

import ast
import builtins
import functools
import inspect
import os
import textwrap
import types
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.conf.urls.i18n import is_language_prefix_patterns_used
from django.core.exceptions import FieldDoesNotExist
from django.db import models
from django.db.models.fields.related_descriptors import ForeignKeyDeferredAttribute
from django.db.models.query_utils import DeferredAttribute
from django.urls import reverse, reverse_lazy
from django.utils import translation


def site_languages() -> list[str]:
    return [code for code, _name in settings.LANGUAGES]


def default_language() -> str:
    """The language files are rendered in: ``LANGUAGE_CODE`` where ``i18n_patterns`` leaves
    it unprefixed (only that exact code is), else its variant in ``LANGUAGES``, so that
    ``"en-us"`` with ``"en"`` there reverses ``/en/...``, the URL that resolves."""
    code: str = settings.LANGUAGE_CODE
    used, prefixes_default = is_language_prefix_patterns_used(settings.ROOT_URLCONF)
    if used and not prefixes_default:
        return code
    try:
        return translation.get_supported_language_variant(code)
    except LookupError:
        return code


def rendering_language() -> translation.override:
    return translation.override(default_language())


_REVERSES = (reverse, reverse_lazy)
_COLUMN_DESCRIPTORS = (DeferredAttribute, ForeignKeyDeferredAttribute)


@dataclass(frozen=True)
class Derived:
    """``get_absolute_url()`` is ``reverse(url_name, ...)`` of ``fields``."""

    url_name: str
    fields: tuple[str, ...]  # in the order of the arguments they fill
    kwargs: tuple[str, ...] | None  # the keyword each field fills; None: positional args
    where: str  # "path/models.py:12" of the method

    def describe(self) -> str:
        return f"get_absolute_url() ({self.where}) is the URL pattern {self.url_name!r}"


@dataclass(frozen=True)
class Refused:
    """Why ``get_absolute_url()`` cannot be read as a URL pattern."""

    reason: str
    where: str = ""  # "path/models.py:14" of the line that stopped it, if any
    line: str = ""

    def describe(self) -> str:
        return f"{self.where}: {self.reason}: {self.line}" if self.where else self.reason


class _Stop(Exception):
    """``_Stop(node, reason)``: what refused the method, and why."""


def derive_location(model: type[models.Model]) -> Derived | Refused:
    if model._meta.label_lower in getattr(settings, "ABSOLUTE_URL_OVERRIDES", {}):
        return Refused("settings.ABSOLUTE_URL_OVERRIDES replaces get_absolute_url()")
    method = getattr(model, "get_absolute_url", None)
    if method is None:
        return Refused(f"{model._meta.label} has no get_absolute_url()")
    return read_method(model, method)


@functools.cache
def read_method(model: type[models.Model], method: Any) -> Derived | Refused:
    if not isinstance(method, types.FunctionType):
        return Refused(f"get_absolute_url is a {type(method).__name__}, not a plain method")
    try:
        lines, first = inspect.getsourcelines(method)
        filename = inspect.getsourcefile(method) or method.__code__.co_filename
    except (OSError, TypeError):
        return Refused("the source of get_absolute_url() is not available")
    try:
        tree = ast.parse(textwrap.dedent("".join(lines)))
    except SyntaxError:
        return Refused("the source of get_absolute_url() does not parse on its own")
    function = tree.body[0] if tree.body else None
    try:
        if not isinstance(function, ast.FunctionDef):
            raise _Stop(None, "get_absolute_url is not a def")
        url_name, fields, kwargs = _Reader(model, method).read(function)
    except _Stop as stop:
        node, reason = stop.args
        line_number = getattr(node, "lineno", 1)
        return Refused(
            reason,
            f"{_short(filename)}:{first + line_number - 1}",
            lines[line_number - 1].strip() if line_number <= len(lines) else "",
        )
    return Derived(url_name, fields, kwargs, f"{_short(filename)}:{first}")


def _short(filename: str) -> str:
    base = str(getattr(settings, "BASE_DIR", "") or "")
    for root in (base, os.getcwd()):
        if root and filename.startswith(root.rstrip("/") + "/"):
            return filename[len(root.rstrip("/")) + 1 :]
    return filename


class _Reader:
    """Reads one ``get_absolute_url`` definition; raises _Stop at what it refuses."""

    def __init__(self, model: type[models.Model], method: types.FunctionType) -> None:
        self.model = model
        self.method = method

    def read(self, node: ast.FunctionDef) -> tuple[str, tuple[str, ...], tuple[str, ...] | None]:
        if node.decorator_list:
            raise _Stop(node.decorator_list[0], "a decorator")
        arguments = node.args
        others = (arguments.posonlyargs, arguments.vararg, arguments.kwonlyargs, arguments.kwarg)
        if len(arguments.args) != 1 or any(others):
            raise _Stop(node, "arguments other than self")
        self.self_name = arguments.args[0].arg
        body = node.body[1:] if ast.get_docstring(node, clean=False) is not None else node.body
        if not body:
            raise _Stop(node, "no return statement")
        statement = body[0]
        if not isinstance(statement, ast.Return):
            raise _Stop(statement, _statement_reason(statement))
        if len(body) > 1:
            raise _Stop(body[1], "a statement after the return")
        if statement.value is None:
            raise _Stop(statement, "returns None")
        return self.call(statement.value)

    def call(self, value: ast.expr) -> tuple[str, tuple[str, ...], tuple[str, ...] | None]:
        value = self.reverse_call(value)
        keywords = {str(keyword.arg): keyword.value for keyword in value.keywords}
        url_name = _url_name(value, keywords)
        extra = sorted(set(keywords) - {"args", "kwargs"})
        if extra:
            raise _Stop(value, f"reverse()'s {extra[0]} argument")
        if "args" in keywords and "kwargs" in keywords:
            raise _Stop(value, "both args and kwargs")
        if "kwargs" in keywords:
            return url_name, *self.kwargs(keywords["kwargs"])
        if "args" in keywords:
            return url_name, self.args(keywords["args"]), None
        return url_name, (), ()

    def reverse_call(self, value: ast.expr) -> ast.Call:
        if (
            isinstance(value, ast.Call)
            and self.resolve(value.func) is str
            and len(value.args) == 1
            and not value.keywords
        ):
            value = value.args[0]  # location() applies str() anyway
        if isinstance(value, ast.JoinedStr):
            raise _Stop(value, "an f-string")
        if not isinstance(value, ast.Call):
            raise _Stop(value, f"returns {_kind(value)}, not a reverse() call")
        target = self.resolve(value.func)
        if not any(target is known for known in _REVERSES):
            raise _Stop(value, f"calls {ast.unparse(value.func)}(), not django.urls.reverse()")
        if any(keyword.arg is None for keyword in value.keywords):
            raise _Stop(value, "**-unpacked arguments")
        return value

    def kwargs(self, node: ast.expr) -> tuple[tuple[str, ...], tuple[str, ...]]:
        if not isinstance(node, ast.Dict):
            raise _Stop(node, "kwargs that are not a dict literal")
        names: list[str] = []
        fields: list[str] = []
        for key, value in zip(node.keys, node.values, strict=True):
            if not (isinstance(key, ast.Constant) and isinstance(key.value, str)):
                raise _Stop(value if key is None else key, "a kwargs key that is not a string")
            if key.value in names:
                raise _Stop(key, "a repeated kwargs key")
            names.append(key.value)
            fields.append(self.field(value))
        return tuple(fields), tuple(names)

    def args(self, node: ast.expr) -> tuple[str, ...]:
        if not isinstance(node, ast.List | ast.Tuple):
            raise _Stop(node, "args that are not a list or tuple literal")
        return tuple(self.field(value) for value in node.elts)

    def field(self, node: ast.expr) -> str:
        if isinstance(node, ast.Starred):
            raise _Stop(node, "*-unpacked arguments")
        if not isinstance(node, ast.Attribute):
            raise _Stop(node, f"an argument that is {_kind(node)}, not a field of self")
        owner = node.value
        if isinstance(owner, ast.Attribute):
            raise _Stop(node, "a related field")
        if not (isinstance(owner, ast.Name) and owner.id == self.self_name):
            raise _Stop(node, f"an argument that is {_kind(node)}, not a field of self")
        name = node.attr
        opts = self.model._meta
        if name == "pk":
            return "pk"
        # Another descriptor (a translation app's, say) may not give the column's value.
        if type(inspect.getattr_static(self.model, name, None)) not in _COLUMN_DESCRIPTORS:
            raise _Stop(node, f"{name!r} is not read straight from its column")
        try:
            field = opts.get_field(name)
        except FieldDoesNotExist:
            if not any(f.attname == name for f in opts.concrete_fields):
                raise _Stop(node, f"{name!r} is not a field of {opts.label}") from None
            return name  # a foreign key's column, read as it is
        if not getattr(field, "concrete", False):
            raise _Stop(node, f"{name!r} is not a concrete field")
        if field.is_relation and getattr(field, "attname", None) != name:
            raise _Stop(node, "a related field")
        return name

    def resolve(self, node: ast.expr) -> Any:
        if isinstance(node, ast.Attribute):
            owner = self.resolve(node.value)
            return None if owner is None else getattr(owner, node.attr, None)
        if not isinstance(node, ast.Name) or node.id in self.method.__code__.co_freevars:
            return None
        return self.method.__globals__.get(node.id, getattr(builtins, node.id, None))


def _url_name(call: ast.Call, keywords: dict[str, ast.expr]) -> str:
    """The URL name ``call`` reverses; ``viewname`` is popped from ``keywords``."""
    if "viewname" in keywords and not call.args:
        node = keywords.pop("viewname")
    elif len(call.args) == 1:
        node = call.args[0]
    else:
        raise _Stop(call, "positional arguments besides the URL name")
    if not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
        raise _Stop(node, "a URL name that is not a string literal")
    return node.value


def _statement_reason(node: ast.stmt) -> str:
    if isinstance(node, ast.If | ast.Match | ast.Try):
        return "a conditional"
    if isinstance(node, ast.For | ast.While | ast.With):
        return "a loop or block"
    return "a statement before the return"


def _kind(node: ast.expr) -> str:
    return _KINDS.get(type(node), f"an expression ({type(node).__name__})")


_KINDS: dict[type[ast.expr], str] = {
    ast.Call: "a call",
    ast.IfExp: "a conditional",
    ast.BoolOp: "a conditional",
    ast.BinOp: "an expression",
    ast.Constant: "a constant",
    ast.Subscript: "a subscript",
    ast.Attribute: "an attribute",
    ast.Name: "a variable",
}
