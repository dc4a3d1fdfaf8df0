"""IndexNow: telling search engines which URLs changed, in POSTs of at most 10,000 URLs.

The protocol (https://www.indexnow.org/documentation): a JSON body
``{"host", "key", "keyLocation", "urlList"}`` POSTed to an endpoint, the key
(8 to 128 of ``a-zA-Z0-9-``) served as a text file on the site's own host.
Each POST is bounded (``boundedhttp.py``): one deadline for all the
requests of a build, and a redirect is a refusal, never followed. A failure is retried with
exponential backoff while the deadline allows, then logged: it never fails
the build that asked.
"""

from __future__ import annotations

import http.client
import json
import logging
import math
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from django.urls import NoReverseMatch, get_script_prefix, reverse

from django_sitemapkit.boundedhttp import Deadline, exchange
from django_sitemapkit.conf import SETTINGS_NAME, get_settings
from django_sitemapkit.engine.rendering import URL_NAMESPACE, views_routed

logger = logging.getLogger("django_sitemapkit")

DEFAULT_ENDPOINT = "https://api.indexnow.org/indexnow"
# The protocol's limit of URLs per POST.
MAX_BATCH = 10_000
KEY_PATTERN = re.compile(r"[a-zA-Z0-9-]{8,128}")
# Seconds slept before each retry: four tries in all, about seven seconds.
DELAYS = (1.0, 2.0, 4.0)
# Seconds each socket operation may take, and all the requests of a build together.
TIMEOUT = 10.0
DEFAULT_DEADLINE = 60.0
USER_AGENT = "django-sitemapkit"
# The name of the key file's route in each site's URL patterns.
KEY_ROUTE = "indexnow-key"
_SETTING = f"{SETTINGS_NAME}['INDEXNOW']"
_KNOWN = {"KEY", "ENDPOINT", "BATCH_SIZE", "DEADLINE"}


@dataclass(frozen=True)
class IndexNowConfig:
    key: str
    endpoint: str = DEFAULT_ENDPOINT
    batch_size: int = MAX_BATCH
    deadline: float = DEFAULT_DEADLINE


def config_problems(value: object) -> list[str]:
    """What is wrong with an ``INDEXNOW`` setting (None, or a dict), in words; none: usable."""
    if value is None:
        return []
    if not isinstance(value, dict):
        return [f"{_SETTING} must be a dict or None, not {type(value).__name__}."]
    problems = [f"{_SETTING} has an unknown key {key!r}." for key in sorted(set(value) - _KNOWN)]
    key = value.get("KEY")
    if not isinstance(key, str) or not KEY_PATTERN.fullmatch(key):
        problems.append(f"{_SETTING}['KEY'] must be 8 to 128 characters of a-z, A-Z, 0-9 and '-'.")
    endpoint = value.get("ENDPOINT", DEFAULT_ENDPOINT)
    if not isinstance(endpoint, str) or urlsplit(endpoint).scheme not in ("http", "https"):
        problems.append(f"{_SETTING}['ENDPOINT'] must be an http or https URL.")
    batch = value.get("BATCH_SIZE", MAX_BATCH)
    if isinstance(batch, bool) or not isinstance(batch, int) or not 1 <= batch <= MAX_BATCH:
        problems.append(f"{_SETTING}['BATCH_SIZE'] must be a number from 1 to {MAX_BATCH:,}.")
    deadline = value.get("DEADLINE", DEFAULT_DEADLINE)
    if (
        isinstance(deadline, bool)
        or not isinstance(deadline, int | float)
        or not 0 < deadline < math.inf
    ):
        problems.append(f"{_SETTING}['DEADLINE'] must be a number of seconds above 0.")
    return problems


def indexnow_config() -> IndexNowConfig | None:
    """The configured IndexNow, or None when it is off or unusable (check E022 says why)."""
    value = get_settings().INDEXNOW
    if value is None or config_problems(value):
        return None
    return IndexNowConfig(
        key=value["KEY"],
        endpoint=value.get("ENDPOINT", DEFAULT_ENDPOINT),
        batch_size=value.get("BATCH_SIZE", MAX_BATCH),
        deadline=value.get("DEADLINE", DEFAULT_DEADLINE),
    )


def key_location(base_url: str, key: str, namespace: str = URL_NAMESPACE) -> str:
    """The key file's URL: where the site's views serve it, else at the root as Django knows it."""
    if views_routed(namespace):
        try:
            return base_url + reverse(f"{namespace}:{KEY_ROUTE}", kwargs={"key": key})
        except NoReverseMatch:
            pass
    return base_url + get_script_prefix() + f"{key}.txt"


@dataclass
class Submission:
    """What was sent: URLs accepted by the endpoint, and URLs not sent because it failed."""

    sent: int = 0
    unsent: int = 0


def submit(
    urls: Sequence[str],
    *,
    base_url: str,
    config: IndexNowConfig,
    key_url: str,
    sleep: Callable[[float], None] = time.sleep,
) -> Submission:
    """POST the URLs of ``base_url``'s host in batches, all within ``config.deadline`` seconds;
    the first batch that fails stops the rest."""
    host = urlsplit(base_url).netloc
    own = [url for url in urls if urlsplit(url).netloc == host]
    outcome = Submission()
    deadline = Deadline(config.deadline)
    for start in range(0, len(own), config.batch_size):
        batch = own[start : start + config.batch_size]
        body = {"host": host, "key": config.key, "keyLocation": key_url, "urlList": batch}
        if not _post(config.endpoint, body, deadline, sleep):
            outcome.unsent = len(own) - start
            logger.warning(
                "IndexNow: %d changed URLs of %s not submitted to %s.",
                outcome.unsent,
                host,
                config.endpoint,
            )
            break
        outcome.sent += len(batch)
    if outcome.sent:
        logger.info("IndexNow: %d changed URLs of %s submitted.", outcome.sent, host)
    return outcome


def _post(
    endpoint: str, body: dict[str, Any], deadline: Deadline, sleep: Callable[[float], None]
) -> bool:
    """One batch, tried again after each delay of DELAYS while the failure may pass."""
    data = json.dumps(body).encode("utf-8")
    headers = {"Content-Type": "application/json; charset=utf-8", "User-Agent": USER_AGENT}
    for attempt in range(len(DELAYS) + 1):
        if attempt:
            sleep(min(DELAYS[attempt - 1], deadline.left()))
        if not deadline.left():
            logger.warning(
                "IndexNow: %s gave no answer within the deadline of %g s; giving up.",
                endpoint,
                deadline.seconds,
            )
            return False
        try:
            with exchange("POST", endpoint, deadline, TIMEOUT, data, headers) as response:
                status = response.response.status
        except (OSError, ValueError, http.client.HTTPException) as exc:
            problem = str(exc) or type(exc).__name__
        else:
            if 200 <= status < 300:
                return True
            # Too many requests and server errors may pass; the others say the request is wrong.
            if status != 429 and status < 500:
                redirect = " (a redirect, not followed)" if 300 <= status < 400 else ""
                logger.warning(
                    "IndexNow: %s refused the URLs: HTTP %d%s.", endpoint, status, redirect
                )
                return False
            problem = f"HTTP {status}"
        logger.info("IndexNow: try %d to %s failed (%s).", attempt + 1, endpoint, problem)
    logger.warning("IndexNow: %s failed %d times; giving up.", endpoint, len(DELAYS) + 1)
    return False
