"""Hearth's llama.cpp engine against llama.cpp's own ``llama-bench``, and prompt-lookup
decoding with and without, alternating in one run.

``llama-bench`` is built from the llama.cpp that llama-cpp-python vendors (``make
bench-tools``), so both sides run the same code: the ratio is what Hearth's worker, token
loop and protocol cost.  Hearth's side is measured in the worker (the engine's own stats:
tokens/s from the first token on; prompt tokens per second until the first token).
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import tempfile
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from app.engine.host import EngineHost
from app.engine.seat import Seat
from hearth.bench.llama_tools import find_llama_tool
from wire.model_spec import BUILT_IN_RUNTIME, ModelSpec

RUNTIMES_ENV = "HEARTH_RUNTIMES_DIR"  # backends.runtimes reads it in the worker

LLAMA_BENCH_ENV = "HEARTH_LLAMA_BENCH"
# A runtime folder with the installer's CPU build (make bench unpacks the portable wheel).
PORTABLE_ENV = "HEARTH_BENCH_PORTABLE"
PORTABLE = "cpu-portable"
# The AVX-512 CPU runtime the installers carry beside the portable one (make runtime-avx512).
AVX512_ENV = "HEARTH_BENCH_AVX512"
AVX512 = "cpu-avx512"
REPO = Path(__file__).resolve().parents[2]
GENERATE = 128
PROMPT_TOKENS = 512
# A task that repeats its input with one change, and one that does not.
PARAGRAPH = (
    "The old lighthouse stood on the northern cliff for two hundred years. Every night its "
    "keeper climbed the one hundred and twelve steps, trimmed the wick, polished the great "
    "lens and wrote the weather in a leather book. Ships passing the point in winter storms "
    "looked for its light before they turned east toward the harbour."
)
REPEAT_TASK = (
    "Fix the spelling mistake in this paragraph and write the whole paragraph again: '"
    + PARAGRAPH.replace("polished", "polsihed")
    + "'"
)
UNRELATED_TASK = "Write a short story about a robot who learns to paint."


@dataclass
class EngineFigures:
    tokens_per_s_hearth: list[float] = field(default_factory=list)
    tokens_per_s_llama_bench: list[float] = field(default_factory=list)
    prompt_per_s_hearth: list[float] = field(default_factory=list)
    prompt_per_s_llama_bench: list[float] = field(default_factory=list)
    lookup_with: list[float] = field(default_factory=list)
    lookup_without: list[float] = field(default_factory=list)
    unrelated_with: list[float] = field(default_factory=list)
    unrelated_without: list[float] = field(default_factory=list)
    # The CPU runtime an installer chooses on this machine, against the dev build (with make
    # on x86-64 the same portable build, so this is about 1; native with CMAKE_ARGS).
    installer: list[float] = field(default_factory=list)
    installer_runtime: str = ""
    dev: list[float] = field(default_factory=list)
    # The AVX-512 runtime against the portable AVX2 one: generation and prompt tokens/s.
    avx512_tg: list[float] = field(default_factory=list)
    avx2_tg: list[float] = field(default_factory=list)
    avx512_pp: list[float] = field(default_factory=list)
    avx2_pp: list[float] = field(default_factory=list)

    @staticmethod
    def ratio(top: list[float], bottom: list[float]) -> float:
        """The median of the rounds' own ratios: in each round the two sides ran one right
        after the other, so a machine that slows down between rounds (shared machines
        change speed by 40 % from one minute to the next) moves both sides of a ratio."""
        return statistics.median(a / b for a, b in zip(top, bottom, strict=True))


def find_llama_bench() -> Path | None:
    return find_llama_tool(
        LLAMA_BENCH_ENV, "llama-bench", REPO / ".cache" / "llama-bench" / "bin" / "llama-bench"
    )


def llama_bench(
    binary: Path, model: str, threads: int, prompt: int, generate: int, depth: int = 0
) -> float:
    """tokens/s of one llama-bench test (``-p N -n 0`` or ``-p 0 -n N``), with ``depth``
    tokens already in the cache (``-d``): a reply's tokens attend to its prompt, and with a
    small model that attention is much of each token's cost (SmolLM2-135M here: 187 tok/s
    at depth 0, 146 at depth 100, 93 at depth 230), so the C++ figure is taken at the
    depth of Hearth's own reply."""
    output = subprocess.run(
        [
            *(str(binary), "-m", model, "-t", str(threads), "-d", str(depth)),
            *("-p", str(prompt), "-n", str(generate), "-r", "1", "-o", "json"),
        ],
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    ).stdout
    return float(json.loads(output)[0]["avg_ts"])


def reply_stats(
    client: Seat, spec: ModelSpec, messages: list[dict[str, Any]], **params: Any
) -> dict[str, Any]:
    """The stats event of one reply through the worker (RuntimeError if it failed)."""
    stats: dict[str, Any] = {}
    final: dict[str, Any] = {}
    for event in client.chat(spec, messages, {"seed": 1, **params}).events(timeout=600):
        if event["type"] == "stats":
            stats = event
        elif event["type"] in ("done", "error"):
            final = event
    if final.get("type") != "done":
        raise RuntimeError(f"the reply failed: {final.get('message', final)}")
    return stats


def _long_prompt(round_number: int) -> list[dict[str, Any]]:
    """About PROMPT_TOKENS tokens, new in each round (nothing reused from the cache)."""
    words = (PARAGRAPH + " ") * 8
    return [
        {"role": "system", "content": f"Round {round_number}."},
        {"role": "user", "content": f"{round_number} {words}\nSummarise this."},
    ]


