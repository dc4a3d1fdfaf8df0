from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("bench", "0001_initial")]

    operations = [
        migrations.AddField(
            model_name="bencharticle",
            name="image",
            field=models.CharField(default="", max_length=300),
        ),
    ]
