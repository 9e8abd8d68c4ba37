"""Is a newer Hearth released?  Asked only when the user allowed it (setting
``updates.check``, off by default), at most once a day, and never acted on by itself.

One GET request to the releases feed, with no cookies, no identifiers and a bare
``User-Agent: Hearth`` (GitHub's API requires one; the version is not in it).  The answer
is read defensively: it comes from the network, so anything that is not a release with a
version and an https page is "could not be read", never a crash and never a link shown.

Where the feed is: ``HEARTH_UPDATE_URL`` (tests, packagers), else the repository that the
release build wrote into ``resources/release.json`` (GitHub's "latest release" of it).  A
build from a source checkout has neither, so it has nothing to check and asks nothing.
"""

from __future__ import annotations

import json
import logging
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app import __version__
from app.bounded_http import AnswerRefused, AnswerTooLarge, get_bounded
from wire.phrases import Phrase, message_of

log = logging.getLogger(__name__)

URL_ENV = "HEARTH_UPDATE_URL"
RELEASE_FILE = "release.json"  # in resources/, written by packaging/freeze.sh
CHECK_INTERVAL_S = 24 * 3600
TIMEOUT_S = 10.0
MAX_ANSWER_BYTES = 1_000_000
_VERSION = re.compile(r"v?(\d+(?:\.\d+){0,3})(?:[-.]?(a|b|rc|alpha|beta|dev)\.?(\d*))?", re.I)
UNREADABLE = Phrase("the answer about new versions could not be read")
_PRE_ORDER = {"dev": 0, "a": 1, "alpha": 1, "b": 2, "beta": 2, "rc": 3}


class UpdateCheckFailed(Exception):
    """A sentence for the user: why there is no answer this time."""


@dataclass(frozen=True)
class UpdateCheck:
    latest: str  # the released version, as its tag says it ("0.2.0")
    page: str  # the release's web page (https), for the user to read and download from
    newer: bool  # the released version is newer than this one


def feed_url(resources: Path | None = None) -> str | None:
    """Where to ask, or None when this build does not know where it is released."""
    configured = os.environ.get(URL_ENV, "").strip()
    if configured:
        return configured
    repository = release_repository(resources)
    if repository is None:
        return None
    return f"https://api.github.com/repos/{repository}/releases/latest"


def release_repository(resources: Path | None = None) -> str | None:
    """The GitHub repository ("owner/name") this build is released from, as the release
    build wrote it into ``resources/release.json``; None for a build from a checkout."""
    if resources is None:
        from app.paths import resources_dir

        resources = resources_dir()
    try:
        release = json.loads((resources / RELEASE_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    repository = release.get("repository") if isinstance(release, dict) else None
    if not isinstance(repository, str) or not re.fullmatch(r"[\w.-]+/[\w.-]+", repository):
        return None
    return repository


def version_key(text: str) -> tuple[int, ...] | None:
    """A comparable key for "1.2.3", "v1.2.3" or "1.2.0rc1"; None for anything else."""
    match = _VERSION.fullmatch(text.strip())
    if match is None:
        return None
    numbers = [int(part) for part in match[1].split(".")]
    numbers += [0] * (4 - len(numbers))
    if match[2]:  # a pre-release comes before its release
        return (*numbers, 0, _PRE_ORDER[match[2].lower()], int(match[3] or 0))
    return (*numbers, 1, 0, 0)


def read_answer(answer: Any, current: str = __version__) -> UpdateCheck:
    """The release that the feed's JSON names, compared with ``current``."""
    unreadable = UpdateCheckFailed(UNREADABLE)
    if not isinstance(answer, dict):
        raise unreadable
    tag, page = answer.get("tag_name"), answer.get("html_url")
    if not isinstance(tag, str) or not isinstance(page, str) or not page.startswith("https://"):
        raise unreadable
    latest, mine = version_key(tag), version_key(current)
    if latest is None or mine is None or answer.get("draft") or answer.get("prerelease"):
        raise unreadable
    return UpdateCheck(tag.strip().removeprefix("v"), page, latest > mine)


def check(url: str, current: str = __version__, timeout: float = TIMEOUT_S) -> UpdateCheck:
    """Ask ``url`` once, within ``timeout`` seconds in all (not per read: a feed that sends
    a byte a second does not hold the check), reading at most ``MAX_ANSWER_BYTES`` and
    following redirects only on the same host over https.  Raises UpdateCheckFailed with a
    sentence when there is no answer."""
    import httpx

    headers = {"User-Agent": "Hearth", "Accept": "application/vnd.github+json"}
    try:
        with httpx.Client(headers=headers) as client:
            answer = get_bounded(client, url, deadline_s=timeout, max_bytes=MAX_ANSWER_BYTES)
    except AnswerTooLarge as exc:
        log.info("update check: %s: %s", url, exc)
        raise UpdateCheckFailed(UNREADABLE) from None
    except AnswerRefused as exc:
        log.info("update check: %s: %s", url, exc)
        raise UpdateCheckFailed(message_of(exc)) from None
    except (httpx.HTTPError, httpx.InvalidURL) as exc:
        log.info("update check: %s: %s", url, exc)
        raise UpdateCheckFailed(Phrase("the releases page could not be reached")) from None
    if answer.status != 200:
        raise UpdateCheckFailed(
            Phrase("the releases page answered {0}", f"{answer.status} {answer.reason}")
        )
    try:
        document = json.loads(answer.body)
    except (ValueError, RecursionError):
        raise UpdateCheckFailed(UNREADABLE) from None
    return read_answer(document, current)
