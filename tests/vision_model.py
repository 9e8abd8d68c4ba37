"""The tests' tiny vision model (``tests/tools/make_vision_model.py``): built once per
machine by ``make test`` into the build cache (``HEARTH_TEST_VISION_MODEL`` names it), or
once per test session here when the tests run without make."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class VisionModel:
    folder: Path

    @property
    def text(self) -> Path:
        return self.folder / "tiny-smolvlm-f16.gguf"

    @property
    def projector(self) -> Path:
        return self.folder / "mmproj-tiny-smolvlm-f16.gguf"

    @property
    def checkpoint(self) -> Path:
        return self.folder / "hf"


def vision_model_folder(factory: pytest.TempPathFactory) -> Path:
    built = os.environ.get("HEARTH_TEST_VISION_MODEL", "")
    if built and (Path(built) / ".built").is_file():
        return Path(built)
    folder = factory.mktemp("vision-model")
    done = subprocess.run(
        [sys.executable, "-m", "tests.tools.make_vision_model", str(folder)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=1800,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    return folder


@pytest.fixture(scope="session")
def vision_model(tmp_path_factory: pytest.TempPathFactory) -> VisionModel:
    return VisionModel(vision_model_folder(tmp_path_factory))


def png(colour: tuple[int, int, int], size: tuple[int, int] = (64, 64)) -> bytes:
    from PIL import Image

    buffer = io.BytesIO()
    Image.new("RGB", size, colour).save(buffer, format="PNG")
    return buffer.getvalue()


def bomb(width: int, height: int) -> bytes:
    """A small PNG whose header claims ``width`` × ``height`` pixels (a decompression bomb):
    a real 1 × 1 PNG with the size in its header chunk rewritten and its CRC made again."""
    import struct
    import zlib

    data = bytearray(png((0, 0, 0), (1, 1)))
    header = b"IHDR" + struct.pack(">II", width, height) + bytes(data[24:29])
    data[12:29] = header
    data[29:33] = struct.pack(">I", zlib.crc32(header))
    return bytes(data)
