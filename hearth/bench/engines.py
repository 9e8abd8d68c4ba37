"""The PyTorch engine added after install, measured in the installed app: how long an
install takes from a local folder of its wheels, and its tokens per second in the frozen
app's workers against the development environment's, side by side, rounds alternating,
on a tiny checkpoint (tests/tools/tiny_checkpoint.py).  Budget: frozen ÷ dev ≥ 0.95, the
price of running torch on the frozen interpreter with its packages ahead of the app's.

The frozen app is the one ``make dist`` built (``HEARTH_BENCH_FROZEN``, its executable);
its wheels are fetched once into the build cache (``HEARTH_BENCH_WHEELS``), verified
against the lock, so the install measures unpacking and the check, not the network.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from app.engine.host import EngineHost
from app.engine.seat import Seat
from app.packs.fetch import fetch
from app.packs.pytorch_lock import engine_set, read_lock
from app.packs.wheel_sources import Places
from hearth.bench.figures import Figure
from wire.engine_overlay import installed_site
from wire.model_spec import TRANSFORMERS, ModelSpec

FROZEN_ENV = "HEARTH_BENCH_FROZEN"
WHEELS_ENV = "HEARTH_BENCH_WHEELS"
BUDGET = 0.95
TOKENS = 96
ROUNDS = 5
REPO = Path(__file__).resolve().parents[2]


def pytorch_engine_figures(say: Callable[[str], None], rounds: int = ROUNDS) -> list[Figure]:
    frozen = os.environ.get(FROZEN_ENV, "")
    if not frozen or not Path(frozen).is_file():
        say(f"bench: no frozen app ({FROZEN_ENV}); the PyTorch engine is not measured")
        return []
    wheels = Path(
        os.environ.get(WHEELS_ENV) or Path.home() / ".cache" / "hearth-build" / "engine-wheels"
    )
    with tempfile.TemporaryDirectory(prefix="hearth-bench-engines-") as scratch:
        folder = Path(scratch)
        say("bench: the PyTorch engine's wheels, once, into the build cache")
        _wheels(wheels)
        say("bench: installing the PyTorch engine into the frozen app from that folder")
        started = time.perf_counter()
        env = {**os.environ, "HEARTH_DATA_DIR": str(folder / "data")}
        subprocess.run(
            [frozen, "engines", "install", "pytorch", "--variant", "cpu", "--find-links",
             str(wheels)],
            check=True, env=env, capture_output=True,
        )  # fmt: skip
        install_s = time.perf_counter() - started
        site = installed_site(folder / "data")
        assert site is not None, "the install left no usable engine"
        checkpoint = folder / "tiny"
        subprocess.run(
            [sys.executable, "-m", "tests.tools.tiny_checkpoint", str(checkpoint)],
            check=True, cwd=REPO, capture_output=True,
        )  # fmt: skip
        say(f"bench: installed in {install_s:.1f} s; {rounds} rounds of {TOKENS} tokens a side")
        dev, in_app = _speeds(checkpoint, site, frozen, rounds)
    ratio = statistics.median(in_app) / statistics.median(dev)
    return [
        Figure("pytorch_install_s", round(install_s, 1), "s", None, None),
        Figure("pytorch_tokens_per_s_dev", round(statistics.median(dev), 1), "tok/s", None, None),
        Figure(
            "pytorch_tokens_per_s_frozen", round(statistics.median(in_app), 1), "tok/s", None, None
        ),
        Figure("pytorch_frozen_vs_dev", round(ratio, 3), "ratio", f">= {BUDGET}", ratio >= BUDGET),
    ]


def _wheels(folder: Path) -> None:
    """Every wheel of this platform's CPU engine in ``folder`` (kept between runs), from
    the folders pip is configured to look in first, else their addresses."""
    folder.mkdir(parents=True, exist_ok=True)
    listed = subprocess.run(
        [sys.executable, "-m", "pip", "config", "get", "global.find-links"],
        capture_output=True,
        text=True,
        check=False,
    ).stdout.split()
    places = Places(find_links=listed)
    for wheel in engine_set(read_lock(), "cpu").wheels:
        if not (folder / wheel.file).is_file():
            fetch(places.sources(wheel), folder / wheel.file, sha256=wheel.sha256, size=wheel.size)


def _speeds(
    checkpoint: Path, site: Path, frozen: str, rounds: int
) -> tuple[list[float], list[float]]:
    """Tokens per second on each side, rounds alternating (one warm-up each first)."""
    dev_host = EngineHost()
    app_host = EngineHost(worker_command=[frozen, "--worker"])
    plain = ModelSpec(str(checkpoint), n_ctx=1024, threads=2, engine=TRANSFORMERS)
    overlaid = ModelSpec(
        str(checkpoint), n_ctx=1024, threads=2, engine=TRANSFORMERS, engine_path=str(site)
    )
    sides: tuple[tuple[Seat, ModelSpec, list[float]], ...] = (
        (Seat(dev_host), plain, []),
        (Seat(app_host), overlaid, []),
    )
    try:
        for round_number in range(rounds + 1):
            for seat, spec, speeds in sides:
                speed = _reply_speed(seat, spec)
                if round_number:  # the first round warms both up
                    speeds.append(speed)
    finally:
        dev_host.close()
        app_host.close()
    return sides[0][2], sides[1][2]


def _reply_speed(seat: Seat, spec: ModelSpec) -> float:
    params: dict[str, Any] = {"max_tokens": TOKENS, "ignore_eos": True, "temperature": 0.0}
    job = seat.chat(spec, [{"role": "user", "content": "Tell me a story."}], params)
    stats = next(
        (e for e in job.events(timeout=600) if e["type"] == "stats"), {"tokens_per_s": 0.0}
    )
    return float(stats.get("tokens_per_s") or 0.0)
