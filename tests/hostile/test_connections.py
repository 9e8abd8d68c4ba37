"""Class 20: connections that say nothing, or half a request, cannot starve the server.

Sixty-four silent or half-sent connections used to make every request a 503 (uvicorn
counted sockets, and nothing timed out a connection before its first request).  Now the
limit counts requests being answered, and a connection whose request's headers are late
is closed; on a LAN server, connections without the key never take a keyed client's place.
"""

from __future__ import annotations

import contextlib
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.engine.host import EngineHost
from app.serve import guard
from app.serve.connections import HEADER_TIMEOUT_S, InFlight
from tests.api_helpers import serving_one
from tests.hostile.test_api_edges import KEY, Served, serve
from wire.model_spec import ModelSpec

pytestmark = pytest.mark.slow


@pytest.fixture
def lan(data_dir: Path, tmp_path: Path) -> Iterator[Served]:
    key_file = tmp_path / "key.txt"
    key_file.write_text(KEY + "\n")
    key_file.chmod(0o600)
    yield from serve(data_dir, "--host", "0.0.0.0", "--api-key-file", str(key_file))


def _hogs(port: int, silent: int, half: int) -> list[socket.socket]:
    """Connections that send nothing, and ones that send half their headers."""
    made = []
    for number in range(silent + half):
        sock = socket.create_connection(("127.0.0.1", port), timeout=60)
        if number >= silent:
            sock.sendall(b"GET /v1/models HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
        made.append(sock)
    return made


def _closed_by_the_server(sock: socket.socket) -> bool:
    sock.settimeout(HEADER_TIMEOUT_S * 6)
    try:
        return sock.recv(1) == b""
    except OSError:
        return True


def test_silent_and_half_sent_connections_starve_no_one(lan: Served) -> None:
    hogs = _hogs(lan.port, silent=80, half=80)
    try:
        status, _, body = lan.request(
            "GET", "/v1/models", headers={"Authorization": f"Bearer {KEY}"}
        )
        assert status == 200, body
        keyless, _, _ = lan.request("GET", "/v1/models")
        assert keyless == 401  # refused at once: it holds no place
        # each idle connection is closed once its headers are late
        assert all(_closed_by_the_server(sock) for sock in hogs)
    finally:
        for sock in hogs:
            with contextlib.suppress(OSError):
                sock.close()


def test_requests_in_flight_are_what_is_counted() -> None:
    counted = InFlight(limit=2)
    assert counted.enter() and counted.enter()
    assert not counted.enter()  # the third is told the server is busy
    counted.leave()
    assert counted.enter()


def test_a_body_sent_a_byte_at_a_time_is_answered_408(
    host: EngineHost, spec: ModelSpec, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(guard, "BODY_TIMEOUT_S", 2.0)
    with serving_one(host, spec, "tiny") as url:
        port = int(url.rsplit(":", 1)[1])
        sock = socket.create_connection(("127.0.0.1", port), timeout=60)
        try:
            sock.sendall(
                b"POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                b"Content-Type: application/json\r\nContent-Length: 200\r\n\r\n{"
            )
            sock.settimeout(0.3)
            answer = b""
            deadline = time.monotonic() + 120
            while b"\r\n\r\n" not in answer and time.monotonic() < deadline:
                with contextlib.suppress(OSError):  # closed after answering: nothing to send
                    sock.sendall(b" ")  # a byte at a time, never the whole body
                try:
                    chunk = sock.recv(4096)
                except TimeoutError:
                    continue
                if not chunk:
                    break
                answer += chunk
        finally:
            sock.close()
        assert answer.startswith(b"HTTP/1.1 408"), answer[:200]
