"""Connections that cannot starve the server: a deadline for a request's headers, a cap
on one client's open connections, and a count of requests in flight instead of sockets.

Why: uvicorn's ``limit_concurrency`` counts connections, and nothing times out a
connection before its first request.  Sixty-four silent or half-sent connections (a
slowloris, needing no key) then made every request a 503, the keyed client's included.
Here a connection that has not sent a whole request's headers within
``HEADER_TIMEOUT_S`` (after it opened, or after its last answer) is closed; one address
(other than this computer's) holds at most ``CONNECTIONS_PER_CLIENT`` connections; and
the limit that answers 503 counts requests that passed the key check and are being
answered (``InFlight``), so that idle sockets cost nothing and a client without the key
never takes a keyed client's place.
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import threading
from collections import Counter
from typing import Any, ClassVar

from uvicorn.protocols.http.h11_impl import H11Protocol

log = logging.getLogger(__name__)

HEADER_TIMEOUT_S = 10.0
CONNECTIONS_PER_CLIENT = 256  # from one address other than this computer (a proxy, a LAN)
MAX_IN_FLIGHT = 64  # requests being answered (past the key check) at once


class GuardedH11(H11Protocol):
    """uvicorn's HTTP/1.1 protocol with the header deadline and the per-client cap."""

    per_client: ClassVar[Counter[str]] = Counter()  # open connections by address

    def connection_made(self, transport: Any) -> None:
        super().connection_made(transport)
        self._address = (self.client or ("", 0))[0]
        self._counted = not _is_local(self._address)
        self._header_timer: asyncio.TimerHandle | None = None
        self._cycle: Any = None
        if self._counted:
            GuardedH11.per_client[self._address] += 1
            if GuardedH11.per_client[self._address] > CONNECTIONS_PER_CLIENT:
                log.info("too many connections from %s: closing one", self._address)
                transport.close()
                return
        self._await_headers()

    def _await_headers(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
        self._cycle = self.cycle
        self._header_timer = self.loop.call_later(HEADER_TIMEOUT_S, self._headers_late)

    def _headers_late(self) -> None:
        self._header_timer = None
        answering = self.cycle is not None and not self.cycle.response_complete
        if self.cycle is self._cycle and not answering and not self.transport.is_closing():
            log.info("no whole request from %s in %.0f s: closing", self._address, HEADER_TIMEOUT_S)
            self.transport.close()

    def handle_events(self) -> None:
        super().handle_events()
        if self.cycle is not self._cycle and self._header_timer is not None:
            self._header_timer.cancel()  # a request's headers arrived
            self._header_timer = None

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing():
            self._await_headers()  # a kept-alive connection waits for its next request

    def connection_lost(self, exc: Exception | None) -> None:
        if getattr(self, "_header_timer", None) is not None:
            self._header_timer.cancel()  # type: ignore[union-attr]
        if getattr(self, "_counted", False):
            GuardedH11.per_client[self._address] -= 1
            if GuardedH11.per_client[self._address] <= 0:
                del GuardedH11.per_client[self._address]
        super().connection_lost(exc)


def _is_local(address: str) -> bool:
    try:
        return ipaddress.ip_address(address).is_loopback
    except ValueError:
        return True  # a Unix socket or no address: this computer


class InFlight:
    """Requests being answered, counted from the key check to the end of the exchange
    (streams included); past ``limit`` a request is told the server is busy."""

    def __init__(self, limit: int = MAX_IN_FLIGHT) -> None:
        self.limit = limit
        self.count = 0
        self._lock = threading.Lock()

    def enter(self) -> bool:
        with self._lock:
            if self.count >= self.limit:
                return False
            self.count += 1
            return True

    def leave(self) -> None:
        with self._lock:
            self.count = max(0, self.count - 1)
