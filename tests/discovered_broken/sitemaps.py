"""An app whose sitemaps.py registers a section and then fails, as a typo would."""

import django_sitemapkit as sitemapkit


@sitemapkit.register(section="broken-first")
class FirstSitemap(sitemapkit.StaticViewSitemap):
    url_names = ["home"]


raise LookupError("a typo in the user's sitemaps.py")
