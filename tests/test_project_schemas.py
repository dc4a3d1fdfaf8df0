"""The project's own schemas (``tests/schemas/``) reject what the official ones reject.

Every suite run validates what the package writes against the schemas the
project wrote from the protocol's published structure, and against the
official ones in addition wherever they are at hand (``tests/xsd.py``). Here
broken documents go through both: each is rejected by ours and, when the
official schemas are present (CI), by them too, so each case is a real breach
and ours miss none of them. Good documents, as the package writes them, pass
both. A few documents only ours reject, on purpose: the protocol or Google's
reference says more than the official files (``STRICTER``, each with why).
"""

from __future__ import annotations

import pytest
from lxml import etree

from tests.xsd import PROJECT_XSD_DIR, official_xsd_dir, schema_errors

NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
NAMESPACES = (
    f'xmlns="{NS}" '
    'xmlns:image="http://www.google.com/schemas/sitemap-image/1.1" '
    'xmlns:video="http://www.google.com/schemas/sitemap-video/1.1" '
    'xmlns:news="http://www.google.com/schemas/sitemap-news/0.9" '
    'xmlns:xhtml="http://www.w3.org/1999/xhtml"'
)
LOC = "<loc>https://www.example.com/a</loc>"
THUMB = "<video:thumbnail_loc>https://cdn.example.com/t.jpg</video:thumbnail_loc>"
VIDEO_HEAD = (
    f"{THUMB}<video:title>Grilling</video:title><video:description>How</video:description>"
    "<video:content_loc>https://cdn.example.com/v.mp4</video:content_loc>"
)
PUBLICATION = "<news:publication><news:name>The Times</news:name><news:language>en</news:language></news:publication>"
LINK = '<xhtml:link rel="alternate" hreflang="de" href="https://www.example.com/de/a"/>'


def urlset(body: str) -> str:
    return f"<urlset {NAMESPACES}>{body}</urlset>"


def url(extra: str, loc: str = LOC) -> str:
    return urlset(f"<url>{loc}{extra}</url>")


def video(body: str) -> str:
    return url(f"<video:video>{body}</video:video>")


def news(body: str) -> str:
    return url(f"<news:news>{body}</news:news>")


def index(body: str) -> str:
    return f'<sitemapindex xmlns="{NS}">{body}</sitemapindex>'


def sitemap(
    extra: str = "", loc: str = "<loc>https://www.example.com/sitemap-a-1.xml</loc>"
) -> str:
    return index(f"<sitemap>{loc}{extra}</sitemap>")


GOOD = {
    "every core element": urlset(
        f"<url>{LOC}<lastmod>2026-01-01</lastmod><changefreq>daily</changefreq>"
        "<priority>0.0</priority></url>"
        "<url><loc>https://www.example.com/b?x=1&amp;y=2</loc>"
        "<lastmod>2026-01-01T10:30:00Z</lastmod><priority>1.0</priority></url>"
        "<url><loc>http://example.com/</loc>"
        "<lastmod>2026-01-01T10:30:00.250+02:00</lastmod></url>"
    ),
    "image": url("<image:image><image:loc>https://cdn.example.com/a.jpg</image:loc></image:image>"),
    "video, every tag the package writes": video(
        f"{VIDEO_HEAD}<video:player_loc>https://www.example.com/p</video:player_loc>"
        "<video:duration>600</video:duration><video:expiration_date>2027-01-01</video:expiration_date>"
        "<video:rating>4.2</video:rating><video:view_count>12</video:view_count>"
        "<video:publication_date>2026-01-01T10:00:00+00:00</video:publication_date>"
        "<video:tag>steak</video:tag><video:tag>grill</video:tag>"
        "<video:family_friendly>yes</video:family_friendly>"
        '<video:restriction relationship="allow">IE GB</video:restriction>'
        "<video:requires_subscription>no</video:requires_subscription>"
        '<video:uploader info="https://www.example.com/u">Grill Co</video:uploader>'
        '<video:platform relationship="deny">tv mobile</video:platform><video:live>no</video:live>'
    ),
    "video with a player only": video(
        f"{THUMB}<video:title>T</video:title><video:description>D</video:description>"
        "<video:player_loc>https://www.example.com/p</video:player_loc>"
    ),
    "news": news(
        f"{PUBLICATION}<news:publication_date>2026-01-01</news:publication_date>"
        "<news:title>Headline</news:title>"
    ),
    "alternates": url(
        LINK
        + '<xhtml:link rel="alternate" hreflang="zh-Hant-TW" href="https://www.example.com/zh/a"/>'
        + '<xhtml:link rel="alternate" hreflang="x-default" href="https://www.example.com/a"/>'
    ),
    "index": index(
        "<sitemap><loc>https://www.example.com/sitemap-a-1.xml</loc>"
        "<lastmod>2026-01-01T10:30:00+00:00</lastmod></sitemap>"
        "<sitemap><loc>https://www.example.com/sitemap-a-2.xml</loc></sitemap>"
    ),
}

