"""Class 5 and 6 at the API server: limits where a body enters, and the edges a LAN or
browser client meets (a key protects a LAN address, preflights, a taken port, a client
that goes away, a key that is not on the command line)."""

from __future__ import annotations

import http.client
import json
import os
import select
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psutil
import pytest

from tests.conftest import HEARTH, REPO, run_hearth
from tests.test_api_server import free_port
from tests.tools.under_load import cpu_hogs

pytestmark = pytest.mark.slow
KEY = "correct horse battery staple"
WAIT_S = 300
JSON = {"Content-Type": "application/json"}


class Served:
    def __init__(self, port: int, process: subprocess.Popen[str], log: Path) -> None:
        self.port, self.process, self.log = port, process, log

    def request(
        self,
        method: str,
        path: str,
        body: bytes | str | None = None,
        headers: dict[str, str] | None = None,
        host: str = "127.0.0.1",
    ) -> tuple[int, dict[str, str], bytes]:
        connection = http.client.HTTPConnection(host, self.port, timeout=600)
        try:
            connection.request(method, path, body, headers or {})
            response = connection.getresponse()
            return response.status, dict(response.getheaders()), response.read()
        finally:
            connection.close()


def serve(data_dir: Path, *args: str, env: dict[str, str] | None = None) -> Iterator[Served]:
    port = free_port()
    process = subprocess.Popen(
        [*HEARTH, "serve", "--port", str(port), "--ctx", "2048", *args],
        cwd=REPO,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, **(env or {})},
    )
    assert process.stderr is not None
    line = process.stderr.readline()
    assert "Serving" in line, line
    try:
        yield Served(port, process, data_dir / "logs" / "worker.log")
    finally:
        process.terminate()
        process.wait(15)
        process.stderr.close()


@pytest.fixture
def local(data_dir: Path) -> Iterator[Served]:
    yield from serve(data_dir, "--allow-origin", "http://localhost:3000")


@pytest.fixture
def lan(data_dir: Path, tmp_path: Path) -> Iterator[Served]:
    key_file = tmp_path / "key.txt"
    key_file.write_text(KEY + "\n")
    key_file.chmod(0o600)  # its owner's alone: a readable one is warned about
    yield from serve(data_dir, "--host", "0.0.0.0", "--api-key-file", str(key_file))


def chat_body(**extra: Any) -> str:
    return json.dumps({"messages": [{"role": "user", "content": "Hi"}], "max_tokens": 4, **extra})


def test_a_chunked_body_is_counted_as_it_arrives(local: Served) -> None:
    """No Content-Length to check first: past 4 MB the server answers 413 at once, without
    waiting for (or keeping) the rest, and goes on serving."""
    connection = socket.create_connection(("127.0.0.1", local.port))
    connection.settimeout(WAIT_S)
    try:
        connection.sendall(
            b"POST /v1/embeddings HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            b"Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
        )
        piece = b" " * 65536
        # 4.4 MB, and the body never ends.  The client sends only while the server has not
        # answered: a send into a connection the server has closed would be reset, and the
        # reset could discard the answer before it is read.
        body = b"".join(b"%x\r\n%s\r\n" % (len(piece), piece) for _ in range(70))
        while body:
            readable, writable, _ = select.select([connection], [connection], [], WAIT_S)
            if readable:
                break
            if writable:
                body = body[connection.send(body[:65536]) :]
        answer = b""
        try:
            while chunk := connection.recv(65536):  # the server closes after its answer
                answer += chunk
        except ConnectionResetError:
            pass  # the rest of the unread body; the answer has come
    finally:
        connection.close()
    assert answer.startswith(b"HTTP/1.1 413"), answer[:200]
    assert b"request_too_large" in answer
    status, _headers, body = local.request("POST", "/v1/chat/completions", chat_body(), JSON)
    assert status == 200, body
    if sys.platform != "win32":  # Windows has no SIGINT to send (a console's Ctrl+C only)
        local.process.send_signal(signal.SIGINT)  # and the first Ctrl+C still stops it
        assert local.process.wait(WAIT_S) is not None


