"""Fail fast when a hub cannot be reached at all.

Offline, the hub clients retry a request several times (ModelScope's five tries took
17–29 s to fail, although the name lookup failed at once), and the user waited for a
"no results" that was really "no network".  Before a search or a listing, the hub's host
name is looked up and a connection is tried once, briefly: a name that does not resolve
or a host that refuses is said at once, in words.  A success is remembered for a minute,
so browsing does not pay for the check again.
"""

from __future__ import annotations

import socket
import threading
import time
import urllib.request
from urllib.parse import urlsplit

from app.errors import HearthError
from wire.phrases import Phrase

CONNECT_TIMEOUT_S = 5.0
REMEMBER_S = 60.0
_lock = threading.Lock()


class Unreachable(HearthError):
    """The hub's host cannot be looked up or connected to: no network, most often."""


_reached: dict[tuple[str, int], float] = {}


def check_reachable(endpoint_url: str, hub_name: str, remembered: bool = True) -> None:
    """HearthError in words when ``endpoint_url``'s host cannot be resolved or connected
    to; nothing when it can (or was, within the last minute, unless ``remembered`` is
    False: after a request failed, to tell a network that went away from a missing file)."""
    parts = urlsplit(endpoint_url)
    host = parts.hostname
    if not host:
        return  # a malformed address: the client's own error says more
    if _through_proxy(host):
        return  # the proxy reaches the hub, not this machine: the client's error says why
    port = parts.port or (443 if parts.scheme == "https" else 80)
    key = (host, port)
    with _lock:
        if remembered and time.monotonic() - _reached.get(key, -REMEMBER_S) < REMEMBER_S:
            return
    try:
        addresses = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as exc:
        raise Unreachable(
            Phrase(
                "Hearth cannot reach {0}: the name {1} cannot be looked up. Check the "
                "internet connection, or set another address for {0} in Settings.",
                hub_name,
                host,
            )
        ) from exc
    last: OSError | None = None
    for family, kind, proto, _name, address in addresses:
        try:
            with socket.socket(family, kind, proto) as probe:
                probe.settimeout(CONNECT_TIMEOUT_S)
                probe.connect(address)
        except OSError as exc:
            last = exc
            continue
        with _lock:
            _reached[key] = time.monotonic()
        return
    raise Unreachable(
        Phrase(
            "Hearth cannot reach {0} at {1}: {2}. Check the internet connection (or a "
            "proxy or firewall), or set another address for {0} in Settings.",
            hub_name,
            host,
            _reason(last),
        )
    )


def _through_proxy(host: str) -> bool:
    proxies = urllib.request.getproxies()
    wanted = any(proxies.get(k) for k in ("https", "http", "all"))
    return wanted and not urllib.request.proxy_bypass(host)


def _reason(exc: OSError | None) -> str:
    if isinstance(exc, ConnectionRefusedError):
        return Phrase("the connection was refused")
    if isinstance(exc, TimeoutError | socket.timeout):
        return Phrase("no answer")
    return str(exc.strerror or exc) if exc is not None else Phrase("no address")
