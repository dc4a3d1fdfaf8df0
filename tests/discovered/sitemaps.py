import django_sitemapkit as sitemapkit


@sitemapkit.register(section="discovered")
class DiscoveredSitemap(sitemapkit.StaticViewSitemap):
    url_names = ["home"]
