"""One GET to a server beyond this machine, bounded: an overall deadline, a size cap while
reading, and redirects only to the same host without leaving https.

Why: a per-read timeout restarts with every byte, so a feed that sends one byte a second
never ends; a listing read whole can be gigabytes; and a redirect could take a question
meant for the releases page or the hub to another host, or from https to plain http.
Used by the update check and the hubs' listings (the catalogue's check), with whichever
HTTP client each already has (``httpx``, or the one the Hugging Face client shares): the
client is only asked to ``stream`` one request at a time without following redirects.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar
from urllib.parse import urljoin, urlsplit

from wire.phrases import Phrase

T = TypeVar("T")
MAX_REDIRECTS = 5
READ_TIMEOUT_S = 10.0  # no byte for this long: the server is gone
_REDIRECTS = (301, 302, 303, 307, 308)


class AnswerRefused(Exception):
    """The answer was not read to its end; ``str()`` is a sentence for the person."""


class AnswerTooLarge(AnswerRefused):
    """Larger than the cap (declared, or counted while reading)."""


class AnswerTooSlow(AnswerRefused):
    """Not whole by the deadline."""


class RedirectRefused(AnswerRefused):
    """Sent on to another host, down to http, or too many times."""


@dataclass(frozen=True)
class Answer:
    status: int
    reason: str
    headers: Any  # the client's headers of the last response
    body: bytes
    url: str  # where the answer came from (after redirects)
    request: Any  # the client's last request


def redirect_refused(source: str, target: str) -> Phrase | None:
    """Why ``source`` may not send Hearth on to ``target`` (None: it may): only the same
    host, and never from https down to http."""
    before, after = urlsplit(source), urlsplit(target)
    if after.scheme not in ("http", "https") or (
        before.scheme == "https" and after.scheme != "https"
    ):
        return Phrase(
            "{0} sent Hearth on to {1}, which is not https: Hearth does not follow it.",
            before.hostname or source,
            target.split("?", maxsplit=1)[0][:200],
        )
    if (after.hostname or "").lower() != (before.hostname or "").lower():
        return Phrase(
            "{0} sent Hearth on to another server ({1}): Hearth does not follow it.",
            before.hostname or source,
            after.hostname or target[:200],
        )
    return None


def get_bounded(
    client: Any,
    url: str,
    *,
    deadline_s: float,
    max_bytes: int,
    headers: dict[str, str] | None = None,
    params: dict[str, Any] | None = None,
) -> Answer:
    """``GET url`` through ``client`` (an ``httpx``-style client), read in full within
    ``deadline_s`` seconds and ``max_bytes`` bytes.  Raises AnswerRefused with a sentence
    past either bound or on a refused redirect; the client's own errors pass through.

    The exchange runs on a thread of its own and the caller waits at most the deadline:
    a server that sends its headers a byte every few seconds (each read within the read
    timeout) cannot hold the caller either.  Such a thread is left to end on its own (it
    reads nothing more once its deadline has passed)."""
    return within(
        lambda: _get(client, url, deadline_s, max_bytes, headers, params), deadline_s, url
    )


def within(call: Callable[[], T], deadline_s: float, url: str) -> T:
    """``call()`` on a thread of its own, waited for at most ``deadline_s`` seconds (and
    one more): AnswerTooSlow past it, the call's own exception otherwise.  For a client
    whose reads cannot be bounded from outside (the ModelScope client's listing)."""
    outcome: list[Any] = []
    done = threading.Event()

    def run() -> None:
        try:
            outcome.append(call())
        except Exception as exc:  # noqa: BLE001 - handed to the caller, whatever it is
            outcome.append(exc)
        finally:
            done.set()

    threading.Thread(target=run, name="bounded-get", daemon=True).start()
    if not done.wait(deadline_s + 1.0):
        raise AnswerTooSlow(_too_slow(url, deadline_s))
    if not outcome:
        raise AnswerRefused(_too_slow(url, deadline_s))  # ended by something not an error
    if isinstance(outcome[0], BaseException):
        raise outcome[0]
    result: T = outcome[0]
    return result


def _too_slow(url: str, deadline_s: float) -> Phrase:
    return Phrase(
        "{0} answered too slowly: no whole answer in {1} seconds.",
        urlsplit(url).hostname or url,
        round(deadline_s),
    )


def _get(
    client: Any,
    url: str,
    deadline_s: float,
    max_bytes: int,
    headers: dict[str, str] | None,
    params: dict[str, Any] | None,
) -> Answer:
    deadline = time.monotonic() + deadline_s
    for _ in range(MAX_REDIRECTS + 1):
        timeout = max(0.1, min(READ_TIMEOUT_S, deadline - time.monotonic()))
        with client.stream(
            "GET", url, headers=headers, params=params, follow_redirects=False, timeout=timeout
        ) as response:
            here = str(response.url)
            if response.status_code in _REDIRECTS and "location" in response.headers:
                target = urljoin(here, response.headers["location"])
                refused = redirect_refused(here, target)
                if refused is not None:
                    raise RedirectRefused(refused)
                url, params = target, None
                continue
            body = _read(response, deadline, deadline_s, max_bytes, here)
            return Answer(
                response.status_code,
                str(getattr(response, "reason_phrase", "")),
                response.headers,
                body,
                here,
                response.request,
            )
    raise RedirectRefused(
        Phrase("{0} sent Hearth on more than {1} times.", urlsplit(url).hostname, MAX_REDIRECTS)
    )


def _read(response: Any, deadline: float, deadline_s: float, max_bytes: int, url: str) -> bytes:
    host = urlsplit(url).hostname or url
    too_large = AnswerTooLarge(
        Phrase(
            "{0} sent an answer larger than {1} MB; it was not read.",
            host,
            max(1, max_bytes // 1_000_000),
        )
    )
    declared = response.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > max_bytes:
        raise too_large
    body = bytearray()
    for chunk in response.iter_bytes():
        body += chunk
        if len(body) > max_bytes:
            raise too_large
        if time.monotonic() > deadline:
            raise AnswerTooSlow(_too_slow(url, deadline_s))
    return bytes(body)