BROKEN = {
    "no url": urlset(""),
    "a url without loc": urlset("<url><lastmod>2026-01-01</lastmod></url>"),
    "lastmod before loc": urlset(f"<url><lastmod>2026-01-01</lastmod>{LOC}</url>"),
    "priority before changefreq": url("<priority>0.5</priority><changefreq>daily</changefreq>"),
    "two locs": url(LOC),
    "an element the protocol lacks": url("<title>A</title>"),
    "priority above 1": url("<priority>1.5</priority>"),
    "priority below 0": url("<priority>-0.1</priority>"),
    "priority in words": url("<priority>high</priority>"),
    "changefreq not in the list": url("<changefreq>sometimes</changefreq>"),
    "changefreq capitalised": url("<changefreq>Daily</changefreq>"),
    "lastmod of month 13": url("<lastmod>2026-13-01</lastmod>"),
    "lastmod in words": url("<lastmod>yesterday</lastmod>"),
    "lastmod with slashes": url("<lastmod>2026/01/01</lastmod>"),
    "lastmod at hour 25": url("<lastmod>2026-01-01T25:00:00Z</lastmod>"),
    "loc over 2,048 characters": url("", f"<loc>https://www.example.com/{'a' * 2030}</loc>"),
    "loc under 12 characters": url("", "<loc>http://a.b/</loc>"),
    "an empty loc": url("", "<loc></loc>"),
    "an element of an undeclared namespace": url('<x:y xmlns:x="urn:example:x"/>'),
    "a url of another namespace": urlset(f'<url xmlns="urn:example:other">{LOC}</url>'),
    "a sitemap element in a urlset": urlset(f"<sitemap>{LOC}</sitemap>"),
    "an image without loc": url("<image:image></image:image>"),
    "an image element Google lacks": url(
        "<image:image><image:loc>https://cdn.example.com/a.jpg</image:loc><image:size/></image:image>"
    ),
    "a video without thumbnail": video(
        "<video:title>T</video:title><video:description>D</video:description>"
        "<video:content_loc>https://cdn.example.com/v.mp4</video:content_loc>"
    ),
    "a video without description": video(
        f"{THUMB}<video:title>T</video:title>"
        "<video:content_loc>https://cdn.example.com/v.mp4</video:content_loc>"
    ),
    "a video title over 100 characters": video(
        f"{THUMB}<video:title>{'t' * 101}</video:title><video:description>D</video:description>"
        "<video:content_loc>https://cdn.example.com/v.mp4</video:content_loc>"
    ),
    "a video description over 2,048 characters": video(
        f"{THUMB}<video:title>T</video:title><video:description>{'d' * 2049}</video:description>"
        "<video:content_loc>https://cdn.example.com/v.mp4</video:content_loc>"
    ),
    "a video over 28,800 seconds": video(f"{VIDEO_HEAD}<video:duration>28801</video:duration>"),
    "a video rated above 5": video(f"{VIDEO_HEAD}<video:rating>5.1</video:rating>"),
    "a negative view count": video(f"{VIDEO_HEAD}<video:view_count>-1</video:view_count>"),
    "33 video tags": video(VIDEO_HEAD + "<video:tag>t</video:tag>" * 33),
    "video tags before the publication date": video(
        f"{VIDEO_HEAD}<video:tag>t</video:tag><video:publication_date>2026-01-01</video:publication_date>"
    ),
    "family_friendly neither yes nor no": video(
        f"{VIDEO_HEAD}<video:family_friendly>maybe</video:family_friendly>"
    ),
    "a restriction without relationship": video(
        f"{VIDEO_HEAD}<video:restriction>IE</video:restriction>"
    ),
    "a restriction to lower-case countries": video(
        f'{VIDEO_HEAD}<video:restriction relationship="allow">ie gb</video:restriction>'
    ),
    "a restriction relationship of block": video(
        f'{VIDEO_HEAD}<video:restriction relationship="block">IE</video:restriction>'
    ),
    "a desktop platform": video(
        f'{VIDEO_HEAD}<video:platform relationship="allow">desktop</video:platform>'
    ),
    "news without publication": news(
        "<news:publication_date>2026-01-01</news:publication_date><news:title>H</news:title>"
    ),
    "news without title": news(
        f"{PUBLICATION}<news:publication_date>2026-01-01</news:publication_date>"
    ),
    "news title before its date": news(
        f"{PUBLICATION}<news:title>H</news:title><news:publication_date>2026-01-01</news:publication_date>"
    ),
    "a news language in words": news(
        "<news:publication><news:name>N</news:name><news:language>English</news:language>"
        "</news:publication><news:publication_date>2026-01-01</news:publication_date>"
        "<news:title>H</news:title>"
    ),
    "a news date in words": news(
        f"{PUBLICATION}<news:publication_date>today</news:publication_date><news:title>H</news:title>"
    ),
    "text in an alternate link": url(
        '<xhtml:link rel="alternate" hreflang="de" href="https://www.example.com/de/a">de</xhtml:link>'
    ),
    "an attribute links lack": url(
        '<xhtml:link rel="alternate" hreflang="de" href="https://www.example.com/de/a" foo="1"/>'
    ),
    "an index without sitemap": index(""),
    "an index entry without loc": index("<sitemap><lastmod>2026-01-01</lastmod></sitemap>"),
    "an index lastmod in words": sitemap("<lastmod>yesterday</lastmod>"),
    "an index entry with changefreq": sitemap("<changefreq>daily</changefreq>"),
    "an index loc over 2,048 characters": sitemap(
        "", f"<loc>https://www.example.com/{'a' * 2030}.xml</loc>"
    ),
    "a url in an index": index(f"<url>{LOC}</url>"),
}

