"""Hearth's transformers engine in bfloat16 through the real worker, with the dynamic KV
cache and with the static one (``torch.compile``'s CUDA graphs).  Each variant is measured
on its own, so one that fails (Triton needs a C compiler and Python's headers) keeps the
other's figures; the first reply's time says what compiling cost."""

from __future__ import annotations

import sysconfig
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from gpu_check import replies
from gpu_check.gpu_memory import WorkerGpuMemory
from gpu_check.report import Report

GENERATE = 128
STORY = [{"role": "user", "content": "Write a long story about a lighthouse keeper."}]


def versions() -> dict[str, Any]:
    facts: dict[str, Any] = {}
    for name in ("torch", "transformers", "accelerate"):
        try:
            module = __import__(name)
            facts[name] = getattr(module, "__version__", "?")
        except Exception as exc:  # noqa: BLE001 - a broken install is reported
            facts[name] = f"not usable: {type(exc).__name__}: {exc}"
    include = sysconfig.get_paths().get("include", "")
    facts["python_headers"] = bool(include) and (Path(include) / "Python.h").is_file()
    return facts


def measure(
    folder: Path, report: Report, results: dict[str, Any], logs: Path, reserve_s: float
) -> None:
    """Both variants, each stopped (its worker ended) when only ``reserve_s`` of the
    check's time would be left for llama.cpp."""
    from app.engine.host import EngineHost
    from app.engine.seat import Seat
    from wire.model_spec import ModelSpec

    for static in (False, True):
        name = "static_cache" if static else "dynamic_cache"
        if report.left() - reserve_s < 30:
            report.step(f"transformers {name}", "skipped", reason="out of time")
            continue
        result: dict[str, Any] = {}
        results[name] = result
        client = Seat(EngineHost(logs))
        watch = WorkerGpuMemory(_pid_of(client))
        spec = ModelSpec(str(folder), n_ctx=2048, engine="transformers", static_cache=static)
        params = {"temperature": 0, "max_tokens": GENERATE, "ignore_eos": True}
        try:
            watch.start()
            loaded = replies.load(client, spec, report.timeout(reserve_s))
            loaded = {k: loaded.get(k) for k in ("device", "dtype", "notes")}
            result["loaded"] = loaded
            if not str(loaded.get("device", "")).startswith("cuda"):
                raise RuntimeError(f"the engine ran on {loaded.get('device')}, not on CUDA")
            started = time.monotonic()
            first = replies.reply(client, spec, STORY, report.timeout(reserve_s), **params)
            result["first_reply_s"] = round(time.monotonic() - started, 1)  # compiles
            result["first_tokens_per_s"] = first.get("tokens_per_s")
            speeds, ttfts = [], []
            for _ in range(2):
                stats = replies.reply(client, spec, STORY, report.timeout(reserve_s), **params)
                speeds.append(float(stats.get("tokens_per_s") or 0))
                ttfts.append(float(stats.get("ttft_ms") or 0))
            result["tokens_per_s"] = max(speeds)
            result["ttft_ms"] = min(ttfts)
            report.step(f"transformers {name}", "ok", tokens_per_s=result["tokens_per_s"])
        except Exception as exc:  # noqa: BLE001 - reported, the other variant still runs
            report.step(
                f"transformers {name}",
                "failed",
                reason=f"{type(exc).__name__}: {exc}",
                log=worker_log_tail(logs),
            )
        finally:
            watch.stop()
            client.host.close()
            result["gpu_memory"] = watch.result()
            report.save()


def _pid_of(client: Any) -> Callable[[], int | None]:
    return lambda: client.worker_pid


def worker_log_tail(logs: Path, size: int = 3000) -> str:
    try:
        return (logs / "worker.log").read_bytes()[-size:].decode(errors="replace")
    except OSError:
        return ""