def measure(spec: ModelSpec, binary: Path, rounds: int) -> EngineFigures:
    """Everything on the dev build (the built-in runtime, what llama-bench was built like);
    the installer's CPU builds too when ``HEARTH_BENCH_PORTABLE`` (and, on x86-64,
    ``HEARTH_BENCH_AVX512``) name their runtimes."""
    portable = os.environ.get(PORTABLE_ENV)
    avx512 = os.environ.get(AVX512_ENV) if portable else None
    with tempfile.TemporaryDirectory(prefix="hearth-bench-runtimes-") as runtimes:
        previous = os.environ.get(RUNTIMES_ENV)
        os.environ[RUNTIMES_ENV] = runtimes  # only what this benchmark puts there
        if portable:
            _link_folder(Path(portable), Path(runtimes) / PORTABLE)
        if avx512:
            _link_folder(Path(avx512), Path(runtimes) / AVX512)
        try:
            figures = _measure(spec.on_runtime(BUILT_IN_RUNTIME), binary, rounds, bool(portable))
            if avx512:
                _measure_avx512(spec, rounds, figures)
            return figures
        finally:
            if previous is None:
                os.environ.pop(RUNTIMES_ENV, None)
            else:
                os.environ[RUNTIMES_ENV] = previous


def _measure(spec: ModelSpec, binary: Path, rounds: int, portable: bool) -> EngineFigures:
    figures = EngineFigures()
    client = Seat(EngineHost())
    threads = spec.threads or os.cpu_count() or 1
    plain = {"temperature": 0, "max_tokens": GENERATE, "ignore_eos": True, "prompt_lookup": False}
    lookup = {"temperature": 0, "max_tokens": GENERATE}
    task = [{"role": "user", "content": REPEAT_TASK}]
    unrelated = [{"role": "user", "content": UNRELATED_TASK}]
    try:
        reply_stats(client, spec, task, **plain)  # load and warm up
        for index in range(rounds):
            stats = reply_stats(client, spec, task, **plain)
            figures.tokens_per_s_hearth.append(float(stats["tokens_per_s"]))
            figures.tokens_per_s_llama_bench.append(
                llama_bench(binary, spec.path, threads, 0, GENERATE, int(stats["prompt_tokens"]))
            )
            stats = reply_stats(client, spec, _long_prompt(index), **{**plain, "max_tokens": 1})
            figures.prompt_per_s_hearth.append(stats["prompt_tokens"] / (stats["ttft_ms"] / 1000))
            # As many tokens as Hearth's prompt had (its template adds some): each token of a
            # longer prompt attends to more before it.
            figures.prompt_per_s_llama_bench.append(
                llama_bench(binary, spec.path, threads, int(stats["prompt_tokens"]), 0)
            )
            for messages, on, off in (
                (task, figures.lookup_with, figures.lookup_without),
                (unrelated, figures.unrelated_with, figures.unrelated_without),
            ):
                on.append(float(reply_stats(client, spec, messages, **lookup)["tokens_per_s"]))
                off.append(
                    float(
                        reply_stats(client, spec, messages, **lookup, prompt_lookup=False)[
                            "tokens_per_s"
                        ]
                    )
                )
        if portable:  # chosen as an installed Hearth chooses: the best CPU build here
            other = replace(spec, runtime="", gpu_layers=0)
            stats = reply_stats(client, other, task, **plain)  # its own worker: load, warm up
            figures.installer_runtime = str(stats.get("runtime") or "")
            for _ in range(rounds):
                figures.installer.append(
                    float(reply_stats(client, other, task, **plain)["tokens_per_s"])
                )
                figures.dev.append(float(reply_stats(client, spec, task, **plain)["tokens_per_s"]))
    finally:
        client.host.close()
    return figures


def _measure_avx512(spec: ModelSpec, rounds: int, figures: EngineFigures) -> None:
    """The AVX-512 build against the portable AVX2 one, alternating; nothing when this CPU
    cannot run it (the forced runtime is refused)."""
    client = Seat(EngineHost())
    plain = {"temperature": 0, "max_tokens": GENERATE, "ignore_eos": True, "prompt_lookup": False}
    task = [{"role": "user", "content": REPEAT_TASK}]
    sides = (
        (replace(spec, runtime=AVX512, gpu_layers=0), figures.avx512_tg, figures.avx512_pp),
        (replace(spec, runtime=PORTABLE, gpu_layers=0), figures.avx2_tg, figures.avx2_pp),
    )
    try:
        try:
            for side, _tg, _pp in sides:
                reply_stats(client, side, task, **plain)  # load and warm up
        except RuntimeError:
            return  # this CPU lacks AVX-512: the installers use the portable build here
        for index in range(rounds):
            for side, tg, pp in sides:
                tg.append(float(reply_stats(client, side, task, **plain)["tokens_per_s"]))
                stats = reply_stats(
                    client, side, _long_prompt(100 + index), **{**plain, "max_tokens": 1}
                )
                pp.append(stats["prompt_tokens"] / (stats["ttft_ms"] / 1000))
    finally:
        client.host.close()


def _link_folder(source: Path, link: Path) -> None:
    """``link`` shows ``source``: a symbolic link, or a copy where links need rights the user
    lacks (Windows without Developer Mode)."""
    try:
        os.symlink(source, link, target_is_directory=True)
    except OSError:
        shutil.copytree(source, link)
