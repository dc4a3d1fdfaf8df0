"""``<image:image>`` elements (Google's image sitemap extension).

An item's images are URLs (str) or dicts with a ``"loc"``: a path is made
absolute from the site's base URL, another host (a CDN) is allowed, and each
is percent-encoded and escaped as ``<loc>`` is. Google reads at most 1,000
images per page; the rest are dropped and counted.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from django_sitemapkit.protocol.extvalues import absolute_url

MAX_IMAGES_PER_URL = 1000


@dataclass
class ImagesXml:
    """The elements of one item's images, and what was left out and why."""

    xml: str = ""
    dropped: int = 0
    problems: list[str] = field(default_factory=list)


def image_element(url: str) -> str:
    """The element of one image whose URL is already absolute and escaped."""
    return f"<image:image><image:loc>{url}</image:loc></image:image>"


def images_xml(images: Iterable[object], base_url: str) -> ImagesXml:
    """The ``<image:image>`` elements of ``images``, at most 1,000; bad ones dropped."""
    result = ImagesXml()
    parts: list[str] = []
    if isinstance(images, str | Mapping):
        images = [images]
    for image in images:
        raw = image.get("loc") if isinstance(image, Mapping) else image
        if raw is None or raw == "":
            continue
        if len(parts) >= MAX_IMAGES_PER_URL:
            result.dropped += 1
            continue
        try:
            parts.append(image_element(absolute_url(raw, base_url)))
        except ValueError as exc:
            result.dropped += 1
            result.problems.append(f"image {raw!r}: {exc}")
    over = result.dropped - len(result.problems)
    if over:
        result.problems.append(f"{over:,} images past Google's {MAX_IMAGES_PER_URL:,} per URL")
    result.xml = "".join(parts)
    return result
