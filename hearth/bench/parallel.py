"""Several replies at once, measured side by side in one run:

* four simultaneous streams through ``hearth serve`` (4 slots) against ``llama-server
  -np 4`` built from the same vendored llama.cpp (``make bench-tools``), same model,
  threads, context per slot, sampling and lengths; tokens are counted from each reply's
  usage;
* one stream alone on each, for the gain of four at once and the spread of their first
  tokens against a lone request's;
* one stream through ``hearth serve --parallel 1`` (no slots), against one through the
  4-slot server: what slots cost a single reply;
* the first token after switching back to a long conversation (``LONG_TOKENS`` tokens),
  another one having taken the only slot meanwhile, against its cold first token.

Rounds alternate between the servers, so a machine that slows down mid-run slows both.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hearth.bench.api import _free_port, _wait_for
from hearth.bench.llama_tools import find_llama_tool

STREAMS = 4
TOKENS = 96
CTX = 4096  # each slot's
LONG_TOKENS = 3000
LLAMA_SERVER_ENV = "HEARTH_LLAMA_SERVER"
TOPICS = ("a lighthouse keeper", "a mountain village", "a ship's cook", "a clockmaker")


def find_llama_server() -> Path | None:
    return find_llama_tool(LLAMA_SERVER_ENV, "llama-server")


@dataclass
class Streamed:
    first_s: float  # from the common start to the first words
    end_s: float  # from the common start to the last chunk
    tokens: int  # from the usage


def same_sampling() -> dict[str, float]:
    """Sampling both servers are told (their defaults differ: llama-server repeats freely),
    Hearth's own defaults from the settings declaration, so both write alike replies."""
    from app.settings import BY_KEY

    keys = ("top_k", "top_p", "min_p", "repeat_penalty")
    return {key: BY_KEY[f"sampling.{key}"].default for key in keys}


def _stream(url: str, messages: list[dict[str, str]], start: float, tokens: int) -> Streamed:
    from openai import OpenAI

    first: float | None = None
    counted = 0
    with OpenAI(base_url=url, api_key="bench", timeout=600) as client:
        create: Any = client.chat.completions.create
        stream = create(
            model="m",
            messages=messages,
            max_tokens=tokens,
            temperature=0,
            stream=True,
            stream_options={"include_usage": True},
            extra_body=same_sampling(),
        )
        for chunk in stream:
            choices: Any = getattr(chunk, "choices", None)
            if choices and choices[0].delta.content and first is None:
                first = time.perf_counter() - start
            usage: Any = getattr(chunk, "usage", None)
            if usage is not None:
                counted = int(usage.completion_tokens or 0)
    return Streamed(
        first if first is not None else float("nan"), time.perf_counter() - start, counted
    )


def story(topic: str) -> list[dict[str, str]]:
    return [{"role": "user", "content": f"Write a long story about {topic}."}]


def together(url: str, count: int) -> list[Streamed]:
    """``count`` streams sent at the same moment."""
    results: list[Streamed | None] = [None] * count
    gate = threading.Barrier(count + 1)
    start = [0.0]

    def one(index: int) -> None:
        gate.wait()
        results[index] = _stream(url, story(TOPICS[index % len(TOPICS)]), start[0], TOKENS)

    threads = [threading.Thread(target=one, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    start[0] = time.perf_counter()
    gate.wait()
    for thread in threads:
        thread.join()
    return [r for r in results if r is not None]


def total_rate(streams: list[Streamed]) -> float:
    return sum(s.tokens for s in streams) / max(s.end_s for s in streams)


def _hearth(data: str, model: Path, port: int, parallel: int) -> subprocess.Popen[Any]:
    """``hearth serve`` with its own data folder (its threads: the physical cores)."""
    command = [sys.executable, "-m", "hearth", "--data-dir", data, "serve", "--model", str(model)]
    command += ["--port", str(port), "--ctx", str(CTX), "--parallel", str(parallel)]
    return subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def switch_back(url: str) -> tuple[float, float]:
    """(cold, back): first-token seconds of a long conversation read whole, and after
    another long conversation took the slot."""
    filler = " ".join(
        f"Line {i}: the {TOPICS[i % 4]} kept a log." for i in range(LONG_TOKENS // 14)
    )
    first = [{"role": "user", "content": f"{filler}\nWhat did line 7 say?"}]
    other = [{"role": "user", "content": f"{filler.replace('log', 'diary')}\nWhat did line 9 say?"}]
    cold = _stream(url, first, time.perf_counter(), 8)
    _stream(url, other, time.perf_counter(), 8)
    back = _stream(url, first, time.perf_counter(), 8)
    return cold.first_s, back.first_s


def measure(model: Path, server: Path, threads: int, rounds: int = 3) -> dict[str, float]:
    """The medians over ``rounds`` (``threads``: llama-server's, Hearth's own default)."""
    values: dict[str, list[float]] = {}

    def note(name: str, value: float) -> None:
        values.setdefault(name, []).append(value)

    processes: list[subprocess.Popen[Any]] = []
    with (
        tempfile.TemporaryDirectory(prefix="hearth-bench-parallel-") as data,
        tempfile.TemporaryDirectory(prefix="hearth-bench-single-") as single,
    ):
        try:
            ports = {name: _free_port() for name in ("hearth", "single", "llama")}
            processes.append(_hearth(data, model, ports["hearth"], STREAMS))
            processes.append(_hearth(single, model, ports["single"], 1))
            processes.append(
                subprocess.Popen(
                    [
                        *(str(server), "-m", str(model), "--port", str(ports["llama"])),
                        *("-np", str(STREAMS), "-c", str(CTX * STREAMS)),
                        *("-t", str(threads), "-tb", str(threads), "-fa", "on", "--no-webui"),
                    ],
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                )
            )
            for port in ports.values():
                _wait_for(port, 120)
            urls = {name: f"http://127.0.0.1:{port}/v1" for name, port in ports.items()}
            for url in urls.values():  # warm-up: the model loaded, pages read
                together(url, 1)
            for _ in range(rounds):
                for name in ("hearth", "llama"):
                    four, one = together(urls[name], STREAMS), together(urls[name], 1)
                    note(f"{name}_four", total_rate(four))
                    note(f"{name}_one", total_rate(one))
                    note(f"{name}_spread", max(s.first_s for s in four) / one[0].first_s)
                note("single_slots", total_rate(together(urls["hearth"], 1)))
                note("single_plain", total_rate(together(urls["single"], 1)))
            cold, back = switch_back(urls["single"])
            note("switch_back", back / cold)
        finally:
            for process in processes:
                process.terminate()
                process.wait(15)
    return {name: statistics.median(found) for name, found in values.items()}
