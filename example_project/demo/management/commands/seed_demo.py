"""Fill the demo (and guides) tables with lots of rows, fast.

    python example_project/manage.py seed_demo [--count N] [--guides N] [--clear] [--if-empty]

Creates N articles (about 95% published), N/10 tags and N/100 authors with raw
``executemany`` INSERTs in batches (``COPY`` on PostgreSQL with psycopg 3),
inside a single transaction; no model instances are built.  ``updated_at`` values are spread over the past year.  A
few rows with awkward slugs/names (Unicode, ``& ' " < >``, spaces, ``%``, ``?``,
``#``) come first so the sitemap's URL quoting and XML escaping get exercised.

The guides app gets ``--guides`` guides (default 300, about 10% drafts), spread
over a handful of topics, the same way.

Without ``--clear``, rows are added after the current maximum id of each table
(slugs continue from there, so they stay unique) and the awkward rows are only
added if they are not present yet.  With ``--if-empty``, each app's tables are
seeded only while they are all empty: a database seeded before the guides app
existed gets its guides on the next run.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from datetime import UTC, datetime, timedelta
from itertools import islice
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import DEFAULT_DB_ALIAS, connections, models, transaction
from django.utils.text import slugify

import django_sitemapkit as sitemapkit
from demo.models import Article, Author, Tag
from guides.models import Guide, Topic

YEAR_SECONDS = 365 * 24 * 60 * 60
PUBLISHED_RATIO = 0.95
PG_ROWS_PER_STATEMENT = 2000  # 2000 rows x 5 columns, well under 65535 params
DRAFT_RATIO = 0.1
GUIDE_TOPICS = ["Getting started", "Deployment", "Databases", "Caching", "Security", "Testing"]

AWKWARD_ARTICLES = [  # (title, slug)
    ("Café in 日本", "café-日本"),
    ("Crème brûlée & <friends>", "crème-brûlée"),
    ("Ünïcödé everywhere: 日本語", "ünïcödé-日本語"),
]
AWKWARD_TAGS = [  # (name, slug); routed through <str:slug>
    ('Rock & Roll\'s "Best" <Picks>', 'rock & roll\'s "best" <picks>'),
    ("Tom&Jerry", "tom&jerry"),
    ("50% off? #deal", "50% off? #deal"),
]
AWKWARD_AUTHORS = ["Zoë Ångström", "李小龍", "O'Brien & <Sons>"]


def _chunks(iterable: Iterable[Any], size: int) -> Iterator[list[Any]]:
    iterator = iter(iterable)
    while chunk := list(islice(iterator, size)):
        yield chunk


class Command(BaseCommand):
    help = (
        "Seed the demo app with N articles (~95% published), N/10 tags and "
        "N/100 authors using fast bulk inserts, and the guides app with --guides guides."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--count",
            type=int,
            default=10_000,
            help="Number of articles to create (default: 10000).",
        )
        parser.add_argument(
            "--guides",
            type=int,
            default=300,
            help="Number of guides to create, about 10%% drafts (default: 300).",
        )
        parser.add_argument(
            "--clear",
            action="store_true",
            help="Delete all existing demo rows first.",
        )
        parser.add_argument(
            "--if-empty",
            action="store_true",
            help="Do nothing if the demo tables already contain rows.",
        )
        parser.add_argument(
            "--batch-size",
            type=int,
            default=10_000,
            help="Rows per executemany() call (default: 10000).",
        )
        parser.add_argument(
            "--database",
            default=DEFAULT_DB_ALIAS,
            help='Database alias to seed (default: "default").',
        )

    def handle(self, *args: Any, **options: Any) -> None:
        count: int = options["count"]
        guides: int = options["guides"]
        batch_size: int = options["batch_size"]
        using: str = options["database"]
        if count < 0:
            raise CommandError("--count must be >= 0")
        if guides < 0:
            raise CommandError("--guides must be >= 0")
        if batch_size < 1:
            raise CommandError("--batch-size must be >= 1")
        if options["clear"] and options["if_empty"]:
            raise CommandError("--clear and --if-empty are mutually exclusive")

        self.connection = connections[using]
        self.using = using
        self.batch_size = batch_size
        self.rng = random.Random(count)
        self.now = datetime.now(UTC).replace(microsecond=0)
        demo_models = (Article, Tag, Author)
        guides_models = (Guide, Topic)  # Guide first: its rows refer to topics
        models_ = (*demo_models, *guides_models)

        started = time.perf_counter()
        done: list[str] = []
        with transaction.atomic(using=using):
            seed_demo = seed_guides = True
            if options["clear"]:
                self.clear(models_)
            elif options["if_empty"]:
                seed_demo = self.empty(demo_models)
                seed_guides = self.empty(guides_models)
            if seed_demo:
                published = self.seed_articles(count)
                tags = self.seed_tags(count // 10)
                authors = self.seed_authors(count // 100)
                done.append(
                    f"{count:,} articles ({published:,} published), {tags:,} tags, "
                    f"{authors:,} authors"
                )
            if seed_guides:
                topics = self.seed_topics(len(GUIDE_TOPICS) if guides else 0)
                live = self.seed_guides(guides)
                done.append(f"{guides:,} guides ({live:,} published), {topics:,} topics")
        if not done:
            if options["verbosity"] >= 1:
                self.stdout.write(
                    "seed_demo: the demo and guides tables already contain rows; nothing to do."
                )
            return
        # Raw SQL sends no post_save/post_delete signals, so tell
        # django_sitemapkit to drop its cached sitemap files for these models.
        sitemapkit.invalidate(*models_)
        elapsed = time.perf_counter() - started

        if options["verbosity"] >= 1:
            self.stdout.write(
                f"seed_demo: inserted {'; '.join(done)} in {elapsed:.2f}s "
                f"[{self.connection.vendor}]"
            )

    # -- helpers ------------------------------------------------------------

    def clear(self, models_: Sequence[type[models.Model]]) -> None:
        """DELETE every row with raw SQL.

        ``QuerySet.delete()`` would load and signal each row, because
        django_sitemapkit listens to post_delete (slow for a million rows).
        """
        qn = self.connection.ops.quote_name
        with self.connection.cursor() as cursor:
            for model in models_:
                cursor.execute(f"DELETE FROM {qn(model._meta.db_table)}")

    def empty(self, models_: Sequence[type[models.Model]]) -> bool:
        """True if none of ``models_``' tables holds a row."""
        return not any(model._default_manager.using(self.using).exists() for model in models_)

    def next_index(self, model: type[models.Model]) -> int:
        """First number to use in generated slugs/names: max(id) + 1."""
        max_pk = model._default_manager.using(self.using).aggregate(m=models.Max("pk"))["m"]
        return (max_pk or 0) + 1

    def missing(self, model: type[models.Model], field: str, values: Sequence[str]) -> bool:
        """True if none of the awkward ``values`` exist yet."""
        return not (
            model._default_manager.using(self.using).filter(**{f"{field}__in": values}).exists()
        )

    def random_timestamps(self) -> Iterator[Any]:
        """Endless aware-UTC datetimes spread over the past year, adapted for the DB."""
        adapt: Callable[[Any], Any] = self.connection.ops.adapt_datetimefield_value
        randrange = self.rng.randrange
        now = self.now
        while True:
            yield adapt(now - timedelta(seconds=randrange(YEAR_SECONDS)))

    def insert(
        self,
        model: type[models.Model],
        field_names: Sequence[str],
        rows: Iterable[tuple[Any, ...]],
    ) -> int:
        """INSERT ``rows`` into ``model``'s table with batched executemany()."""
        qn = self.connection.ops.quote_name
        meta = model._meta
        columns = ", ".join(qn(meta.get_field(name).column) for name in field_names)
        placeholders = ", ".join(["%s"] * len(field_names))
        sql = f"INSERT INTO {qn(meta.db_table)} ({columns}) VALUES ({placeholders})"
        total = 0
        with self.connection.cursor() as cursor:
            raw_cursor = cursor.cursor
            if self.connection.vendor == "postgresql" and hasattr(raw_cursor, "copy"):
                # psycopg 3: executemany() costs a round trip and a statement
                # parse per row (~50s per million rows); COPY is ~10x faster.
                copy_sql = f"COPY {qn(meta.db_table)} ({columns}) FROM STDIN"
                with raw_cursor.copy(copy_sql) as copy:
                    for params in rows:
                        copy.write_row(params)
                        total += 1
            elif self.connection.vendor == "postgresql":
                # psycopg2: one multi-row INSERT per chunk instead.
                row = f"({placeholders})"
                head = sql.partition(" VALUES ")[0]
                for chunk in _chunks(rows, PG_ROWS_PER_STATEMENT):
                    cursor.execute(
                        f"{head} VALUES {', '.join([row] * len(chunk))}",
                        [value for params in chunk for value in params],
                    )
                    total += len(chunk)
                    # With DEBUG=True each statement, values inlined, would be
                    # kept in connection.queries_log.
                    self.connection.queries_log.clear()
            else:
                for chunk in _chunks(rows, self.batch_size):
                    cursor.executemany(sql, chunk)
                    total += len(chunk)
        return total

    # -- per model ----------------------------------------------------------

    def seed_articles(self, count: int) -> int:
        """Insert ``count`` articles; return how many of them are published."""
        start = self.next_index(Article)
        awkward: list[tuple[str, str]] = []
        if self.missing(Article, "slug", [slug for _, slug in AWKWARD_ARTICLES]):
            awkward = AWKWARD_ARTICLES[:count]
        published = 0

        def rows() -> Iterator[tuple[Any, ...]]:
            nonlocal published
            rand = self.rng.random
            timestamps = self.random_timestamps()
            for title, slug in awkward:
                published += 1
                yield (title, slug, True, next(timestamps))
            for i in range(start + len(awkward), start + count):
                is_published = rand() < PUBLISHED_RATIO
                published += is_published
                yield (f"Article {i}", f"article-{i}", is_published, next(timestamps))

        self.insert(Article, ["title", "slug", "published", "updated_at"], rows())
        return published

    def seed_tags(self, count: int) -> int:
        start = self.next_index(Tag)
        awkward: list[tuple[str, str]] = []
        if self.missing(Tag, "slug", [slug for _, slug in AWKWARD_TAGS]):
            awkward = AWKWARD_TAGS[:count]

        def rows() -> Iterator[tuple[Any, ...]]:
            timestamps = self.random_timestamps()
            for name, slug in awkward:
                yield (name, slug, next(timestamps))
            for i in range(start + len(awkward), start + count):
                yield (f"Tag {i}", f"tag-{i}", next(timestamps))

        return self.insert(Tag, ["name", "slug", "updated_at"], rows())

    def seed_authors(self, count: int) -> int:
        start = self.next_index(Author)
        awkward: list[str] = []
        if self.missing(Author, "name", AWKWARD_AUTHORS):
            awkward = AWKWARD_AUTHORS[:count]

        def rows() -> Iterator[tuple[Any, ...]]:
            for name in awkward:
                yield (name,)
            for i in range(start + len(awkward), start + count):
                yield (f"Author {i}",)

        return self.insert(Author, ["name"], rows())

    def seed_topics(self, count: int) -> int:
        """Insert the guides' topics (only those whose slug is not taken yet)."""
        taken = set(Topic._default_manager.using(self.using).values_list("slug", flat=True))
        names = [name for name in GUIDE_TOPICS[:count] if slugify(name) not in taken]
        timestamps = self.random_timestamps()
        rows = ((name, slugify(name), next(timestamps)) for name in names)
        return self.insert(Topic, ["name", "slug", "updated_at"], rows)

    def seed_guides(self, count: int) -> int:
        """Insert ``count`` guides (~10% drafts) over the topics; return how many are published."""
        topic_ids = list(
            Topic._default_manager.using(self.using).order_by("pk").values_list("pk", flat=True)
        )
        if count and not topic_ids:
            raise CommandError("No topics to file the guides under.")
        start = self.next_index(Guide)
        published = 0

        def rows() -> Iterator[tuple[Any, ...]]:
            nonlocal published
            rand = self.rng.random
            timestamps = self.random_timestamps()
            for i in range(start, start + count):
                is_draft = rand() < DRAFT_RATIO
                published += not is_draft
                topic = topic_ids[i % len(topic_ids)]
                yield (f"Guide {i}", f"guide-{i}", topic, is_draft, next(timestamps))

        self.insert(Guide, ["title", "slug", "topic", "is_draft", "pub_date"], rows())
        return published
