"""Class 19: every lease an API request takes is given back, however the request ends.

Streams aborted while they waited for the model, or mid-reply, once left models "busy"
for good: never unloaded, ``keep_alive: 0`` unloading nothing, and with a one-model budget
every other model refused until a restart.  Here the leases are counted after each kind
of abort, and Ollama's ``keep_alive: 0`` then really unloads.
"""

from __future__ import annotations

import http.client
import json
import socket
import time

import pytest

from app.core import Core
from app.library_offer import LibraryOffer

pytestmark = pytest.mark.slow
STREAM = {
    "messages": [{"role": "user", "content": "Tell me a long story."}],
    "max_tokens": 400,
    "stream": True,
}


def _leases(core: Core) -> int:
    return core.engines.leases_held()


def _settled(core: Core) -> bool:
    """Every lease given back and no model generating, waited for (the server ends an
    abandoned reply on its own time): a state, not a speed."""
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline:
        if _leases(core) == 0 and not any(m.busy for m in core.engines.loaded()):
            return True
        time.sleep(0.05)
    return False


def _open_stream(port: int) -> socket.socket:
    body = json.dumps(STREAM).encode()
    sock = socket.create_connection(("127.0.0.1", port), timeout=60)
    sock.sendall(
        b"POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        b"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body)
    )
    return sock


def test_streams_aborted_while_queued_or_mid_reply_give_their_leases_back(
    core: Core, library_server: tuple[int, LibraryOffer]
) -> None:
    port = library_server[0]
    # Eight at once: the first reads its reply, the others wait for the model's slot.
    streams = [_open_stream(port) for _ in range(8)]
    try:
        streams[0].settimeout(600)  # a loaded machine reads eight prompts slowly: a state
        streams[0].recv(1)  # the first has begun answering
    finally:
        for sock in streams:  # every client goes away: mid-reply or still waiting
            sock.close()
    assert _settled(core), f"{_leases(core)} lease(s) left after the aborts"

    # aborted before the body was even sent
    early = socket.create_connection(("127.0.0.1", port), timeout=60)
    early.sendall(
        b"POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 50\r\n\r\n{"
    )
    early.close()
    assert _settled(core)

    # the model nobody leases is unloaded by Ollama's keep_alive 0
    name = json.loads(_get(port, "/api/ps"))["models"][0]["name"]
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        connection.request("POST", "/api/generate", json.dumps({"model": name, "keep_alive": 0}))
        answer = connection.getresponse()
        assert answer.status == 200, answer.read()
        answer.read()
    finally:
        connection.close()
    assert json.loads(_get(port, "/api/ps"))["models"] == []


def _get(port: int, path: str) -> bytes:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        connection.request("GET", path)
        return connection.getresponse().read()
    finally:
        connection.close()