def test_a_browser_preflight_from_an_allowed_origin_is_answered(local: Served) -> None:
    asked = {
        "Origin": "http://localhost:3000",
        "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "authorization, content-type",
    }
    status, headers, _body = local.request("OPTIONS", "/v1/chat/completions", headers=asked)
    assert status == 204
    assert headers["access-control-allow-origin"] == "http://localhost:3000"
    assert "POST" in headers["access-control-allow-methods"]
    assert "authorization" in headers["access-control-allow-headers"]
    foreign = {**asked, "Origin": "http://evil.example"}
    status, _headers, _body = local.request("OPTIONS", "/v1/chat/completions", headers=foreign)
    assert status == 403


def test_a_client_that_goes_away_stops_its_reply(local: Served) -> None:
    _leave_mid_reply(local)


def test_a_client_that_goes_away_under_load_costs_no_worker(local: Served, data_dir: Path) -> None:
    """With every CPU busy, a cancel may take the worker a while to act on: it is a slow
    machine, not a stuck worker, so the reply ends cancelled and the same worker (the
    model still loaded) answers the next request."""
    with cpu_hogs():
        _leave_mid_reply(local)
        status, _headers, body = local.request("POST", "/v1/chat/completions", chat_body(), JSON)
    assert status == 200, body
    server_log = (data_dir / "logs" / "hearth.log").read_text(errors="replace")
    assert "killing it" not in server_log
    assert server_log.count("started worker pid") == 1, "the model was not loaded again"


def _leave_mid_reply(local: Served) -> None:
    """A streaming reply whose client leaves once it reached the engine; returns once the
    reply ended cancelled."""
    connection = socket.create_connection(("127.0.0.1", local.port))
    # The end tokens of the starter model are forbidden, so the reply cannot end by itself
    # before its client leaves, however slow or fast this machine is at the moment.
    no_end = {"0": -100, "2": -100}  # <|endoftext|>, <|im_end|>
    body = chat_body(max_tokens=4000, temperature=1.0, logit_bias=no_end).encode()
    connection.sendall(
        b"POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        b"Content-Type: application/json\r\nContent-Length: "
        + str(len(body)).encode()
        + b"\r\n\r\n"
        + body
    )
    deadline = time.monotonic() + WAIT_S
    while "request" not in _log(local) or " chat " not in _log(local):
        assert time.monotonic() < deadline, "the request never reached the engine"
        time.sleep(0.1)
    connection.close()
    while "ended (cancelled)" not in _log(local):
        assert time.monotonic() < deadline, "the reply went on after its client left"
        time.sleep(0.1)


def _log(served: Served) -> str:
    return served.log.read_text(errors="replace") if served.log.exists() else ""


def test_a_lan_address_with_a_key_from_a_file_is_answered(lan: Served) -> None:
    address = _own_address()
    authorised = {"Authorization": f"Bearer {KEY}"}
    status, _headers, body = lan.request("GET", "/v1/models", headers=authorised, host=address)
    assert status == 200, body
    status, _headers, _body = lan.request("GET", "/v1/models", host=address)
    assert status == 401
    command_line = " ".join(psutil.Process(lan.process.pid).cmdline())
    assert KEY not in command_line  # the key is not visible in ps


def _own_address() -> str:
    """An address of this machine other than loopback (the one a LAN client would use)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        probe.connect(("10.255.255.255", 1))  # no packet is sent: this picks a route
        address = str(probe.getsockname()[0])
    return address if not address.startswith("127.") else "127.0.0.2"


def test_the_key_can_come_from_the_environment(data_dir: Path) -> None:
    for served in serve(data_dir, "--host", "0.0.0.0", env={"HEARTH_SERVE_API_KEY": KEY}):
        status, _h, _b = served.request("GET", "/v1/models")
        assert status == 401
        headers = {"Authorization": f"Bearer {KEY}"}
        assert served.request("GET", "/v1/models", headers=headers)[0] == 200


def test_a_port_in_use_is_said_before_the_model_loads(data_dir: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = run_hearth("serve", "--port", str(port))
    assert result.returncode != 0 and "Traceback" not in result.stderr
    assert f"Port {port} is already in use" in result.stderr
    worker_log = data_dir / "logs" / "worker.log"
    assert not worker_log.exists() or "request load" not in worker_log.read_text()
