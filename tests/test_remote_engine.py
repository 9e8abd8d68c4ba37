"""The remote engine against a real OpenAI-compatible peer (llama-cpp-python's server) and
against small servers that misbehave on purpose (drop mid-stream, 401, never answer)."""

import itertools
import json
import os
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from app.engine.seat import Seat
from tests.conftest import HEARTH, REPO, collect
from wire import protocol
from wire.model_spec import ModelSpec

pytestmark = pytest.mark.slow


from tests.conftest import free_port  # noqa: E402


def remote(url: str, model: str = "smollm2") -> ModelSpec:
    return ModelSpec(url, engine="remote", remote_model=model)


def test_chat_with_a_real_server_streams_like_a_local_model(client: Seat, peer: str) -> None:
    text, events = collect(
        client.chat(
            remote(peer),
            [{"role": "user", "content": "What is 2+2?"}],
            {"temperature": 0, "max_tokens": 40},
        )
    )
    assert "4" in text or "four" in text.lower()
    assert sum(e["type"] == "delta" for e in events) > 3
    stats = next(e for e in events if e["type"] == "stats")
    assert stats["generated_tokens"] > 3 and stats["tokens_per_s"] and stats["ttft_ms"] > 0
    assert events[-1]["type"] == "done"


def test_stop_closes_the_stream(client: Seat, peer: str) -> None:
    job = client.chat(
        remote(peer), [{"role": "user", "content": "Tell a long story."}], {"max_tokens": 1500}
    )
    deltas = 0
    for event in job.events(timeout=120):
        if event["type"] == "delta":
            deltas += 1
            if deltas == 3:
                job.cancel()
    assert job.final is not None and job.final["finish_reason"] == "cancelled"
    assert not job.final.get("forced")  # the stream was closed, the worker not killed


def test_a_requests_stop_strings_reach_the_server(client: Seat, peer: str) -> None:
    question = [{"role": "user", "content": "Name the largest planet in the solar system."}]
    greedy = {"temperature": 0, "max_tokens": 40, "seed": 1}
    whole, _ = collect(client.chat(remote(peer), question, greedy))
    words = whole.split()
    assert len(words) > 6, whole
    stop = words[len(words) // 2]
    cut, _ = collect(client.chat(remote(peer), question, {**greedy, "stop": [stop]}))
    assert cut.rstrip() == whole[: whole.index(stop)].rstrip()


def test_json_output_and_penalties_reach_the_server(client: Seat, peer: str) -> None:
    """What Hearth's API accepts is passed on to the serving engine, which enforces it."""
    cat = [{"role": "user", "content": "Describe a cat."}]
    asked = {"temperature": 0, "max_tokens": 300, "response_format": {"type": "json_object"}}
    shaped, _ = collect(client.chat(remote(peer), cat, asked))
    assert isinstance(json.loads(shaped), dict), shaped
    counting = [{"role": "user", "content": "List the numbers from 1 to 20, separated by commas."}]
    greedy = {"temperature": 0, "max_tokens": 60, "seed": 1}
    plain, _ = collect(client.chat(remote(peer), counting, greedy))
    penalised, _ = collect(
        client.chat(remote(peer), counting, {**greedy, "frequency_penalty": 2.0})
    )
    assert penalised.count(",") < plain.count(","), (plain, penalised)


def test_unknown_model_and_refused_connection(client: Seat, peer: str) -> None:
    final = client.load(remote(peer, "no-such-model")).wait(60)
    assert final is not None and final["kind"] == protocol.ERR_MODEL_NOT_FOUND
    assert "smollm2" in final["message"]
    closed = client.load(remote(f"http://127.0.0.1:{free_port()}")).wait(60)
    assert closed is not None and closed["kind"] == "connection_refused"


class _Misbehaving(BaseHTTPRequestHandler):
    mode = "drop"
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _json(self, status: int, body: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        if self.mode == "unauthorized":
            return self._json(401, b'{"error": {"message": "Invalid API key"}}')
        if self.mode == "silent":
            time.sleep(30)
        self._json(200, b'{"data": [{"id": "m"}]}')

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        if self.mode == "silent":
            time.sleep(30)
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        words = itertools.cycle(("Hello", " there")) if self.mode == "endless" else None
        for word in words or ("Hello", " there", " friend"):
            data = f'data: {{"choices": [{{"delta": {{"content": "{word}"}}}}]}}\n\n'.encode()
            try:
                self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
                self.wfile.flush()
            except OSError:
                return  # the client closed the stream (Stop)
            if words is not None:
                time.sleep(0.05)
        self.connection.shutdown(socket.SHUT_RDWR)  # dropped mid-stream


@pytest.fixture
def misbehaving() -> Iterator[type[_Misbehaving]]:
    handler = type("Handler", (_Misbehaving,), {})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    handler.url = f"http://127.0.0.1:{server.server_address[1]}"  # type: ignore[attr-defined]
    yield handler
    server.shutdown()
    server.server_close()


def test_a_server_dropping_the_stream_keeps_what_arrived(client: Seat, misbehaving: Any) -> None:
    text, events = collect(
        client.chat(remote(misbehaving.url, "m"), [{"role": "user", "content": "hi"}], {})
    )
    assert text == "Hello there friend"
    assert events[-1]["type"] == "error" and "broke in the middle" in events[-1]["message"]


def test_a_bad_key_says_so(client: Seat, misbehaving: Any) -> None:
    misbehaving.mode = "unauthorized"
    final = client.load(remote(misbehaving.url, "m")).wait(60)
    assert final is not None and final["kind"] == "unauthorized" and "API key" in final["message"]


def test_a_server_that_never_answers_times_out(client: Seat, misbehaving: Any) -> None:
    misbehaving.mode = "silent"
    spec = ModelSpec(misbehaving.url, engine="remote", remote_model="m", timeout=2.0)
    final = client.chat(spec, [{"role": "user", "content": "hi"}], {}).wait(60)
    assert final is not None and final["kind"] == "timeout" and "did not answer" in final["message"]


def test_hearth_chat_endpoint(peer: str) -> None:
    result = subprocess.run(
        [
            *HEARTH,
            "chat",
            "--endpoint",
            peer.removeprefix("http://"),  # as people type it: no scheme means http://
            "--model",
            "smollm2",
            "--max-tokens",
            "20",
            "Say hello.",
        ],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() and "tok/s" in result.stderr


@pytest.mark.posix_only("a process group's Ctrl+C is POSIX's")
def test_ctrl_c_in_hearth_chat_stops_the_reply_and_says_interrupted(misbehaving: Any) -> None:
    """Ctrl+C reaches every process of the terminal's group: the reply stops, the engine
    is not killed by it, and the exit code says "interrupted" (a server that never ends)."""
    misbehaving.mode = "endless"
    chat = subprocess.Popen(
        [*HEARTH, "chat", "--endpoint", misbehaving.url, "--model", "m", "Talk forever."],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # a group of its own, like a terminal's: the test is not hit
    )
    assert chat.stdout is not None
    assert chat.stdout.read(20), "no reply arrived"
    os.killpg(chat.pid, signal.SIGINT)
    _out, err = chat.communicate()
    assert chat.returncode == 130, err
    assert "stopped unexpectedly" not in err and "Traceback" not in err
