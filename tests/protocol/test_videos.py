from __future__ import annotations

import datetime
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from django_sitemapkit._protocol.extensionxml import VIDEO_NS, VideoXml
from django_sitemapkit._protocol.writer import UrlsetWriter
from tests.xsd import validate_urlset

VIDEOS = VideoXml("https://www.example.com", datetime.UTC)
MINIMAL = {
    "thumbnail_loc": "/thumbs/1.jpg",
    "title": "Grilling steaks",
    "description": "How to grill <steaks> & more",
    "content_loc": "https://cdn.example.net/video 1.mp4",
}


def valid(*videos: str) -> Any:
    writer = UrlsetWriter(namespaces={"video": VIDEO_NS})
    writer.add_xml(f"<url><loc>https://www.example.com/v</loc>{''.join(videos)}</url>\n")
    return validate_urlset(writer.content())


def test_every_tag_in_the_schemas_order() -> None:
    xml, problems = VIDEOS(
        {
            **MINIMAL,
            "player_loc": "/player?id=1&autoplay=0",
            "duration": 600,
            "expiration_date": datetime.date(2030, 1, 1),
            "rating": 4.25,
            "view_count": 12,
            "publication_date": datetime.datetime(2026, 1, 2, 3, 4, tzinfo=datetime.UTC),
            "tags": ["steak", "meat"],
            "family_friendly": True,
            "restriction": {"relationship": "allow", "countries": ["ie", "GB"]},
            "requires_subscription": "no",
            "uploader": {"name": "GrillyMcGrillerson", "info": "/users/grilly"},
            "platform": {"relationship": "deny", "platforms": "tv mobile"},
            "live": False,
        }
    )
    assert problems == []
    assert xml is not None
    assert "<video:content_loc>https://cdn.example.net/video%201.mp4</video:content_loc>" in xml
    assert '<video:restriction relationship="allow">IE GB</video:restriction>' in xml
    valid(xml)


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        ({"title": None}, "no title"),
        ({"description": "x" * 2049}, "longer than 2,048"),
        ({"content_loc": None}, "neither content_loc nor player_loc"),
        ({"thumbnail_loc": "javascript:x"}, "thumbnail_loc"),
    ],
)
def test_a_missing_or_bad_required_value_drops_the_video(
    change: dict[str, Any], reason: str
) -> None:
    xml, problems = VIDEOS({**MINIMAL, **change})
    assert xml is None
    assert reason in problems[0]


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("duration", 0),
        ("duration", 28801),
        ("rating", 5.1),
        ("rating", float("nan")),
        ("view_count", -1),
        ("family_friendly", "maybe"),
        ("restriction", {"relationship": "allow", "countries": ["USA"]}),
        ("restriction", {"relationship": "permit", "countries": ["US"]}),
        ("platform", {"relationship": "allow", "platforms": ["watch"]}),
        ("publication_date", "last week"),
        ("tags", [f"t{n}" for n in range(33)]),
    ],
)
def test_a_bad_optional_value_drops_just_that_value(key: str, value: Any) -> None:
    xml, problems = VIDEOS({**MINIMAL, key: value})
    assert xml is not None
    assert f"video {key} dropped" in problems[0]
    valid(xml)


text = st.text(max_size=300)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    title=text,
    description=text,
    url=st.one_of(text, st.just("/a b/ç?x=<1>&y")),
    tags=st.lists(text, max_size=40),
    uploader=text,
    duration=st.integers(-5, 30000),
    rating=st.floats(allow_nan=True),
)
def test_whatever_users_give_the_file_validates(**values: Any) -> None:
    xml, _problems = VIDEOS(
        {
            "thumbnail_loc": values["url"],
            "title": values["title"],
            "description": values["description"],
            "player_loc": values["url"],
            "tags": values["tags"],
            "uploader": values["uploader"],
            "duration": values["duration"],
            "rating": values["rating"],
        }
    )
    valid(xml or "")
