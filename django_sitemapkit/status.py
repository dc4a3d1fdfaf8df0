"""What is published and whether it is current: ``sitemapkit_status`` and the admin page."""
