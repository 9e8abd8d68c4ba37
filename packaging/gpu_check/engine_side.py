"""The PyTorch engine installed as the app installs it (``app.packs.pytorch_engine``: the
lock's CUDA wheels, each verified, unpacked into a data folder, checked in a child that
runs a matrix product on the GPU, then made current), and a reply through Hearth's worker
on it, on the GPU.

The check has no network, and the CUDA engine's wheels are about 2.8 GB: far more than a
kit carries.  So they are taken from a folder on this machine: ``HEARTH_KIT_WHEELS``, the
kit's ``wheels/``, or the folders pip is configured to look in (``find-links``).  Skipped,
with the reason, when none holds them; failed, with the app's own sentence, when the
install or the reply fails."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from gpu_check import replies
from gpu_check.report import Report

WHEELS_ENV = "HEARTH_KIT_WHEELS"
NEEDS_S = 120
STORY = [{"role": "user", "content": "Write a long story about a lighthouse keeper."}]


def check(kit: Path, work: Path, checkpoint: Path | None, report: Report) -> None:
    """Install the CUDA engine from a local folder and reply on it; every outcome is a
    step of the report."""
    if report.left() < NEEDS_S:
        report.step("pytorch engine", "skipped", reason="out of time")
        return
    from app.packs import pytorch_engine
    from app.packs.pytorch_lock import engine_set, read_lock
    from app.packs.wheel_sources import Places

    wanted = engine_set(read_lock(), "cuda")
    torch_file = next(w.file for w in wanted.wheels if w.name == "torch")
    folders = [f for f in _folders(kit) if (f / torch_file).is_file()]
    if not folders:
        report.step(
            "pytorch engine",
            "skipped",
            reason=f"no local folder holds the CUDA engine's wheels ({torch_file} and the "
            f"others of the lock, {wanted.size / 1e9:.1f} GB); name one with {WHEELS_ENV}",
        )
        return
    data = work / "engine-data"
    started = time.monotonic()
    try:
        record = pytorch_engine.install(
            data, _gpus(), "cuda", Places(find_links=[str(f) for f in folders])
        )
    except Exception as exc:  # noqa: BLE001 - the app's own sentence, reported
        report.step("pytorch engine", "failed", reason=f"{type(exc).__name__}: {exc}")
        return
    result: dict[str, Any] = {
        "install_s": round(time.monotonic() - started, 1),
        "torch": record["versions"].get("torch"),
        "probe": record.get("probe", {}),
    }
    report.data["pytorch_engine"] = result
    report.step("pytorch engine", "ok")
    if checkpoint is None:
        report.step("pytorch engine reply", "skipped", reason="no checkpoint (its step failed)")
        return
    _reply(data, checkpoint, result, work / "logs", report)


def _folders(kit: Path) -> list[Path]:
    named = [os.environ.get(WHEELS_ENV, ""), str(kit / "wheels")]
    try:
        listed = subprocess.run(
            [sys.executable, "-m", "pip", "config", "get", "global.find-links"],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        ).stdout.split()
    except (OSError, subprocess.TimeoutExpired):
        listed = []
    return [Path(f) for f in [*named, *listed] if f and Path(f).is_dir()]


def _gpus() -> list[Any]:
    from app.machine.hardware import probe_gpus

    return list(probe_gpus([]))


def _reply(
    data: Path, checkpoint: Path, result: dict[str, Any], logs: Path, report: Report
) -> None:
    from app.engine.host import EngineHost
    from app.engine.seat import Seat
    from wire.engine_overlay import installed_site
    from wire.model_spec import TRANSFORMERS, ModelSpec

    site = installed_site(data)
    assert site is not None, "the install left no usable engine"
    spec = ModelSpec(
        str(checkpoint), n_ctx=2048, engine=TRANSFORMERS, dtype="bfloat16", engine_path=str(site)
    )
    host = EngineHost(logs)
    try:
        seat = Seat(host)
        within = max(30.0, report.left() - 30)
        replies.load(seat, spec, within)
        stats = replies.reply(seat, spec, STORY, within, max_tokens=64, ignore_eos=True)
        result["reply"] = {
            "tokens_per_s": stats.get("tokens_per_s"),
            "ttft_ms": stats.get("ttft_ms"),
            "generated_tokens": stats.get("generated_tokens"),
        }
        report.step("pytorch engine reply", "ok")
    except Exception as exc:  # noqa: BLE001 - reported with the worker's log
        report.step("pytorch engine reply", "failed", reason=f"{type(exc).__name__}: {exc}")
    finally:
        host.close()
