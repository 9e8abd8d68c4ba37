"""The PyTorch engine just installed, checked in a process of its own before it is used:
torch, transformers and accelerate import, and on a GPU one small matrix product runs
there.  One JSON line on stdout (``hearth engines install`` reads it).

Run with the engine's packages named in ``OVERLAY_ENV`` and the device to check as its
argument (``cpu``, ``cuda`` or ``mps``).  A failure is reported in the line, never raised:
a CUDA build the driver cannot run says so here, not in the middle of a person's reply.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from typing import Any

from wire.engine_overlay import use_overlay


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    device = argv[0] if argv else "cpu"
    found: dict[str, Any] = {"overlay": use_overlay(), "device": device}
    try:
        found.update(check(device))
    except Exception as exc:  # noqa: BLE001 - the report says what failed
        found["error"] = f"{type(exc).__name__}: {exc}"
    sys.stdout.write(json.dumps(found) + "\n")
    sys.stdout.flush()
    return 0


def check(device: str) -> dict[str, Any]:
    import accelerate
    import torch
    import transformers

    facts: dict[str, Any] = {
        "torch": str(torch.__version__),
        "transformers": str(transformers.__version__),
        "accelerate": str(accelerate.__version__),
        "cuda": str(torch.version.cuda or ""),
        "torch_file": str(torch.__file__),
    }
    if device == "cuda":
        facts["cuda_available"] = bool(torch.cuda.is_available())
        if not facts["cuda_available"]:
            return facts
        facts["gpu"] = str(torch.cuda.get_device_name(0))
    elif device == "mps":
        facts["mps_available"] = bool(torch.backends.mps.is_available())
        if not facts["mps_available"]:
            return facts
    a = torch.ones((64, 64), device=device)
    product = float((a @ a).sum().item())  # 64 x 64 x 64
    facts["matmul"] = product == 64.0**3
    return facts


if __name__ == "__main__":
    sys.exit(main())
