"""Counts llama.cpp's passes over the model for one step of four replies, in a process of
its own (llama_cpp stays out of the test process): slots are added to the batch out of
order (1, 0, 2, 3), as the scheduler adds them when conversations find their own slots,
and each evaluation of the model's last tensor is counted.  Prints JSON: the passes for
the four prompts, then for one token of each.

    python -m tests.tools.batch_passes MODEL
"""

from __future__ import annotations

import ctypes
import json
import sys
from typing import Any

from backends.llama_cpp_engine import LlamaCppEngine
from backends.runtime_probe import library_dir
from backends.slots.context import SlotContext
from wire.platforms import shared_library

ORDER = (1, 0, 2, 3)
LAST_TENSOR = b"result_output"


def main(model: str) -> None:
    engine = LlamaCppEngine()
    engine.load({"path": model, "n_ctx": 256, "threads": 2}, lambda *_: None)
    llm: Any = engine._llm
    lib: Any = engine._lib
    path = shared_library(library_dir(), "ggml-base")
    if not path.exists():  # a runtime keeps the soname only (libggml-base.so.0)
        path = next(path.parent.glob(path.name + ".*"), path)
    ggml = ctypes.CDLL(str(path))
    ggml.ggml_get_name.restype = ctypes.c_char_p
    ggml.ggml_get_name.argtypes = [ctypes.c_void_p]
    passes = [0]

    def seen(tensor: int, ask: bool, _data: int) -> bool:
        if ask and ggml.ggml_get_name(tensor) == LAST_TENSOR:
            passes[0] += 1
        return False  # nothing to look at: the graph runs as it would

    callback = lib.ggml_backend_sched_eval_callback(seen)
    params = type(llm.context_params).from_buffer_copy(llm.context_params)
    params.cb_eval = callback
    context = SlotContext(lib, llm._model.model, params, 256, 4, 2)
    counted = []
    for step in range(2):
        passes[0] = 0
        for seq in ORDER:
            slot = context.slots[seq]
            context.add(slot, [1 + seq, 2 + seq, 3] if step == 0 else [4 + seq])
        context.decode()
        context.synchronize()
        counted.append(passes[0])
    context.close()
    print(json.dumps({"prompts": counted[0], "tokens": counted[1]}))


if __name__ == "__main__":
    main(sys.argv[1])
