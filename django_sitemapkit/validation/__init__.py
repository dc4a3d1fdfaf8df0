"""Validating a published set of sitemap files, or a live site: ``sitemapkit_validate``."""
