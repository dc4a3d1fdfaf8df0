import django_sitemapkit as sitemapkit
from tests.testapp.models import Tag

sitemapkit.register(Tag)
