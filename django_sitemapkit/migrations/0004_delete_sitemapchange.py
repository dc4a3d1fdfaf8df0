from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [("django_sitemapkit", "0003_sitemapchange")]

    operations = [migrations.DeleteModel(name="SitemapChange")]
