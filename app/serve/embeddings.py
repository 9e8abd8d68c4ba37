"""OpenAI's ``POST /v1/embeddings``: the request's model in embedding mode, in its worker
(``backends.llama_embed``), through the pipeline (``pipeline.embed``), which checks that
its engine makes embeddings.

Every input is embedded whole or refused (an input longer than the model embeds at once
is a 400 that says so, never silently cut).  OpenAI's client asks for base64 by default:
the vectors are then little-endian float32, as OpenAI sends them.  Ollama's embedding
routes (``ollama_api``) share ``inputs_of``.
"""

from __future__ import annotations

import base64
import struct
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from app.serve import pipeline
from app.serve.call import Call
from app.serve.pipeline import Refusal
from app.serve.sampling import unicode_text

MAX_INPUTS = 256
MAX_INPUT_CHARS = 100_000


def inputs_of(value: str | list[str]) -> list[str]:
    listed = [value] if isinstance(value, str) else list(value)
    if not 1 <= len(listed) <= MAX_INPUTS:
        raise ValueError(f"give 1 to {MAX_INPUTS} inputs")
    for text in listed:
        if not 1 <= len(text) <= MAX_INPUT_CHARS:
            raise ValueError(f"each input must be 1 to {MAX_INPUT_CHARS} characters")
        unicode_text(text)
    return listed


class EmbeddingRequest(BaseModel):
    model_config = ConfigDict(extra="ignore")
    model: str | None = None
    input: str | list[str]
    encoding_format: Literal["float", "base64"] = "float"
    dimensions: int | None = Field(default=None, ge=1)

    @field_validator("input")
    @classmethod
    def _inputs(cls, value: str | list[str]) -> str | list[str]:
        inputs_of(value)
        return value


async def embeddings(call: Call) -> dict[str, Any]:
    body: EmbeddingRequest = call.body
    name, done = await pipeline.embed(call.models, call.request, body.model, inputs_of(body.input))
    size = len(done.vectors[0]) if done.vectors else 0
    if body.dimensions is not None and body.dimensions != size:
        # OpenAI's ``dimensions`` shortens vectors of models trained for it; a GGUF model's
        # vector has its own size, so only that size is accepted.
        raise Refusal(400, f"this model's embeddings have {size} dimensions, not {body.dimensions}")
    return {
        "object": "list",
        "data": [
            {"object": "embedding", "index": index, "embedding": encoded(vector, body)}
            for index, vector in enumerate(done.vectors)
        ],
        "model": name,
        "usage": {"prompt_tokens": done.prompt_tokens, "total_tokens": done.prompt_tokens},
    }


def encoded(vector: list[float], body: EmbeddingRequest) -> list[float] | str:
    if body.encoding_format == "base64":
        return base64.b64encode(struct.pack(f"<{len(vector)}f", *vector)).decode("ascii")
    return vector
