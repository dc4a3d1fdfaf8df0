from __future__ import annotations

import pytest

from django_sitemapkit._protocol.extensionxml import IMAGE_NS, FragmentChecker, FragmentError

CHECKER = FragmentChecker({"image": IMAGE_NS, "ex": "urn:example"})


@pytest.mark.parametrize(
    "fragment",
    [
        "<image:image><image:loc>https://x/a.jpg</image:loc></image:image>",
        '<ex:a ex:b="1">t &amp; <![CDATA[<x>]]></ex:a>\n<ex:c/>',
        "",
    ],
)
def test_well_formed_fragments_of_declared_prefixes_pass(fragment: str) -> None:
    CHECKER.check(fragment)


@pytest.mark.parametrize(
    ("fragment", "reason"),
    [
        ("<ex:a>", "not well-formed"),
        ("<video:video/>", "unbound prefix"),
        ('<ex:a other:b="1"/>', "unbound prefix"),
        ("<loc>https://x/</loc>", "not of an extension"),
        ("loose text", "outside any element"),
        ('<a xmlns="urn:own"/>', "declares namespace"),
        ("&custom;", "undefined entity"),
        ("<!DOCTYPE x [<!ENTITY e 'x'>]><ex:a/>", "not well-formed"),
        ("<ex:a/></urlset><urlset>", "not well-formed"),
        ("<ex:a>\x01</ex:a>", "not well-formed"),
        ("\ud800", "not valid Unicode"),
    ],
)
def test_fragments_that_would_break_the_file_are_refused(fragment: str, reason: str) -> None:
    with pytest.raises(FragmentError, match=reason):
        CHECKER.check(fragment)
