"""Benchmarks for the OpenAI-compatible paths, measured alternately in one run:

* ``hearth serve`` (streamed through the official ``openai`` client) against a lease on
  the engine host in this process, on the same model, prompt and settings (the path the
  window uses): tokens per second, and the time to the first token;
* Hearth's remote engine against the ``openai`` client alone, both talking to the same
  llama-cpp-python server.

* ``hearth serve`` of a library of two models: the first request for a model not yet
  loaded (time to its first token, the load included), and the time to first token when
  requests alternate between the two resident models against requests to one of them.

Speeds are streamed chunks per second between the first and the last chunk, the way the
stats line measures them.  Needs the ``openai`` package and llama-cpp-python's ``[server]``
extra (both in the test extra).
"""

from __future__ import annotations

import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from app.engine.host import EngineHost
from app.engine.seat import Seat
from wire.model_spec import ModelSpec

PROMPT = [{"role": "user", "content": "Write a short story about a lighthouse keeper."}]
TOKENS = 128


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _wait_for(port: int, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError(f"nothing listens on port {port}")


def _openai_rate(base_url: str, model: str) -> float:
    """Tokens per second of a streamed reply, as the stats line counts them: the tokens
    after the first (from the usage the server reports, else one per chunk) over the time
    from the first content chunk to the last.  A server that merges tokens into fewer
    chunks (Hearth's worker does, to spare the window) is not counted slower for it."""
    from openai import OpenAI

    with OpenAI(base_url=base_url, api_key="bench") as client:
        marks: list[float] = []
        tokens = 0
        create: Any = client.chat.completions.create
        stream = create(
            model=model,
            messages=PROMPT,
            max_tokens=TOKENS,
            temperature=0,
            stream=True,
            stream_options={"include_usage": True},
        )
        for chunk in stream:
            choices: Any = getattr(chunk, "choices", None)
            if choices and choices[0].delta.content:
                marks.append(time.perf_counter())
            usage: Any = getattr(chunk, "usage", None)
            if usage is not None:
                tokens = int(usage.completion_tokens or 0)
    counted = tokens or len(marks)
    return (counted - 1) / (marks[-1] - marks[0]) if len(marks) > 1 else 0.0


def _client_rate(client: Seat, spec: ModelSpec) -> float:
    job = client.chat(spec, PROMPT, {"temperature": 0, "max_tokens": TOKENS})
    job.wait(300)
    return float(job.stats.get("tokens_per_s") or 0.0)


def _client_first_token_s(client: Seat, spec: ModelSpec) -> float:
    """Seconds from sending the request to its first words, as ``_first_token_s``."""
    job = client.chat(spec, PROMPT, {"temperature": 0, "max_tokens": 4})
    job.wait(300)
    if job.first_delta_at is None:
        return float("nan")
    return job.first_delta_at - job.sent_at


def measure(model_path: Path, rounds: int = 3) -> dict[str, float]:
    results: dict[str, list[float]] = {
        k: []
        for k in (
            "serve",
            "engine_client",
            "remote_engine",
            "openai_client",
            "serve_ttft_s",
            "engine_client_ttft_s",
        )
    }
    processes: list[subprocess.Popen[Any]] = []
    clients: list[Seat] = []
    with tempfile.TemporaryDirectory(prefix="hearth-bench-api-") as data:
        try:
            serve_port, peer_port = _free_port(), _free_port()
            processes.append(
                subprocess.Popen(
                    [
                        sys.executable,
                        "-m",
                        "hearth",
                        "--data-dir",
                        data,
                        "serve",
                        "--model",
                        str(model_path),
                        "--port",
                        str(serve_port),
                        "--ctx",
                        "2048",
                    ],
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                )
            )
            processes.append(
                subprocess.Popen(
                    [
                        sys.executable,
                        "-m",
                        "llama_cpp.server",
                        "--model",
                        str(model_path),
                        "--model_alias",
                        "peer",
                        "--host",
                        "127.0.0.1",
                        "--port",
                        str(peer_port),
                        "--n_ctx",
                        "2048",
                    ],
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                )
            )
            _wait_for(serve_port)
            _wait_for(peer_port)
            local = Seat(EngineHost())
            remote = Seat(EngineHost())
            clients += [local, remote]
            local_spec = ModelSpec(str(model_path), n_ctx=2048, threads=2)
            remote_spec = ModelSpec(
                f"http://127.0.0.1:{peer_port}", engine="remote", remote_model="peer"
            )
            serve_url = f"http://127.0.0.1:{serve_port}/v1"
            peer_url = f"http://127.0.0.1:{peer_port}/v1"
            # warm-up each, then alternate
            _openai_rate(serve_url, "m")
            _client_rate(local, local_spec)
            _client_rate(remote, remote_spec)
            _openai_rate(peer_url, "peer")
            for _ in range(rounds):
                results["serve"].append(_openai_rate(serve_url, "m"))
                results["engine_client"].append(_client_rate(local, local_spec))
                results["remote_engine"].append(_client_rate(remote, remote_spec))
                results["openai_client"].append(_openai_rate(peer_url, "peer"))
                results["serve_ttft_s"].append(_first_token_s(serve_url, "m"))
                results["engine_client_ttft_s"].append(_client_first_token_s(local, local_spec))
        finally:
            for client in clients:
                client.host.close()
            for process in processes:
                process.terminate()
                process.wait(15)
    return {k: statistics.median(v) for k, v in results.items()}


def _first_token_s(base_url: str, model: str) -> float:
    """Seconds from sending a streamed request to its first content."""
    from openai import OpenAI

    with OpenAI(base_url=base_url, api_key="bench") as client:
        sent = time.perf_counter()
        stream: Any = client.chat.completions.create(
            model=model,
            messages=PROMPT,  # type: ignore[arg-type]
            max_tokens=4,
            temperature=0,
            stream=True,
        )
        for chunk in stream:
            choices: Any = getattr(chunk, "choices", None)
            if choices and choices[0].delta.content:
                stream.close()
                return time.perf_counter() - sent
    return float("nan")


def measure_router(model_path: Path, rounds: int = 5) -> dict[str, float]:
    """The library served on demand: the first request for an unloaded model, and the
    first-token time when requests switch between two resident models."""
    with tempfile.TemporaryDirectory(prefix="hearth-bench-router-") as data:
        models = Path(data) / "models"
        models.mkdir()
        for name in ("alpha", "beta"):  # two more names for the model (a symlink would
            try:  # be the same model to the library)
                os.link(model_path, models / f"{name}.gguf")
            except OSError:  # another file system
                shutil.copyfile(model_path, models / f"{name}.gguf")
        port = _free_port()
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "hearth",
                "--data-dir",
                data,
                "serve",
                "--port",
                str(port),
                "--ctx",
                "2048",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            _wait_for(port)
            url = f"http://127.0.0.1:{port}/v1"
            first = _first_token_s(url, "alpha")  # nothing loaded yet
            _first_token_s(url, "beta")
            same: list[float] = []
            switching: list[float] = []
            for _ in range(rounds):
                same += [_first_token_s(url, "alpha"), _first_token_s(url, "alpha")]
                switching += [_first_token_s(url, "beta"), _first_token_s(url, "alpha")]
        finally:
            process.terminate()
            process.wait(15)
    return {
        "first_request_s": first,
        "same_model_ttft_s": statistics.median(same),
        "switching_ttft_s": statistics.median(switching),
    }
