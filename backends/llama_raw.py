"""A completion's prompt for llama.cpp: the caller's own text, or the model's
fill-in-the-middle form around a ``suffix``."""

from __future__ import annotations

from typing import Any

from backends.engine import EngineError
from wire import protocol
from wire.phrases import Phrase


def raw_prompt(llm: Any, lib: Any, request: dict[str, Any]) -> list[int]:
    """A completion's prompt as it is (its special tokens read as tokens: a raw prompt
    is the caller's own template); with a ``suffix``, the model's fill-in-the-middle
    form (prefix, suffix, then the middle to write)."""
    text = str(request.get("prompt") or "").encode("utf-8")
    suffix = request.get("suffix")
    if suffix is None:
        tokens: list[int] = llm.tokenize(text, add_bos=True, special=True)
        if not tokens:
            raise EngineError(
                protocol.ERR_BAD_REQUEST,
                Phrase("The prompt is empty: there is nothing to continue."),
            )
        return tokens
    vocab = llm._model.vocab
    pre, suf, mid = (
        lib.llama_vocab_fim_pre(vocab),
        lib.llama_vocab_fim_suf(vocab),
        lib.llama_vocab_fim_mid(vocab),
    )
    if min(pre, suf, mid) < 0:
        raise EngineError(
            protocol.ERR_BAD_REQUEST,
            Phrase(
                "This model has no fill-in-the-middle tokens, so it cannot complete "
                "between a prefix and a suffix. Use a code model made for it."
            ),
        )
    before = llm.tokenize(text, add_bos=False, special=False)
    after = llm.tokenize(str(suffix).encode("utf-8"), add_bos=False, special=False)
    bos = llm.token_bos()
    start = [bos] if bos >= 0 and lib.llama_vocab_get_add_bos(vocab) else []
    return [*start, pre, *before, suf, *after, mid]
