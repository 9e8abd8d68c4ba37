"""Ollama's native API (``/api/*``) on the same port as the OpenAI one.

Open WebUI, Continue, the ``ollama`` Python client and many editors speak it.  Answered:
``/api/version``, ``/api/tags``, ``/api/show``, ``/api/ps``, ``/api/chat`` and
``/api/generate`` (NDJSON streaming by default, as Ollama's; ``options`` mapped to Hearth's
sampling with the ranges of the settings; ``format: "json"`` or a JSON schema held by
grammar), ``/api/embed`` and the older ``/api/embeddings``.  Refused with 403: the routes
that write to disk from a network request (``pull``, ``push``, ``create``, ``copy``,
``delete``, ``blobs``), which is how a crafted model reached Ollama through
``/api/create``.  Errors come as Ollama's ``{"error": "…"}``.

``/api/chat`` takes ``tools`` and returns the model's calls as ``message.tool_calls``.
``images`` (base64) are read by a model that reads pictures, and refused in words by one
that reads text only.  An empty chat or prompt loads
the model (``done_reason: "load"``); with ``keep_alive: 0`` it unloads it instead, as
``ollama stop`` does.
"""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator, Sequence
from typing import Any

from app.serve import pipeline
from app.serve.call import Call, ndjson
from app.serve.capabilities import ollama_capabilities
from app.serve.embeddings import inputs_of
from app.serve.folding import LENGTH, Ending, Outcome, Piece
from app.serve.naming import ollama_name
from app.serve.ollama_models import (
    Generation,
    ModelFacts,
    OllamaChat,
    OllamaEmbed,
    OllamaEmbeddings,
    OllamaGenerate,
    iso,
    keep_alive_seconds,
    now_iso,
)
from app.serve.pipeline import Refusal, Reply
from app.tools.calls import ToolCall

# The Ollama API version whose routes and fields this server follows (clients compare it).
OLLAMA_VERSION = "0.12.6"
WRITE_ROUTES = ("pull", "push", "create", "copy", "delete")
WRITES_REFUSED = (
    "Hearth does not change its models from the network: /api/{0} is refused. Download "
    "models in Hearth's Models screen or with `hearth pull`."
)
NS_PER_MS = 1_000_000


# -- listings ----------------------------------------------------------------------------
async def version(call: Call) -> dict[str, Any]:
    return {"version": OLLAMA_VERSION}


async def tags(call: Call) -> dict[str, Any]:
    return {"models": [ModelFacts(n, f).listed() for n, f in call.models.listed()]}


def _facts_of(call: Call, name: str) -> ModelFacts | None:
    for listed, facts in call.models.listed():
        model = ModelFacts(listed, facts)
        if name in model.names() or name.lower() in model.names():
            return model
    return None


async def show(call: Call) -> dict[str, Any]:
    body = call.body if isinstance(call.body, dict) else {}
    asked = str(body.get("model") or body.get("name") or "")
    listed = call.models.listed()
    model = _facts_of(call, asked) if asked else (ModelFacts(*listed[0]) if listed else None)
    if model is None:
        names = ", ".join(ollama_name(n) for n, _f in listed[:5])
        raise Refusal(404, f"model '{asked}' not found; this server has {names}")
    context = model.facts.get("context_length")
    family = model.details()["family"] or "llama"
    info: dict[str, Any] = {"general.architecture": family}
    if isinstance(model.facts.get("parameters"), int):
        info["general.parameter_count"] = model.facts["parameters"]
    if isinstance(context, int):
        info[f"{family}.context_length"] = context
    return {
        "license": "",
        "modelfile": f"# Served by Hearth\nFROM {model.name}\n",
        "parameters": "",
        "template": "",
        "details": model.details(),
        "model_info": info,
        "capabilities": ollama_capabilities(model.engine, bool(model.facts.get("reads_images"))),
        "modified_at": model.modified_at(),
    }


async def ps(call: Call) -> dict[str, Any]:
    listing = []
    for running in call.models.running():
        model = ModelFacts(running.name, {**running.facts, "path": running.spec.path})
        listing.append(
            {
                **model.listed(),
                "size": running.memory_bytes or model.size(),
                "size_vram": running.vram_bytes,
                "context_length": running.context_length,
                "expires_at": iso(min(running.expires_at, 1e10)),
                # Hearth's own: replies at once, those being written and those waiting.
                "parallel": running.slots,
                "replies": min(running.replies, running.slots),
                "queued": max(0, running.replies - running.slots),
            }
        )
    return {"models": listing}


async def refuse_writes(call: Call) -> dict[str, Any]:
    route = call.request.url.path.removeprefix("/api/").split("/", 1)[0]
    raise Refusal(403, WRITES_REFUSED.format(route))


# -- replies -----------------------------------------------------------------------------
async def chat(call: Call) -> Any:
    body: OllamaChat = call.body
    if not body.messages:  # Ollama: an empty chat loads the model, or with keep_alive 0 unloads it
        return await _load_or_unload(call, body, "message")
    reply = await pipeline.start(
        body.ask(), call.models, call.request, pictures=call.config.pictures
    )
    return await _answer(reply, body, "message")


