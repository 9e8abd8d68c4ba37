"""``hearth bench --vision``: reading pictures with the tests' tiny vision model, in
Hearth's worker and in llama.cpp's own ``llama-mtmd-cli`` of the same build, side by side.

Each round, both sides read the same four new 1024×768 pictures (noise, so no picture is
one a cache has seen), in batches of 512 tokens as the worker's slots decode; a first
round warms both up and is not counted: Hearth through the engine host, the worker's slots and its
projector (the reply's ``image_ms``: encoding and decoding every picture chunk), and
``llama-mtmd-cli`` in a process of its own, from the times it logs for each chunk it
encodes and decodes.  The ratio is llama-mtmd-cli's time over Hearth's: 1.0 is as fast,
the budget ≥ 0.9.  The model is ``HEARTH_TEST_VISION_MODEL`` (``make vision-model``) and
the binary ``HEARTH_LLAMA_MTMD_CLI`` or the one ``make bench-tools`` builds.
"""

from __future__ import annotations

import io
import os
import re
import statistics
import subprocess
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from hearth.bench.figures import Figure
from hearth.bench.llama_tools import find_llama_tool
from wire import images
from wire.model_spec import ModelSpec

MTMD_CLI_ENV = "HEARTH_LLAMA_MTMD_CLI"
VISION_MODEL_ENV = "HEARTH_TEST_VISION_MODEL"
PICTURES = 4
SIZE = (1024, 768)
THREADS = 2
# llama-mtmd-cli's log lines start with a timestamp (minutes.seconds.ms.µs); with debug
# output (-lv 5) each picture chunk is logged from "encoding mtmd batch" to "image decoded".
STAMP = re.compile(r"^(\d+)\.(\d+)\.(\d+)\.(\d+) ")


@dataclass
class VisionFigures:
    hearth_ms: list[float] = field(default_factory=list)
    mtmd_cli_ms: list[float] = field(default_factory=list)
    image_tokens: int = 0


def find_mtmd_cli() -> Path | None:
    return find_llama_tool(MTMD_CLI_ENV, "llama-mtmd-cli")


def find_model() -> Path | None:
    folder = Path(os.environ.get(VISION_MODEL_ENV, ""))
    return folder if (folder / ".built").is_file() else None


def noise_pictures(seed: int) -> list[bytes]:
    from PIL import Image

    made = []
    for number in range(PICTURES):
        picture = Image.effect_noise(SIZE, 40 + seed * PICTURES + number).convert("RGB")
        encoded = io.BytesIO()
        picture.save(encoded, "PNG")
        made.append(encoded.getvalue())
    return made


def mtmd_cli_ms(binary: Path, model: Path, pictures: list[Path]) -> float:
    """The time llama-mtmd-cli spends encoding and decoding every picture chunk, from the
    timestamps of its log (whole milliseconds would round each small chunk away)."""
    done = subprocess.run(
        [
            *(str(binary), "-m", str(model / "tiny-smolvlm-f16.gguf")),
            *("--mmproj", str(model / "mmproj-tiny-smolvlm-f16.gguf")),
            *(arg for path in pictures for arg in ("--image", str(path))),
            *("-p", "What is in these pictures?", "-n", "1", "-t", str(THREADS)),
            *("-c", "4096", "-b", "512", "-ub", "512", "--temp", "0", "-lv", "5"),
        ],
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    )
    return chunk_ms((done.stdout + "\n" + done.stderr).splitlines())


def chunk_ms(lines: list[str]) -> float:
    """The sum over picture chunks of the time from encoding to decoded, in milliseconds."""
    total, started = 0.0, None
    for line in lines:
        found = STAMP.match(line)
        if found is None:
            continue
        minutes, seconds, ms, us = (int(part) for part in found.groups())
        at = minutes * 60_000 + seconds * 1000 + ms + us / 1000
        if "encoding mtmd batch" in line:
            started = at
        elif "image decoded" in line and started is not None:
            total += at - started
            started = None
    if total <= 0:
        raise RuntimeError("llama-mtmd-cli logged no picture times")
    return total


def measure(rounds: int) -> VisionFigures | None:
    """Both sides, alternately; None without the model or the binary."""
    from app.engine.host import EngineHost
    from app.engine.seat import Seat

    model, binary = find_model(), find_mtmd_cli()
    if model is None or binary is None:
        return None
    figures = VisionFigures()
    spec = ModelSpec(
        str(model / "tiny-smolvlm-f16.gguf"),
        n_ctx=4096,
        threads=THREADS,
        projector=str(model / "mmproj-tiny-smolvlm-f16.gguf"),
    )
    with tempfile.TemporaryDirectory(prefix="hearth-bench-vision-") as scratch:
        host = EngineHost(Path(scratch) / "logs")
        seat = Seat(host)
        try:
            for round_number in range(rounds + 1):  # the first warms both up: not counted
                pictures = noise_pictures(round_number)
                files = []
                for number, data in enumerate(pictures):
                    path = Path(scratch) / f"round{round_number}-{number}.png"
                    path.write_bytes(data)
                    files.append(path)
                theirs = mtmd_cli_ms(binary, model, files)
                message = {"role": "user", "content": images.content("What?", pictures)}
                job = seat.chat(spec, [message], {"temperature": 0, "max_tokens": 1})
                stats = next(e for e in job.events(timeout=600) if e["type"] in ("stats", "error"))
                if stats["type"] == "error":
                    raise RuntimeError(str(stats.get("message")))
                if round_number:
                    figures.mtmd_cli_ms.append(theirs)
                    figures.hearth_ms.append(float(stats["image_ms"]))
                figures.image_tokens = int(stats["image_tokens"])
        finally:
            host.close()
    return figures


def vision_figures(figures: VisionFigures) -> list[Figure]:
    hearth = statistics.median(figures.hearth_ms)
    theirs = statistics.median(figures.mtmd_cli_ms)
    ratio = theirs / hearth if hearth else 0.0
    return [
        Figure("picture_read_ms_hearth", round(hearth, 1), "ms", None, None),
        Figure("picture_read_ms_llama_mtmd_cli", round(theirs, 1), "ms", None, None),
        Figure("picture_tokens", figures.image_tokens, "tokens", None, None),
        Figure("picture_read_vs_llama_mtmd_cli", round(ratio, 3), "ratio", ">= 0.9", ratio >= 0.9),
    ]


def vision_bench(rounds: int, say: Callable[[str], None]) -> list[Figure]:
    """The figures, or none (said) without the model or the binary."""
    figures = measure(rounds)
    if figures is None:
        say(
            "bench: pictures skipped: needs the tests' vision model (make vision-model, "
            f"{VISION_MODEL_ENV}) and llama-mtmd-cli (make bench-tools, {MTMD_CLI_ENV})"
        )
        return []
    return vision_figures(figures)
