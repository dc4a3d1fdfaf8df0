from django.db import migrations, models


class Migration(migrations.Migration):
    initial = True

    dependencies: list[tuple[str, str]] = []

    operations = [
        migrations.CreateModel(
            name="SitemapPage",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("section", models.CharField(max_length=64)),
                ("number", models.PositiveIntegerField()),
                ("start_key", models.TextField(blank=True, null=True)),
                ("end_key", models.TextField(blank=True, null=True)),
                ("created_at", models.DateTimeField(auto_now_add=True)),
            ],
            options={
                "ordering": ["section", "number"],
                "constraints": [
                    models.UniqueConstraint(
                        fields=("section", "number"), name="sitemapkit_page_unique"
                    )
                ],
            },
        ),
    ]