async def generate(call: Call) -> Any:
    body: OllamaGenerate = call.body
    if body.asks_nothing:
        return await _load_or_unload(call, body, "response")
    reply = await pipeline.start(
        body.ask(), call.models, call.request, pictures=call.config.pictures
    )
    return await _answer(reply, body, "response")


async def _load_or_unload(call: Call, body: Generation, field: str) -> dict[str, Any]:
    """Ollama's answer to a request with nothing to generate: the model loaded, or, with
    ``keep_alive`` 0 (``ollama stop``), unloaded without being loaded first."""
    if body.keep_alive_s == 0:
        call.models.unload(body.model or None)
        return {**_loaded(body.model, field), "done_reason": "unload"}
    await pipeline.load(call.models, call.request, body.model or None, body.keep_alive_s)
    return _loaded(body.model, field)


def _loaded(model: str, field: str) -> dict[str, Any]:
    empty: Any = {"role": "assistant", "content": ""} if field == "message" else ""
    return {
        "model": model,
        "created_at": now_iso(),
        field: empty,
        "done": True,
        "done_reason": "load",
    }


async def _answer(reply: Reply, body: Generation, field: str) -> Any:
    shaped = OllamaReply(body.model or ollama_name(reply.name), field)
    if body.stream:
        return ndjson(shaped.lines(reply))
    outcomes = await reply.whole()
    if not outcomes:  # the client went away
        return {}
    return shaped.whole(outcomes[0])


class OllamaReply:
    """One generation in Ollama's shape: NDJSON lines as it streams, or one object at the
    end.  ``field`` is ``message`` (``/api/chat``) or ``response`` (``/api/generate``)."""

    def __init__(self, model: str, field: str) -> None:
        self.model, self.field = model, field
        self.started = time.perf_counter()

    def piece(self, text: str, thinking: str, calls: Sequence[ToolCall] = ()) -> dict[str, Any]:
        if self.field == "message":
            message: dict[str, Any] = {"role": "assistant", "content": text}
            if thinking:
                message["thinking"] = thinking
            if calls:
                message["tool_calls"] = [
                    {"function": {"name": call.name, "arguments": call.arguments}} for call in calls
                ]
            return {"message": message}
        piece: dict[str, Any] = {"response": text}
        if thinking:
            piece["thinking"] = thinking
        return piece

    def line(self, payload: dict[str, Any]) -> dict[str, Any]:
        return {"model": self.model, "created_at": now_iso(), **payload}

    def final(self, ending: Ending) -> dict[str, Any]:
        stats = ending.stats
        total_ns = int((time.perf_counter() - self.started) * 1e9)
        prompt_ns = int(float(stats.get("ttft_ms") or 0) * NS_PER_MS)
        engine_ns = int(float(stats.get("total_ms") or 0) * NS_PER_MS)
        return {
            "done": True,
            "done_reason": "length" if ending.finish == LENGTH else "stop",
            "total_duration": total_ns,
            "load_duration": 0,
            "prompt_eval_count": ending.usage.prompt_tokens,
            "prompt_eval_duration": prompt_ns,
            "eval_count": ending.usage.completion_tokens,
            "eval_duration": max(engine_ns - prompt_ns, 0),
        }

    def whole(self, outcome: Outcome) -> dict[str, Any]:
        piece = self.piece(outcome.text, outcome.reasoning, outcome.tool_calls)
        return self.line({**piece, **self.final(outcome.ending)})

    async def lines(self, reply: Reply) -> AsyncIterator[str]:
        async for item in reply.stream():
            if isinstance(item, Piece):
                if item.text or item.reasoning:
                    piece = self.piece(item.text, item.reasoning)
                    yield json.dumps(self.line({**piece, "done": False})) + "\n"
                continue
            if item.error is not None:
                yield json.dumps({"error": str(item.error.get("message"))}) + "\n"
                return
            if item.tool_calls:  # Ollama sends the calls in a line of their own
                piece = self.piece("", "", item.tool_calls)
                yield json.dumps(self.line({**piece, "done": False})) + "\n"
            final = {**self.piece("", ""), **self.final(item)}
            yield json.dumps(self.line(final)) + "\n"


# -- embeddings --------------------------------------------------------------------------
async def embed(call: Call) -> dict[str, Any]:
    body: OllamaEmbed = call.body
    started = time.perf_counter()
    keep = keep_alive_seconds(body.keep_alive)
    name, done = await pipeline.embed(
        call.models, call.request, body.model or None, inputs_of(body.input), keep
    )
    return {
        "model": body.model or ollama_name(name),
        "embeddings": done.vectors,
        "total_duration": int((time.perf_counter() - started) * 1e9),
        "load_duration": 0,
        "prompt_eval_count": done.prompt_tokens,
    }


async def embeddings(call: Call) -> dict[str, Any]:
    """Ollama's older route: one prompt, one ``embedding``."""
    body: OllamaEmbeddings = call.body
    _name, done = await pipeline.embed(
        call.models, call.request, body.model or None, inputs_of(body.prompt)
    )
    return {"embedding": done.vectors[0]}
