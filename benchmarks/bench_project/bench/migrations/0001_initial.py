from django.db import migrations, models


class Migration(migrations.Migration):
    initial = True

    dependencies: list[tuple[str, str]] = []

    operations = [
        migrations.CreateModel(
            name="BenchArticle",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("slug", models.CharField(max_length=200, unique=True)),
                ("title", models.CharField(max_length=200)),
                ("updated_at", models.DateTimeField()),
                ("published", models.BooleanField(default=True)),
            ],
        ),
        # django-icv-sitemaps' view of the same table (bench.models.IcvArticle);
        # its SitemapMixin base is left out so that migrating needs no icv install.
        migrations.CreateModel(
            name="IcvArticle",
            fields=[],
            options={"proxy": True, "indexes": [], "constraints": []},
            bases=("bench.bencharticle",),
        ),
    ]
