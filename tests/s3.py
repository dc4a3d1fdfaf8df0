"""S3 for the tests: a fresh bucket on moto's server (the ``s3_endpoint`` fixture, conftest.py)."""

from __future__ import annotations

import uuid
from typing import Any

import boto3


def use_new_bucket(settings: Any, endpoint: str) -> tuple[Any, str]:
    """A new bucket, publishing through STORAGE ``"sitemaps"``: (boto3 client, bucket name).

    Randomly named: the moto server outlives the test, and a name made of a
    timestamp and an object id can repeat.
    """
    client = boto3.client(
        "s3",
        endpoint_url=endpoint,
        aws_access_key_id="test",
        aws_secret_access_key="test",
        region_name="us-east-1",
    )
    name = f"sitemaps-{uuid.uuid4().hex}"
    client.create_bucket(Bucket=name)
    settings.STORAGES = {
        **settings.STORAGES,
        "sitemaps": {
            "BACKEND": "storages.backends.s3.S3Storage",
            "OPTIONS": {
                "bucket_name": name,
                "endpoint_url": endpoint,
                "access_key": "test",
                "secret_key": "test",
                "region_name": "us-east-1",
                "file_overwrite": True,
            },
        },
    }
    settings.SITEMAPKIT = {**settings.SITEMAPKIT, "STORAGE": "sitemaps"}
    return client, name
