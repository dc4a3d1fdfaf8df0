from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from django_sitemapkit._protocol.extensionxml import MAX_IMAGES_PER_URL, image_element, images_xml
from django_sitemapkit._protocol.writer import UrlsetWriter
from tests.xsd import validate_urlset

BASE = "https://www.example.com"


def test_images_are_made_absolute_escaped_and_encoded() -> None:
    found = images_xml(["/a.jpg", {"loc": "https://cdn.example.net/b c.jpg?x=1&y=2"}], BASE)
    assert found.xml == image_element(f"{BASE}/a.jpg") + image_element(
        "https://cdn.example.net/b%20c.jpg?x=1&amp;y=2"
    )
    assert found.dropped == 0


def test_a_single_url_is_one_image_and_empty_values_are_none() -> None:
    assert images_xml("/a.jpg", BASE).xml == image_element(f"{BASE}/a.jpg")
    assert images_xml([None, "", {"loc": None}], BASE).xml == ""


def test_at_most_1000_per_url_and_bad_ones_dropped() -> None:
    found = images_xml([f"/i{n}.jpg" for n in range(MAX_IMAGES_PER_URL + 1)] + ["mailto:x"], BASE)
    assert found.xml.count("<image:image>") == MAX_IMAGES_PER_URL
    assert found.dropped == 2
    assert any("1,000 per URL" in problem for problem in found.problems)


IMAGE_NS = "http://www.google.com/schemas/sitemap-image/1.1"


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(st.text(max_size=80), st.just("/a b&c/é?x=<1>")), max_size=5))
def test_whatever_urls_users_give_the_file_validates(urls: list[str]) -> None:
    writer = UrlsetWriter(namespaces={"image": IMAGE_NS})
    xml = images_xml(urls, BASE).xml
    writer.add_xml(f"<url><loc>{BASE}/p</loc>{xml}</url>\n")
    validate_urlset(writer.content())
