"""Hearth's llama.cpp engine on one runtime built here, through the real worker, with
every layer on the GPU; then ``llama-bench`` from the same build on the same model.

The two sides run one after the other, not alternating: the GPU memory the worker used
is watched while it is the only one using the GPU, and a GPU's speed does not drift
between minutes as a shared CPU's does.  Each part is kept in the result as soon as it
is measured, so a part that fails or runs out of time loses only itself."""

from __future__ import annotations

import json
import statistics
import subprocess
import time
from pathlib import Path
from typing import Any

from gpu_check import replies
from gpu_check.builds import Build, cores, runtime_name
from gpu_check.gpu_memory import WorkerGpuMemory
from gpu_check.report import Report

ROUNDS = 3
GENERATE = 128
PROMPT = 512
# Seconds kept for llama-bench after Hearth's side.
RESERVE_S = 40
STORY = [{"role": "user", "content": "Write a long story about a lighthouse keeper."}]


def measure(
    build: Build, model: Path, cpu: bool, report: Report, result: dict[str, Any], logs: Path
) -> None:
    """Fills ``result`` as it goes (the report keeps it)."""
    from app.engine.host import EngineHost
    from app.engine.seat import Seat
    from wire.model_spec import ModelSpec

    spec = ModelSpec(
        path=str(model),
        n_ctx=4096,
        threads=cores(),
        flash_attn=True,
        gpu_layers=0 if cpu else -1,
        runtime=runtime_name(build.kind),
    )
    client = Seat(EngineHost(logs))
    watch = WorkerGpuMemory(lambda: client.worker_pid)
    rounds: dict[str, list[float]] = {"tokens_per_s": [], "ttft_ms": [], "prompt_per_s": []}
    result["rounds"] = rounds
    plain = {"temperature": 0, "max_tokens": GENERATE, "ignore_eos": True}
    try:
        watch.start()
        started = time.monotonic()
        result["loaded"] = replies.load(client, spec, report.timeout(RESERVE_S))
        result["load_s"] = round(time.monotonic() - started, 1)
        within = report.timeout(RESERVE_S)
        stats = replies.reply(client, spec, STORY, within, **plain, prompt_lookup=False)
        result["runtime_used"] = stats.get("runtime")
        result["reply_depth"] = stats.get("prompt_tokens")
        report.save()
        for index in range(ROUNDS):
            within = report.timeout(RESERVE_S)
            stats = replies.reply(client, spec, STORY, within, **plain, prompt_lookup=False)
            rounds["tokens_per_s"].append(float(stats.get("tokens_per_s") or 0))
            rounds["ttft_ms"].append(float(stats.get("ttft_ms") or 0))
            long = [{"role": "user", "content": _long_text(index)}]
            stats = replies.reply(client, spec, long, within, **{**plain, "max_tokens": 1})
            result["prompt_tokens"] = stats.get("prompt_tokens")
            rounds["prompt_per_s"].append(stats["prompt_tokens"] / (stats["ttft_ms"] / 1000))
            report.save()
    finally:
        watch.stop()
        client.host.close()
        result["gpu_memory"] = watch.result()
        _summarise(result)
        report.save()
    _measure_llama_bench(build, model, cpu, report, result)


def _long_text(index: int) -> str:
    """About ``PROMPT`` tokens, new in each round (nothing reused from the cache)."""
    return f"{index} " + "lighthouse storm keeper ship " * 100


def _measure_llama_bench(
    build: Build, model: Path, cpu: bool, report: Report, result: dict[str, Any]
) -> None:
    layers = "0" if cpu else "99"
    bench: dict[str, list[float]] = {"tg": [], "pp": []}
    result["llama_bench_rounds"] = bench
    # The same work as Hearth's side: generation after the story's prompt, and a prompt of
    # as many tokens as Hearth's long one (its template adds some).
    depth = int(result.get("reply_depth") or 0)
    prompt_tokens = int(result.get("prompt_tokens") or PROMPT)
    for _ in range(ROUNDS):
        for name, prompt, generate, at in (
            ("tg", 0, GENERATE, depth),
            ("pp", prompt_tokens, 0, 0),
        ):
            out = subprocess.run(
                [
                    *(str(build.tool("llama-bench")), "-m", str(model), "-ngl", layers),
                    *("-t", str(cores()), "-fa", "on"),
                    *("-p", str(prompt), "-n", str(generate), "-d", str(at)),
                    *("-r", "1", "-o", "json"),
                ],
                capture_output=True,
                text=True,
                check=True,
                env=build.environment(),
                timeout=report.timeout(30),
            ).stdout
            bench[name].append(float(json.loads(out)[0]["avg_ts"]))
        report.save()
    _summarise(result)


def _summarise(result: dict[str, Any]) -> None:
    """Medians and ratios of what has been measured so far."""

    def median(values: list[float]) -> float | None:
        return round(statistics.median(values), 1) if values else None

    rounds = result.get("rounds", {})
    bench = result.get("llama_bench_rounds", {})
    figures = {
        "tokens_per_s": median(rounds.get("tokens_per_s", [])),
        "ttft_ms": median(rounds.get("ttft_ms", [])),
        "prompt_per_s": median(rounds.get("prompt_per_s", [])),
        "llama_bench_tg": median(bench.get("tg", [])),
        "llama_bench_pp": median(bench.get("pp", [])),
    }
    result.update({k: v for k, v in figures.items() if v is not None})
    for ratio, top, bottom in (
        ("tokens_per_s_vs_llama_bench", "tokens_per_s", "llama_bench_tg"),
        ("prompt_vs_llama_bench", "prompt_per_s", "llama_bench_pp"),
    ):
        above, below = figures[top], figures[bottom]
        if above and below:
            result[ratio] = round(above / below, 3)