# Accepted by the official files, rejected by ours: the published text says more.
STRICTER = {
    # sitemaps.org: the URL must begin with the protocol (http or https).
    "a relative loc": url("", "<loc>/articles/first-one</loc>"),
    "an ftp loc": url("", "<loc>ftp://example.com/file</loc>"),
    # W3C Datetime: a time comes with its time zone designator.
    "a lastmod time without time zone": url("<lastmod>2026-01-01T10:30:00</lastmod>"),
    # Nothing comes before the first <url> in the protocol's structure.
    "an extension before the first url": urlset(
        "<image:image><image:loc>https://cdn.example.com/a.jpg</image:loc></image:image>"
        f"<url>{LOC}</url>"
    ),
    # Google deprecated image:caption, geo_location, title and license (2022).
    "a deprecated image caption": url(
        "<image:image><image:loc>https://cdn.example.com/a.jpg</image:loc>"
        "<image:caption>C</image:caption></image:image>"
    ),
    # Google: a video has content_loc, player_loc or both; durations of 1 to 28,800 s.
    "a video without content_loc or player_loc": video(
        f"{THUMB}<video:title>T</video:title><video:description>D</video:description>"
    ),
    "a video of 0 seconds": video(f"{VIDEO_HEAD}<video:duration>0</video:duration>"),
    # Google's reference writes yes and no in lower case.
    "a capitalised Yes": video(f"{VIDEO_HEAD}<video:live>Yes</video:live>"),
    # Google deprecated news:keywords, genres, access and stock_tickers.
    "deprecated news keywords": news(
        f"{PUBLICATION}<news:publication_date>2026-01-01</news:publication_date>"
        "<news:title>H</news:title><news:keywords>a, b</news:keywords>"
    ),
    # An alternate is <xhtml:link rel="alternate" hreflang=... href=...>; nothing else.
    "an alternate without hreflang": url(
        '<xhtml:link rel="alternate" href="https://www.example.com/de/a"/>'
    ),
    "an XHTML element other than link": url("<xhtml:div/>"),
}


def errors(document: str, folder: object) -> list[str]:
    root = etree.fromstring(document.encode())
    kind = etree.QName(root).localname
    schema = "siteindex.xsd" if kind == "sitemapindex" else "sitemap-all.local.xsd"
    return schema_errors(root, folder, schema)  # type: ignore[arg-type]


@pytest.mark.parametrize("name", GOOD)
def test_good_documents_pass_both(name: str) -> None:
    assert errors(GOOD[name], PROJECT_XSD_DIR) == []
    official = official_xsd_dir()
    if official is not None:
        assert errors(GOOD[name], official) == []


@pytest.mark.parametrize("name", BROKEN)
def test_what_the_official_schemas_reject_ours_reject(name: str) -> None:
    assert errors(BROKEN[name], PROJECT_XSD_DIR), f"our schemas accept {name}"
    official = official_xsd_dir()
    if official is not None:
        assert errors(BROKEN[name], official), f"the official schemas accept {name}: not a case"


@pytest.mark.parametrize("name", STRICTER)
def test_where_ours_are_stricter(name: str) -> None:
    assert errors(STRICTER[name], PROJECT_XSD_DIR), f"our schemas accept {name}"
    official = official_xsd_dir()
    if official is not None:
        assert errors(STRICTER[name], official) == [], f"the official schemas reject {name}"
