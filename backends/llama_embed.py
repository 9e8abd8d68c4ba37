"""Embeddings from a loaded GGUF model: a second llama.cpp context on the same weights.

The generation context cannot be switched to embeddings without losing its cache (and
its pooling is fixed when it is made), so embeddings get a context of their own, made on
the first request and kept while the model is loaded: the weights are shared; its working
memory (a cache and a compute buffer for one whole input) is sized to the longest input
seen so far, from 512 tokens up, and made again, larger, when a longer one comes.  Pooling
is the model's own (an embedding model's GGUF names it: mean, CLS or last token); a model
that names none (a chat model) is pooled by the mean of its token states.  Vectors are
L2-normalised, as OpenAI's are, so a dot product is the cosine similarity.
"""

from __future__ import annotations

import ctypes
import math
from collections.abc import Sequence
from typing import Any

# An input longer than this is refused rather than cut (a cut would silently embed less
# than was sent); embedding models are trained on 512-8192 tokens.
MAX_EMBED_CTX = 8192


class EmbeddingFailed(RuntimeError):
    """llama.cpp could not make the context or evaluate the input."""


def pooling_of(metadata: dict[str, Any], lib: Any) -> int:
    """The GGUF's pooling type, or mean pooling when it names none."""
    architecture = str(metadata.get("general.architecture", ""))
    raw = metadata.get(f"{architecture}.pooling_type")
    try:
        pooling = int(raw) if raw is not None else lib.LLAMA_POOLING_TYPE_NONE
    except (TypeError, ValueError):
        pooling = lib.LLAMA_POOLING_TYPE_NONE
    if pooling in (lib.LLAMA_POOLING_TYPE_NONE, lib.LLAMA_POOLING_TYPE_RANK):
        return int(lib.LLAMA_POOLING_TYPE_MEAN)
    return pooling


def longest_input(lib: Any, model: Any) -> int:
    """The most tokens one input may have: the model's training length, at most 8192."""
    return min(int(lib.llama_model_n_ctx_train(model)) or 512, MAX_EMBED_CTX)


def context_size(needed: int) -> int:
    """A context for inputs of ``needed`` tokens: 512, 1024, 2048… (few re-creations as
    inputs grow, and no working memory for lengths nobody sent)."""
    size = 512
    while size < needed:
        size *= 2
    return size


class EmbeddingContext:
    def __init__(
        self, lib: Any, model: Any, metadata: dict[str, Any], threads: int, n_ctx: int
    ) -> None:
        self._lib = lib
        self._model = model
        self.n_ctx = n_ctx
        params = lib.llama_context_default_params()
        params.n_ctx = self.n_ctx
        params.n_batch = params.n_ubatch = self.n_ctx  # a whole input in one pass
        params.n_seq_max = 1
        params.embeddings = True
        params.pooling_type = pooling_of(metadata, lib)
        if threads > 0:
            params.n_threads = params.n_threads_batch = threads
        self._ctx = lib.llama_init_from_model(model, params)
        if not self._ctx:
            raise EmbeddingFailed("llama.cpp could not make an embedding context")
        self._n_embd = int(lib.llama_model_n_embd(model))
        self._encoder_only = bool(lib.llama_model_has_encoder(model)) and not bool(
            lib.llama_model_has_decoder(model)
        )
        self._batch = lib.llama_batch_init(self.n_ctx, 0, 1)

    def set_threads(self, threads: int) -> None:
        self._lib.llama_set_n_threads(self._ctx, threads, threads)

    def embed(self, tokens: Sequence[int]) -> list[float]:
        """The normalised embedding of one input (at most ``n_ctx`` tokens)."""
        lib, batch = self._lib, self._batch
        lib.llama_memory_clear(lib.llama_get_memory(self._ctx), True)
        for index, token in enumerate(tokens):
            batch.token[index] = token
            batch.pos[index] = index
            batch.n_seq_id[index] = 1
            batch.seq_id[index][0] = 0
            batch.logits[index] = True
        batch.n_tokens = len(tokens)
        run = lib.llama_encode if self._encoder_only else lib.llama_decode
        code = run(self._ctx, batch)
        if code != 0:
            raise EmbeddingFailed(f"llama.cpp returned {code} evaluating the input")
        pointer = lib.llama_get_embeddings_seq(self._ctx, 0)
        if not pointer:
            raise EmbeddingFailed("llama.cpp gave no pooled embedding")
        values = ctypes.cast(pointer, ctypes.POINTER(ctypes.c_float))[: self._n_embd]
        norm = math.sqrt(sum(v * v for v in values)) or 1.0
        return [v / norm for v in values]

    def close(self) -> None:
        if self._batch is not None:
            self._lib.llama_batch_free(self._batch)
            self._batch = None
        if self._ctx:
            self._lib.llama_free(self._ctx)
            self._ctx = None
