"""The benchmark's reference: llama-cpp-python used directly, in a process of its own.

``hearth bench`` compares Hearth (worker + protocol + window) against this: the same
model, prompt, seed and sampling settings, streamed with the library's own
``create_chat_completion(stream=True)``.  It lives in its own process so the UI process
never imports llama_cpp, and it is driven one run at a time so the two sides never
compete for the CPU.  Requests and answers are newline-JSON on stdin/stdout.
"""

from __future__ import annotations

import sys
import time
from typing import Any

from wire import protocol


def main(argv: list[str]) -> int:
    import llama_cpp

    path, n_ctx, threads = argv[0], int(argv[1]), int(argv[2])
    flash_attn = argv[3:4] != ["0"]  # as Hearth's spec says
    llm = llama_cpp.Llama(
        model_path=path,
        n_ctx=n_ctx,
        n_threads=threads,
        n_threads_batch=threads,
        flash_attn=flash_attn,
        verbose=False,
    )
    vocab = llm._model.vocab
    eog = [t for t in range(llm.n_vocab()) if llama_cpp.llama_vocab_is_eog(vocab, t)]

    def ban(_ids: Any, scores: Any) -> Any:
        scores[eog] = -float("inf")
        return scores

    out = sys.stdout.buffer
    protocol.write_message(out, {"type": "ready"})
    while True:
        request = protocol.read_message(sys.stdin.buffer)
        if request is None or request["type"] == "shutdown":
            return 0
        params = request["params"]
        llm.set_seed(int(params["seed"]))
        started = time.perf_counter()
        first = last = None
        chunks = 0
        for chunk in llm.create_chat_completion(
            messages=request["messages"],
            stream=True,
            max_tokens=int(params["max_tokens"]),
            temperature=float(params["temperature"]),
            top_p=float(params["top_p"]),
            top_k=int(params["top_k"]),
            min_p=float(params["min_p"]),
            repeat_penalty=float(params["repeat_penalty"]),
            seed=int(params["seed"]),
            logits_processor=llama_cpp.LogitsProcessorList([ban]),
        ):
            delta: Any = chunk["choices"][0]["delta"]  # type: ignore[index]
            if delta.get("content"):
                now = time.perf_counter()
                first = first or now
                last = now
                chunks += 1
        assert first is not None and last is not None
        protocol.write_message(
            out,
            {
                "type": "result",
                "chunks": chunks,
                "ttft_ms": (first - started) * 1000,
                "decode_s": last - first,
            },
        )


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
