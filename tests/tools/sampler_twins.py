"""Drives one reply with two sampler chains side by side, in a process of its own (llama_cpp
stays out of the test process): the chain with the repeat-penalty prefilter picks every
token, the one without samples the same logits, and both token lists are printed as JSON.

    python -m tests.tools.sampler_twins MODEL PARAMS_JSON
"""

from __future__ import annotations

import json
import sys

from backends.job_control import JobControl
from backends.llama_cpp_engine import LlamaCppEngine
from backends.llama_loop import SamplerChain

PROMPT = "List the colours of the rainbow, then list them again, then once more."


def main(model: str, params: dict[str, object], steps: int = 48) -> None:
    engine = LlamaCppEngine()
    engine.load({"path": model, "n_ctx": 1024, "threads": 2}, lambda *_: None)
    events: list[dict[str, object]] = []
    request = {"messages": [{"role": "user", "content": PROMPT}], "params": {"max_tokens": 1}}
    engine.chat(request, JobControl(), events.append)  # the prompt is now in the cache
    lib, context = engine._lib, engine._slots
    assert context is not None and engine._llm is not None
    ctx = context.ctx
    slot = max(context.slots, key=lambda s: len(s.tokens))  # the one that read the prompt
    vocab, n_vocab = engine._llm._model.vocab, engine._llm.n_vocab()
    fast = SamplerChain(lib, vocab, n_vocab, params)
    exact = SamplerChain(lib, vocab, n_vocab, params, prefilter=False)
    chosen, checked = [], []
    last = slot.tokens[-1]  # evaluated again, so that its logits are the current ones
    slot.truncate(len(slot.tokens) - 1)
    rows = context.add(slot, [last])
    context.decode()
    for _ in range(steps):
        token = lib.llama_sampler_sample(fast.chain, ctx, rows.first)
        checked.append(lib.llama_sampler_sample(exact.chain, ctx, rows.first))
        chosen.append(token)
        rows = context.add(slot, [token])
        context.decode()
    fast.close()
    exact.close()
    print(json.dumps({"prefiltered": chosen, "exact": checked}))


if __name__ == "__main__":
    main(sys.argv[1], json.loads(sys.argv[2]))
