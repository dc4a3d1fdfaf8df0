from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [("django_sitemapkit", "0001_initial")]

    operations = [
        # A proxy without a table: the admin's read-only status page (admin.py).
        migrations.CreateModel(
            name="SitemapStatus",
            fields=[],
            options={
                "verbose_name": "sitemap status",
                "verbose_name_plural": "sitemap status",
                "proxy": True,
                "indexes": [],
                "constraints": [],
            },
            bases=("django_sitemapkit.sitemappage",),
        ),
    ]
