"""Embeddings for OpenAI's ``POST /v1/embeddings`` and Ollama's ``/api/embed`` and
``/api/embeddings``: the loaded GGUF model in embedding mode, in its worker
(``backends.llama_embed``).

Every input is embedded whole or refused (an input longer than the model embeds at once
is a 400 that says so, never silently cut).  OpenAI's client asks for base64 by default:
the vectors are then little-endian float32, as OpenAI sends them.
"""

from __future__ import annotations

import asyncio
import base64
import struct
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from app.engine_client import EngineClient
from app.serve.openai_chat import unicode_text
from app.serve.served_models import Served
from wire import protocol
from wire.model_spec import LLAMA_CPP, ModelSpec

MAX_INPUTS = 256
MAX_INPUT_CHARS = 100_000
NEEDS_GGUF = "embeddings need a GGUF model (llama.cpp); this server's model cannot make them"
WAIT_S = 600.0


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


class Embedded(BaseModel):
    """What the engine answered: one vector per input, and the tokens read."""

    vectors: list[list[float]]
    prompt_tokens: int


async def embed(
    client: EngineClient, spec: ModelSpec, texts: list[str]
) -> Embedded | dict[str, Any]:
    """The embeddings, or the engine's error event (its ``kind`` and ``message``)."""
    if spec.engine != LLAMA_CPP:
        return {"type": protocol.ERROR, "kind": protocol.ERR_BAD_REQUEST, "message": NEEDS_GGUF}
    job = client.embed(spec, texts)
    result = await asyncio.to_thread(job.wait, WAIT_S)
    if result is None:
        return {"type": protocol.ERROR, "kind": protocol.ERR_TIMEOUT, "message": "no answer"}
    if result.get("type") == protocol.ERROR:
        return result
    return Embedded(vectors=result["embeddings"], prompt_tokens=int(result["prompt_tokens"]))


async def embed_for(served: Served, texts: list[str]) -> Embedded | dict[str, Any]:
    """``embed`` with the request's model, released once the vectors are back."""
    try:
        return await embed(served.client, served.spec, texts)
    finally:
        served.release()


def openai_reply(body: EmbeddingRequest, done: Embedded, model_name: str) -> dict[str, Any]:
    return {
        "object": "list",
        "data": [
            {"object": "embedding", "index": index, "embedding": encoded(vector, body)}
            for index, vector in enumerate(done.vectors)
        ],
        "model": model_name,
        "usage": {"prompt_tokens": done.prompt_tokens, "total_tokens": done.prompt_tokens},
    }


def encoded(vector: list[float], body: EmbeddingRequest) -> list[float] | str:
    if body.encoding_format == "base64":
        return base64.b64encode(struct.pack(f"<{len(vector)}f", *vector)).decode("ascii")
    return vector


def dimensions_problem(body: EmbeddingRequest, done: Embedded) -> str | None:
    """OpenAI's ``dimensions`` shortens vectors of models trained for it; a GGUF model's
    vector has its own size, so only that size is accepted."""
    size = len(done.vectors[0]) if done.vectors else 0
    if body.dimensions is not None and body.dimensions != size:
        return f"this model's embeddings have {size} dimensions, not {body.dimensions}"
    return None
