"""IndexNow: the setting and its check (E022), the key's URL, and submitting with retries."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from django_sitemapkit._checks import check_settings
from django_sitemapkit._indexnow import (
    DEFAULT_ENDPOINT,
    IndexNowConfig,
    config_problems,
    indexnow_config,
    key_location,
    submit,
)
from tests.notifying.conftest import KEY
from tests.notifying.endpoint import Endpoint, dripping_endpoint, running_endpoint

BASE = "https://www.example.com"


def e022(settings: Any, value: object) -> list[str]:
    settings.SITEMAPKIT = {**settings.SITEMAPKIT, "INDEXNOW": value}
    return [e.msg for e in check_settings() if e.id == "sitemapkit.E022"]


def test_off_by_default_and_a_good_setting_passes_the_check(settings: Any) -> None:
    assert indexnow_config() is None
    assert e022(settings, None) == []
    assert e022(settings, {"KEY": KEY}) == []
    assert indexnow_config() == IndexNowConfig(KEY, DEFAULT_ENDPOINT, 10_000, 60.0)
    assert e022(settings, {"KEY": KEY, "DEADLINE": 0.5}) == []
    assert indexnow_config() == IndexNowConfig(KEY, DEFAULT_ENDPOINT, 10_000, 0.5)


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("abc", "SITEMAPKIT['INDEXNOW'] must be a dict or None, not str."),
        ({}, "SITEMAPKIT['INDEXNOW']['KEY'] must be 8 to 128 characters of a-z, A-Z, 0-9 and '-'."),
        ({"KEY": "short"}, "SITEMAPKIT['INDEXNOW']['KEY'] must be 8 to"),
        ({"KEY": "a" * 129}, "SITEMAPKIT['INDEXNOW']['KEY'] must be 8 to"),
        ({"KEY": "abcdefgh/"}, "SITEMAPKIT['INDEXNOW']['KEY'] must be 8 to"),
        ({"KEY": KEY, "ENDPOINT": "file:///etc/passwd"}, "['ENDPOINT'] must be an http or https"),
        ({"KEY": KEY, "BATCH_SIZE": 10_001}, "['BATCH_SIZE'] must be a number from 1 to 10,000."),
        ({"KEY": KEY, "BATCH_SIZE": True}, "['BATCH_SIZE'] must be a number from 1 to 10,000."),
        ({"KEY": KEY, "HOST": "x"}, "SITEMAPKIT['INDEXNOW'] has an unknown key 'HOST'."),
        ({"KEY": KEY, "DEADLINE": 0}, "['DEADLINE'] must be a number of seconds above 0."),
        ({"KEY": KEY, "DEADLINE": "60"}, "['DEADLINE'] must be a number of seconds above 0."),
        ({"KEY": KEY, "DEADLINE": float("inf")}, "['DEADLINE'] must be a number of seconds"),
        ({"KEY": KEY, "DEADLINE": True}, "['DEADLINE'] must be a number of seconds above 0."),
    ],
)
def test_e022_names_what_is_wrong_and_builds_submit_nothing(
    settings: Any, value: object, message: str
) -> None:
    errors = e022(settings, value)
    assert len(errors) == 1 and message in errors[0]
    assert indexnow_config() is None


@given(st.text(alphabet=st.characters(codec="ascii"), max_size=140))
def test_a_key_is_accepted_exactly_when_the_protocol_allows_it(key: str) -> None:
    allowed = 8 <= len(key) <= 128 and all(c.isascii() and (c.isalnum() or c == "-") for c in key)
    assert (config_problems({"KEY": key}) == []) == allowed


def test_the_key_location_is_where_the_views_serve_it(settings: Any) -> None:
    assert key_location(BASE, KEY) == f"{BASE}/{KEY}.txt"
    settings.ROOT_URLCONF = "tests.urls_sitemapkit_in_directory"
    assert key_location(BASE, KEY) == f"{BASE}/sitemapkit/{KEY}.txt"
    settings.ROOT_URLCONF = "tests.urls_without_sitemapkit"
    assert key_location(BASE, KEY) == f"{BASE}/{KEY}.txt"


def send(
    endpoint: Endpoint | str,
    urls: list[str],
    batch_size: int = 10_000,
    deadline: float = 60.0,
    **kwargs: Any,
) -> Any:
    url = endpoint if isinstance(endpoint, str) else endpoint.url
    config = IndexNowConfig(KEY, url, batch_size, deadline)
    return submit(urls, base_url=BASE, config=config, key_url=f"{BASE}/{KEY}.txt", **kwargs)


def test_urls_of_other_hosts_are_left_out_and_batches_are_cut() -> None:
    urls = [f"{BASE}/{i}" for i in range(5)] + ["https://other.example.com/1", f"{BASE}:8/2"]
    with running_endpoint() as endpoint:
        outcome = send(endpoint, urls, batch_size=2)
    assert [post["urlList"] for post in endpoint.posts] == [urls[0:2], urls[2:4], urls[4:5]]
    assert {post["host"] for post in endpoint.posts} == {"www.example.com"}
    assert outcome == (5, 0)


def test_server_errors_and_429_are_retried_with_growing_delays() -> None:
    slept: list[float] = []
    with running_endpoint() as endpoint:
        endpoint.statuses = [500, 429, 502]
        outcome = send(endpoint, [f"{BASE}/1"], sleep=slept.append)
    assert slept == [1.0, 2.0, 4.0]
    assert endpoint.urls() == [f"{BASE}/1"] and outcome == (1, 0)


def test_a_refusal_is_not_retried_and_stops_the_later_batches(
    caplog: pytest.LogCaptureFixture,
) -> None:
    slept: list[float] = []
    with running_endpoint() as endpoint:
        endpoint.statuses = [200, 403]
        outcome = send(endpoint, [f"{BASE}/{i}" for i in range(5)], 2, sleep=slept.append)
    assert slept == [] and endpoint.urls() == [f"{BASE}/0", f"{BASE}/1"]
    assert outcome == (2, 3)
    assert [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING] == [
        f"IndexNow: {endpoint.url} refused the URLs: HTTP 403.",
        f"IndexNow: 3 changed URLs of www.example.com not submitted to {endpoint.url}.",
    ]


def test_an_endpoint_down_is_tried_four_times_then_given_up() -> None:
    slept: list[float] = []
    with running_endpoint() as endpoint:
        pass
    outcome = send(endpoint, [f"{BASE}/1"], sleep=slept.append)
    assert slept == [1.0, 2.0, 4.0] and outcome == (0, 1)


def warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]


@pytest.mark.parametrize("status", [301, 302, 303, 307, 308])
def test_a_redirect_is_a_refusal_and_nothing_is_sent_to_its_target(
    status: int, caplog: pytest.LogCaptureFixture
) -> None:
    slept: list[float] = []
    with running_endpoint() as endpoint, running_endpoint() as elsewhere:
        endpoint.statuses = [status]
        endpoint.location = elsewhere.url.replace("127.0.0.1", "localhost")
        outcome = send(endpoint, [f"{BASE}/1"], sleep=slept.append)
    assert elsewhere.requests == []
    assert endpoint.requests == ["POST /indexnow"] and slept == []
    assert outcome == (0, 1)
    assert warnings(caplog) == [
        f"IndexNow: {endpoint.url} refused the URLs: HTTP {status} (a redirect, not followed).",
        f"IndexNow: 1 changed URLs of www.example.com not submitted to {endpoint.url}.",
    ]


def test_an_endpoint_dripping_its_answer_is_given_up_at_the_deadline(
    caplog: pytest.LogCaptureFixture,
) -> None:
    # The answer would be a 200 after some ten seconds, each byte well within the
    # timeout of a read: only the deadline over the whole exchange ends it.
    with dripping_endpoint() as url:
        outcome = send(url, [f"{BASE}/1", f"{BASE}/2"], batch_size=1, deadline=0.5)
    assert outcome == (0, 2)
    assert warnings(caplog) == [
        f"IndexNow: {url} gave no answer within the deadline of 0.5 s; giving up.",
        f"IndexNow: 2 changed URLs of www.example.com not submitted to {url}.",
    ]
