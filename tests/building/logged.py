"""Helpers of the change-log build tests: the articles section, and the writes they make."""

from __future__ import annotations

import datetime
import uuid
from typing import Any

from hypothesis import strategies as st

import django_sitemapkit as sitemapkit
from tests.testapp.models import Article

T0 = datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC)
EDITED = datetime.datetime(2026, 3, 1, tzinfo=datetime.UTC)
# What a hypothesis history may do to a row (see write()).
OPERATIONS = ["edit", "backdate", "delete", "insert", "unpublish"]


def register_articles(page_rows: int) -> None:
    """The published articles, ``page_rows`` a page, on the fast path."""

    @sitemapkit.register(Article)
    class ArticleSitemap(sitemapkit.ModelSitemap):
        limit = page_rows
        url_name = "article-detail"
        url_kwargs = {"slug": "slug"}

        def get_queryset(self) -> Any:
            return Article.objects.filter(published=True)


def edit(pk: int, at: datetime.datetime = EDITED, **fields: Any) -> None:
    """Save the article with a new ``updated_at`` and ``fields``, as the admin does."""
    article = Article.objects.get(pk=pk)
    article.updated_at = at
    for name, value in fields.items():
        setattr(article, name, value)
    article.save()


def histories(operations: list[str], rows: int, steps: int) -> st.SearchStrategy[Any]:
    """Lists of up to ``steps`` (operation, position) pairs over about ``rows`` rows."""
    return st.lists(
        st.tuples(st.sampled_from(operations), st.integers(0, rows - 1)),
        min_size=1,
        max_size=steps,
    )


def replay(history: list[tuple[str, int]]) -> None:
    """Each step of ``history`` written in turn (see write())."""
    for number, (operation, position) in enumerate(history):
        write(operation, position, number)


def write(operation: str, position: int, number: int) -> None:
    """One step of a history: ``operation`` on the article at ``position`` (modulo the rows) in
    key order; ``number`` (the step's) keeps lastmods apart."""
    pks = list(Article.objects.order_by("pk").values_list("pk", flat=True))
    pk = pks[position % len(pks)]
    if operation == "edit":
        edit(pk, at=EDITED + datetime.timedelta(seconds=number))
    elif operation == "backdate":
        edit(pk, at=T0 - datetime.timedelta(seconds=number))
    elif operation == "delete" and len(pks) > 1:
        Article.objects.get(pk=pk).delete()
    elif operation == "insert":
        Article.objects.create(slug=f"n{uuid.uuid4().hex[:12]}", updated_at=EDITED)
    else:
        edit(pk, published=not Article.objects.get(pk=pk).published)
