"""One llama.cpp runtime asked what it can do, printed as one JSON line.

Run as a short-lived subprocess (``python -m backends.runtime_probe``, or the frozen app
with ``--probe-runtime``) with ``LLAMA_CPP_LIB_PATH`` naming the runtime's libraries: a
library that cannot load (a missing driver library, a CPU without the instructions it was
built for, a crash in the driver) takes only this process down, and a process can load one
llama.cpp build only, so each runtime gets its own.

Prints ``{"version", "gpu_offload", "devices": [{"name", "description", "type",
"memory_total", "memory_free"}]}``; ``type`` is ggml's: cpu, gpu, igpu or accel.
"""

from __future__ import annotations

import ctypes
import json
import os
import sys
from pathlib import Path
from typing import Any

from wire.platforms import shared_library

DEVICE_TYPES = ("cpu", "gpu", "igpu", "accel", "meta")


def library_dir() -> Path:
    import llama_cpp

    override = os.environ.get("LLAMA_CPP_LIB_PATH")
    return Path(override) if override else Path(llama_cpp.__file__).parent / "lib"


def devices(ggml: Any) -> list[dict[str, Any]]:
    ggml.ggml_backend_dev_count.restype = ctypes.c_size_t
    ggml.ggml_backend_dev_get.restype = ctypes.c_void_p
    ggml.ggml_backend_dev_get.argtypes = [ctypes.c_size_t]
    for name in ("ggml_backend_dev_name", "ggml_backend_dev_description"):
        getattr(ggml, name).restype = ctypes.c_char_p
        getattr(ggml, name).argtypes = [ctypes.c_void_p]
    ggml.ggml_backend_dev_type.restype = ctypes.c_int
    ggml.ggml_backend_dev_type.argtypes = [ctypes.c_void_p]
    ggml.ggml_backend_dev_memory.argtypes = [
        ctypes.c_void_p,
        ctypes.POINTER(ctypes.c_size_t),
        ctypes.POINTER(ctypes.c_size_t),
    ]
    found = []
    for index in range(ggml.ggml_backend_dev_count()):
        device = ggml.ggml_backend_dev_get(index)
        free, total = ctypes.c_size_t(0), ctypes.c_size_t(0)
        ggml.ggml_backend_dev_memory(device, ctypes.byref(free), ctypes.byref(total))
        kind = ggml.ggml_backend_dev_type(device)
        found.append(
            {
                "name": (ggml.ggml_backend_dev_name(device) or b"").decode(errors="replace"),
                "description": (ggml.ggml_backend_dev_description(device) or b"").decode(
                    errors="replace"
                ),
                "type": DEVICE_TYPES[kind] if 0 <= kind < len(DEVICE_TYPES) else str(kind),
                "memory_total": int(total.value),
                "memory_free": int(free.value),
            }
        )
    return found


def probe() -> dict[str, Any]:
    import llama_cpp

    llama_cpp.llama_backend_init()
    folder = library_dir()
    path = shared_library(folder, "ggml")
    if not path.exists():  # a runtime keeps the soname only (libggml.so.0)
        path = next(folder.glob(path.name + ".*"), path)
    ggml = ctypes.CDLL(str(path))
    return {
        "version": str(getattr(llama_cpp, "__version__", "")),
        "gpu_offload": bool(llama_cpp.llama_supports_gpu_offload()),
        "devices": devices(ggml),
    }


def main() -> int:
    try:
        import llama_cpp  # noqa: F401 - loads the runtime's libraries
    except Exception as exc:  # noqa: BLE001 - the answer is the failure
        facts: dict[str, Any] = {"error": f"its libraries could not be loaded ({exc})"}
    else:
        try:
            facts = probe()
        except Exception as exc:  # noqa: BLE001
            facts = {"error": f"it failed to start ({type(exc).__name__}: {exc})"}
    sys.stdout.write(json.dumps(facts) + "\n")
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
