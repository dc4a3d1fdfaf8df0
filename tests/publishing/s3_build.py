"""``python -m tests.publishing.s3_build ENDPOINT BUCKET ITEMS``: a build to S3 in a process of its own.

Run by ``test_killed_s3_builds.py``, which kills it at random moments. Under
``tests.settings``, publishing to the bucket on moto's server: one list
section of ITEMS items, five to a page, so that builds of different ITEMS
write different pages. It prints ``building`` once Django is set up.
"""

from __future__ import annotations

import sys

import django
from django.conf import settings


def build(items: int) -> None:
    # inner import: the app registry is ready only after django.setup()
    import django_sitemapkit as sitemapkit

    class Stories(sitemapkit.Sitemap):
        limit = 5

        def items(self) -> list[int]:
            return list(range(items))

        def location(self, item: int) -> str:
            return f"/stories/{item}/"

    sitemapkit.register(section="stories")(Stories)
    print("building", flush=True)
    sitemapkit.build(force=True)  # sizes shrink at random: past the guard


if __name__ == "__main__":
    endpoint, bucket, items = sys.argv[1], sys.argv[2], int(sys.argv[3])
    settings.STORAGES = {
        **settings.STORAGES,
        "sitemaps": {
            "BACKEND": "storages.backends.s3.S3Storage",
            "OPTIONS": {
                "bucket_name": bucket,
                "endpoint_url": endpoint,
                "access_key": "test",
                "secret_key": "test",
                "region_name": "us-east-1",
            },
        },
    }
    settings.SITEMAPKIT = {**settings.SITEMAPKIT, "STORAGE": "sitemaps"}
    django.setup()
    build(items)
