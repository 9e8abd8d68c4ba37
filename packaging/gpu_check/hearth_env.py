"""Hearth's own code and the kit's packages on the path of this process and of the workers
it starts: the kit's llama-cpp-python first; the kit's copies of Hearth's other pure
dependencies last, so that what the machine has installed wins."""

from __future__ import annotations

import os
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def use_kit(kit: Path, runtimes: Path, data: Path) -> None:
    first = [str(REPO), str(kit / "python")]
    last = [str(kit / "fallback")]
    present = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    ordered = first + [p for p in present if p not in first + last] + last
    os.environ["PYTHONPATH"] = os.pathsep.join(ordered)
    os.environ["HEARTH_RUNTIMES_DIR"] = str(runtimes)
    os.environ["HEARTH_DATA_DIR"] = str(data)
    for path in reversed(first):
        if path not in sys.path:
            sys.path.insert(0, path)
    for path in last:
        if path not in sys.path:
            sys.path.append(path)
