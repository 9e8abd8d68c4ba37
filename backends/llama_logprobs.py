"""Log-probabilities of the tokens llama.cpp samples, for OpenAI's ``logprobs``.

Read only when a request asks: each token's row of logits is normalised (a log-softmax
over the vocabulary, in numpy) before the next decode replaces it.  The probabilities are
the model's own, before the sampling settings (temperature, top-p, penalties) reshape
them, as OpenAI reports them.  Prompt-lookup drafting is off for such a request, so the
row read is always the one the token was drawn from.
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable
from typing import Any

import numpy as np

MAX_TOP = 20  # as OpenAI's API


class LogprobReader:
    def __init__(
        self, lib: Any, ctx: Any, n_vocab: int, piece: Callable[[int], bytes], top: int
    ) -> None:
        self._lib, self._ctx, self._n_vocab = lib, ctx, n_vocab
        self._piece = piece
        self._top = max(0, min(int(top), MAX_TOP))

    def read(self, token: int, at: int = -1) -> dict[str, Any]:
        """The sampled token's entry (text, bytes, logprob, the most likely alternatives),
        from the logits of the batch row ``at`` it was drawn from."""
        pointer = self._lib.llama_get_logits_ith(self._ctx, at)
        row = np.ctypeslib.as_array(  # llama.cpp's own buffer, not copied
            ctypes.cast(pointer, ctypes.POINTER(ctypes.c_float)), shape=(self._n_vocab,)
        )
        peak = float(row.max())
        normaliser = peak + float(np.log(np.exp(row - peak).sum(dtype=np.float64)))
        entry = self._entry(token, float(row[token] - normaliser))
        top: list[dict[str, Any]] = []
        if self._top:
            best = np.argpartition(-row, self._top - 1)[: self._top]
            best = best[np.argsort(-row[best])]
            top = [self._entry(int(t), float(row[t] - normaliser)) for t in best]
        return {**entry, "top_logprobs": top}

    def _entry(self, token: int, logprob: float) -> dict[str, Any]:
        data = self._piece(token)
        return {
            "token": data.decode("utf-8", errors="replace"),
            "bytes": list(data),
            "logprob": max(logprob, -9999.0),  # -inf is no JSON number
        }
