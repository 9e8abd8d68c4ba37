"""Ollama's native API (``/api/*``) on the same port as the OpenAI one.

Open WebUI, Continue, the ``ollama`` Python client and many editors speak it.  Answered:
``/api/version``, ``/api/tags``, ``/api/show``, ``/api/ps``, ``/api/chat`` and
``/api/generate`` (NDJSON streaming by default, as Ollama's; ``options`` mapped to Hearth's
sampling with the same ranges as the settings; ``format: "json"`` or a JSON schema enforced
by grammar in llama.cpp).  Refused with 403: the routes that write to disk from a network
request (``pull``, ``push``, ``create``, ``copy``, ``delete``, ``blobs``), which is how a
crafted model reached Ollama through ``/api/create``.  Errors come as Ollama's
``{"error": "…"}``.

``/api/chat`` takes ``tools`` (as the OpenAI dialect does) and returns the model's calls
as ``message.tool_calls``; ``/api/embed`` and the older ``/api/embeddings`` embed with a
GGUF model.  Not yet: images; ``raw`` prompts and ``suffix`` need a GGUF model;
``keep_alive`` is accepted, and the one model this server has stays loaded while it runs.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from datetime import UTC, datetime
from typing import Any, Literal

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, StreamingResponse
from pydantic import BaseModel, ConfigDict, Field, field_validator

from app.engine_client import EngineClient
from app.serve.embeddings import Embedded, embed_for, inputs_of
from app.serve.naming import ollama_name
from app.serve.openai_chat import (
    JSON_NEEDS_GGUF,
    MAX_STOP_CHARS,
    unicode_text,
)
from app.serve.openai_tools import MAX_TOOLS, NAME_PATTERN, ToolSpec
from app.serve.relay import Relay, engine_status
from app.serve.served_models import Served, ServedModels, answered
from app.serve.tool_calls import ToolCall, ToolCallStream, parse_tool_calls
from app.settings import highest, lowest
from wire import protocol
from wire.model_spec import LLAMA_CPP, REMOTE, SYNTHETIC, TRANSFORMERS, ModelSpec

# The Ollama API version whose routes and fields this server follows (clients compare it).
OLLAMA_VERSION = "0.12.6"
WRITE_ROUTES = ("pull", "push", "create", "copy", "delete")
WRITES_REFUSED = (
    "Hearth does not change its models from the network: /api/{0} is refused. Download "
    "models in Hearth's Models screen or with `hearth pull`."
)
NS_PER_MS = 1_000_000


def now_iso() -> str:
    return datetime.now(UTC).isoformat().replace("+00:00", "Z")


class OllamaOptions(BaseModel):
    """Ollama's ``options``, with Hearth's ranges; options that only concern how Ollama
    runs a model (``num_ctx``, ``num_gpu``, ``num_thread``…) are accepted and left to the
    server's own settings."""

    model_config = ConfigDict(extra="ignore")
    temperature: float | None = Field(
        default=None, ge=lowest("sampling.temperature"), le=highest("sampling.temperature")
    )
    top_p: float | None = Field(
        default=None, ge=lowest("sampling.top_p"), le=highest("sampling.top_p")
    )
    top_k: int | None = Field(default=None, ge=0, le=1000)
    min_p: float | None = Field(default=None, ge=0.0, le=1.0)
    seed: int | None = Field(default=None, ge=-1, le=highest("sampling.seed"))
    # -1: no limit, -2: until the context is full (both: the server's own limit)
    num_predict: int | None = Field(default=None, ge=-2, le=highest("sampling.max_tokens"))
    stop: list[str] | None = Field(default=None, max_length=4)
    repeat_penalty: float | None = Field(default=None, ge=0.0, le=10.0)
    presence_penalty: float | None = Field(default=None, ge=-2.0, le=2.0)
    frequency_penalty: float | None = Field(default=None, ge=-2.0, le=2.0)

    @field_validator("stop")
    @classmethod
    def _stops_in_range(cls, stop: list[str] | None) -> list[str] | None:
        if any(not 1 <= len(text) <= MAX_STOP_CHARS for text in stop or []):
            raise ValueError(f"each stop string must be 1 to {MAX_STOP_CHARS} characters")
        return stop

    def params(self) -> dict[str, Any]:
        params: dict[str, Any] = {}
        for key in (
            "temperature",
            "top_p",
            "top_k",
            "min_p",
            "repeat_penalty",
            "presence_penalty",
            "frequency_penalty",
        ):
            if getattr(self, key) is not None:
                params[key] = getattr(self, key)
        if self.seed is not None and self.seed >= 0:
            params["seed"] = self.seed
        if self.num_predict is not None and self.num_predict > 0:
            params["max_tokens"] = self.num_predict
        if self.stop:
            params["stop"] = list(self.stop)
        return params


class OllamaFunctionCall(BaseModel):
    model_config = ConfigDict(extra="ignore")
    name: str = Field(pattern=NAME_PATTERN)
    arguments: dict[str, Any] = Field(default_factory=dict)


class OllamaToolCall(BaseModel):
    model_config = ConfigDict(extra="ignore")
    function: OllamaFunctionCall


class OllamaMessage(BaseModel):
    model_config = ConfigDict(extra="ignore")
    role: Literal["system", "user", "assistant", "tool"]
    content: str = Field(default="", max_length=1_000_000)
    images: list[str] | None = None
    tool_calls: list[OllamaToolCall] | None = Field(default=None, max_length=MAX_TOOLS)
    tool_name: str | None = Field(default=None, pattern=NAME_PATTERN)

    @field_validator("content")
    @classmethod
    def _text_only(cls, content: str) -> str:
        return unicode_text(content)

    @field_validator("images")
    @classmethod
    def _no_images(cls, images: list[str] | None) -> list[str] | None:
        if images:
            raise ValueError("this server's models read text only, not images")
        return images


FormatField = Literal["json"] | dict[str, Any] | None


class _Generation(BaseModel):
    """What ``/api/chat`` and ``/api/generate`` share."""

    model_config = ConfigDict(extra="ignore")
    model: str = Field(default="", max_length=500)
    stream: bool = True
    format: FormatField = None
    options: OllamaOptions | None = None
    keep_alive: str | int | float | None = None
    think: bool | str | None = None

    def response_format(self) -> dict[str, Any] | None:
        """``format`` as the engines' ``response_format``."""
        if self.format == "json":
            return {"type": "json_object"}
        if isinstance(self.format, dict):
            return {"type": "json_schema", "json_schema": {"name": "format", "schema": self.format}}
        return None

    def params(self, defaults: dict[str, Any]) -> dict[str, Any]:
        params = {**defaults, **(self.options.params() if self.options else {})}
        wanted = self.response_format()
        if wanted is not None:
            params["response_format"] = wanted
        return params


class OllamaChat(_Generation):
    messages: list[OllamaMessage] = Field(default_factory=list, max_length=10_000)
    tools: list[ToolSpec] | None = Field(default=None, max_length=MAX_TOOLS)

    def params(self, defaults: dict[str, Any]) -> dict[str, Any]:
        params = super().params(defaults)
        if self.tools:
            params["tools"] = [tool.model_dump(exclude_none=True) for tool in self.tools]
            params["tool_choice"] = "auto"
        return params

    def tool_names(self) -> set[str]:
        return {tool.function.name for tool in self.tools or []}


class OllamaGenerate(_Generation):
    prompt: str = Field(default="", max_length=1_000_000)
    system: str | None = Field(default=None, max_length=1_000_000)
    suffix: str | None = None
    raw: bool = False
    images: list[str] | None = None

    @field_validator("prompt")
    @classmethod
    def _text_only(cls, prompt: str) -> str:
        return unicode_text(prompt)


class OllamaEmbed(BaseModel):
    model_config = ConfigDict(extra="ignore")
    model: str = Field(default="", max_length=500)
    input: str | list[str]
    truncate: bool = True  # inputs are never cut here: a long one is refused in words
    keep_alive: str | int | float | None = None

    @field_validator("input")
    @classmethod
    def _inputs(cls, value: str | list[str]) -> str | list[str]:
        inputs_of(value)
        return value


class OllamaEmbeddings(BaseModel):
    model_config = ConfigDict(extra="ignore")
    model: str = Field(default="", max_length=500)
    prompt: str

    @field_validator("prompt")
    @classmethod
    def _input(cls, value: str) -> str:
        inputs_of(value)
        return value


class ModelFacts:
    """What Ollama's listing routes say about a model, from the library's entry (passed in
    by whoever starts the server: its ``path``, ``engine``, size and architecture) and the
    file itself."""

    def __init__(self, name: str, facts: dict[str, Any]) -> None:
        self.name, self.facts = name, facts
        self.path = str(facts.get("path") or "")
        self.engine = str(facts.get("engine") or LLAMA_CPP)
        self.ollama_name = ollama_name(name)

    def size(self) -> int:
        size = self.facts.get("size_bytes")
        if isinstance(size, int):
            return size
        try:
            return os.path.getsize(self.path)
        except OSError:
            return 0

    def digest(self) -> str:
        """A stable identity of the file (its path, size and time), not a hash of its
        gigabytes: Ollama's clients use the digest to tell models apart."""
        try:
            stat = os.stat(self.path)
            identity = f"{self.path}|{stat.st_size}|{stat.st_mtime_ns}"
        except OSError:
            identity = self.path or self.name
        return hashlib.sha256(identity.encode()).hexdigest()

    def modified_at(self) -> str:
        try:
            stamp = os.path.getmtime(self.path)
        except OSError:
            stamp = time.time()
        return _iso(stamp)

    def details(self) -> dict[str, Any]:
        family = str(self.facts.get("architecture") or "")
        parameters = self.facts.get("parameters")
        return {
            "parent_model": "",
            "format": "safetensors" if self.engine == TRANSFORMERS else "gguf",
            "family": family,
            "families": [family] if family else None,
            "parameter_size": _parameter_size(parameters) if isinstance(parameters, int) else "",
            "quantization_level": str(self.facts.get("quantization") or ""),
        }

    def listed(self) -> dict[str, Any]:
        return {
            "name": self.ollama_name,
            "model": self.ollama_name,
            "modified_at": self.modified_at(),
            "size": self.size(),
            "digest": self.digest(),
            "details": self.details(),
        }

    def names(self) -> set[str]:
        base = self.ollama_name.split(":", 1)[0]
        return {self.ollama_name, base, self.name, self.name.lower()}


def _iso(stamp: float) -> str:
    return datetime.fromtimestamp(stamp, UTC).isoformat().replace("+00:00", "Z")


def _parameter_size(parameters: int) -> str:
    """Ollama's ``parameter_size``: 135M, 7.6B."""
    if parameters >= 1_000_000_000:
        return f"{parameters / 1e9:.1f}B"
    return f"{parameters / 1e6:.0f}M"


def error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


Take = Callable[[Request, str | None, float | None], Awaitable[Any]]


def keep_alive_seconds(value: str | int | float | None) -> float | None:
    """Ollama's ``keep_alive`` in seconds: a number of seconds or a duration ("5m",
    "1h30m", "10s"); negative means for as long as the server runs; None: the setting."""
    if value is None:
        return None
    if isinstance(value, int | float):
        return float("inf") if value < 0 else float(value)
    text = value.strip().lower()
    if text.startswith("-") and text.strip("-0.smh"):
        return float("inf")
    text = text.lstrip("-")
    parts = re.findall(r"(\d+(?:\.\d+)?)(ms|h|m|s)?", text)
    if not parts or "".join(n + u for n, u in parts) != text:
        raise ValueError(f"keep_alive {value!r} is not a duration such as 5m or 30s")
    scale = {"h": 3600.0, "m": 60.0, "s": 1.0, "ms": 0.001, "": 1.0}
    return sum(float(number) * scale[unit] for number, unit in parts)


def register(app: FastAPI, models: ServedModels, take: Take) -> None:
    """Add Ollama's routes to the server's app.  ``take`` gives a request's model (or the
    refusal to answer)."""

    def facts_of(name: str) -> ModelFacts | None:
        for listed, facts in models.listed():
            model = ModelFacts(listed, facts)
            if name in model.names() or name.lower() in model.names():
                return model
        return None

    @app.get("/api/version")
    async def version() -> dict[str, Any]:
        return {"version": OLLAMA_VERSION}

    @app.get("/api/tags")
    async def tags() -> dict[str, Any]:
        return {"models": [ModelFacts(n, f).listed() for n, f in models.listed()]}

    @app.post("/api/show")
    async def show(body: dict[str, Any]) -> Any:
        asked = str(body.get("model") or body.get("name") or "")
        listed = models.listed()
        model = facts_of(asked) if asked else (ModelFacts(*listed[0]) if listed else None)
        if model is None:
            names = ", ".join(ollama_name(n) for n, _f in listed[:5])
            return error(404, f"model '{asked}' not found; this server has {names}")
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
            "capabilities": _capabilities(model.engine),
            "modified_at": model.modified_at(),
        }

    @app.get("/api/ps")
    async def ps() -> dict[str, Any]:
        listing = []
        for running in models.running():
            model = ModelFacts(running.name, {**running.facts, "path": running.spec.path})
            listing.append(
                {
                    **model.listed(),
                    "size": running.memory_bytes or model.size(),
                    "size_vram": running.vram_bytes,
                    "context_length": running.context_length,
                    "expires_at": _iso(min(running.expires_at, 1e10)),
                }
            )
        return {"models": listing}

    async def served_for(body: _Generation, request: Request) -> Any:
        try:
            keep = keep_alive_seconds(body.keep_alive)
        except ValueError as exc:
            return error(400, str(exc))
        return await take(request, body.model or None, keep)

    def unloading(body: _Generation, field: str) -> dict[str, Any] | None:
        """Ollama's way to unload a model (``ollama stop``): nothing to generate and a
        keep_alive of 0.  The model is not loaded for it."""
        try:
            keep = keep_alive_seconds(body.keep_alive)
        except ValueError:
            return None
        if keep != 0:
            return None
        models.unload(body.model or None)
        return {**_loaded(body.model, field), "done_reason": "unload"}

    @app.post("/api/chat")
    async def chat(body: OllamaChat, request: Request) -> Any:
        if not body.messages and (answer := unloading(body, "message")) is not None:
            return answer
        served = await served_for(body, request)
        if not isinstance(served, Served):
            return served

        async def produce() -> Any:
            if not body.messages:  # Ollama: an empty chat loads the model
                return _loaded(body.model, "message")
            refusal = _refusal(body, served.spec)
            if refusal:
                return error(400, refusal)
            messages = [_engine_message(m) for m in body.messages]
            name = body.model or ollama_name(served.name)
            reply = _Reply(served.client, served.spec, name, "message", body.tool_names())
            params = body.params(served.defaults)
            return await reply.answer(messages, params, body.stream, request)

        return await answered(served, produce)

    @app.post("/api/generate")
    async def generate(body: OllamaGenerate, request: Request) -> Any:
        nothing = not (body.prompt or body.system or body.suffix)
        if nothing and (answer := unloading(body, "response")) is not None:
            return answer
        served = await served_for(body, request)
        if not isinstance(served, Served):
            return served

        async def produce() -> Any:
            return await _generate(body, served, request)

        return await answered(served, produce)

    @app.post("/api/embed")
    async def embed_route(body: OllamaEmbed, request: Request) -> Any:
        started = time.perf_counter()
        served = await take(request, body.model or None, None)
        if not isinstance(served, Served):
            return served
        done = await embed_for(served, inputs_of(body.input))
        if not isinstance(done, Embedded):
            return _engine_error(done)
        return {
            "model": body.model or ollama_name(served.name),
            "embeddings": done.vectors,
            "total_duration": int((time.perf_counter() - started) * 1e9),
            "load_duration": 0,
            "prompt_eval_count": done.prompt_tokens,
        }

    @app.post("/api/embeddings")
    async def embeddings_route(body: OllamaEmbeddings, request: Request) -> Any:
        """Ollama's older route: one prompt, one ``embedding``."""
        served = await take(request, body.model or None, None)
        if not isinstance(served, Served):
            return served
        done = await embed_for(served, inputs_of(body.prompt))
        if not isinstance(done, Embedded):
            return _engine_error(done)
        return {"embedding": done.vectors[0]}

    for route in WRITE_ROUTES:

        async def refused(route: str = route) -> JSONResponse:
            return error(403, WRITES_REFUSED.format(route))

        app.add_api_route(f"/api/{route}", refused, methods=["POST", "DELETE"])

    @app.api_route("/api/blobs/{digest}", methods=["HEAD", "POST"])
    async def blobs(digest: str) -> JSONResponse:
        return error(403, WRITES_REFUSED.format("blobs"))


async def _generate(body: OllamaGenerate, served: Served, request: Request) -> Any:
    if not (body.prompt or body.system or body.suffix):  # Ollama: nothing asked: a load
        return _loaded(body.model, "response")
    raw = body.raw or body.suffix is not None
    refusal = _refusal(body, served.spec)
    if raw and served.spec.engine not in (LLAMA_CPP, SYNTHETIC):
        refusal = "raw prompts and suffix (fill-in-the-middle) need a GGUF model for now"
    if body.images:
        refusal = "this server's models read text only, not images"
    if refusal:
        return error(400, refusal)
    name = body.model or ollama_name(served.name)
    reply = _Reply(served.client, served.spec, name, "response")
    params = body.params(served.defaults)
    if raw:  # the prompt as it is (raw), or the middle between prompt and suffix
        return await reply.answer([], params, body.stream, request, raw=(body.prompt, body.suffix))
    messages = []
    if body.system:
        messages.append({"role": "system", "content": body.system})
    messages.append({"role": "user", "content": body.prompt})
    return await reply.answer(messages, params, body.stream, request)


def _refusal(body: _Generation, model: ModelSpec) -> str | None:
    if body.response_format() is not None and model.engine == TRANSFORMERS:
        return JSON_NEEDS_GGUF.format("format")
    if isinstance(body, OllamaChat) and body.tools and model.engine == REMOTE:
        return "tools are not passed to a remote endpoint yet; call it directly"
    return None


def _capabilities(engine: str) -> list[str]:
    """What Ollama's clients may ask of the model (Continue offers tools only when listed);
    fill-in-the-middle ("insert") depends on the model's tokens, which the request finds."""
    if engine == LLAMA_CPP:
        return ["completion", "tools", "embedding"]
    return ["completion", "tools"]


def _engine_message(message: OllamaMessage) -> dict[str, Any]:
    """The message as the engines take it (earlier tool calls in OpenAI's shape, which
    the engines read)."""
    engine: dict[str, Any] = {"role": message.role, "content": message.content}
    if message.tool_calls:
        engine["tool_calls"] = [
            {"id": "", "type": "function", "function": call.function.model_dump()}
            for call in message.tool_calls
        ]
    if message.tool_name:
        engine["name"] = message.tool_name
    return engine


def _loaded(model: str, field: str) -> dict[str, Any]:
    """Ollama's answer to a request that only asks for the model to be loaded."""
    empty: Any = {"role": "assistant", "content": ""} if field == "message" else ""
    return {
        "model": model,
        "created_at": now_iso(),
        field: empty,
        "done": True,
        "done_reason": "load",
    }


class _Reply:
    """One generation answered in Ollama's shape: NDJSON lines as it streams, or one
    object at the end.  ``field`` is ``message`` (``/api/chat``) or ``response``."""

    def __init__(
        self,
        client: EngineClient,
        spec: ModelSpec,
        model: str,
        field: str,
        tool_names: set[str] | None = None,
    ) -> None:
        self.client, self.spec, self.model, self.field = client, spec, model, field
        self.tool_names = tool_names or set()
        self.started = time.perf_counter()

    def _piece(self, text: str, thinking: str, calls: Sequence[ToolCall] = ()) -> dict[str, Any]:
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

    def _line(self, payload: dict[str, Any]) -> dict[str, Any]:
        return {"model": self.model, "created_at": now_iso(), **payload}

    def _final(self, done: dict[str, Any], stats: dict[str, Any]) -> dict[str, Any]:
        total_ns = int((time.perf_counter() - self.started) * 1e9)
        prompt_ns = int(float(stats.get("ttft_ms") or 0) * NS_PER_MS)
        engine_ns = int(float(stats.get("total_ms") or 0) * NS_PER_MS)
        return {
            "done": True,
            "done_reason": "length" if done.get("finish_reason") == "length" else "stop",
            "total_duration": total_ns,
            "load_duration": 0,
            "prompt_eval_count": int(stats.get("prompt_tokens") or 0),
            "prompt_eval_duration": prompt_ns,
            "eval_count": int(stats.get("generated_tokens") or 0),
            "eval_duration": max(engine_ns - prompt_ns, 0),
        }

    async def answer(
        self,
        messages: list[dict[str, Any]],
        params: dict[str, Any],
        stream: bool,
        request: Request,
        raw: tuple[str, str | None] | None = None,
    ) -> Any:
        relay = Relay()
        if raw is not None:
            prompt, suffix = raw
            job = self.client.complete(self.spec, prompt, params, relay.put, suffix=suffix)
        else:
            job = self.client.chat(self.spec, messages, params, relay.put)
        first = await relay.first(request, job)
        if first["type"] == protocol.ERROR:
            return _engine_error(first)
        if stream:
            return StreamingResponse(self._lines(relay, job), media_type="application/x-ndjson")
        return await self._whole(relay, job, request)

    async def _whole(self, relay: Relay, job: Any, request: Request) -> Any:
        text: list[str] = []
        thinking: list[str] = []
        stats: dict[str, Any] = {}
        done: dict[str, Any] = {}
        async for event in relay.events_until_gone(request, job):
            if event["type"] == protocol.DELTA:
                if event.get(protocol.MOVED_TO_REASONING):
                    thinking, text = thinking + text, []
                text.append(event.get(protocol.DELTA_TEXT) or "")
                thinking.append(event.get(protocol.DELTA_REASONING) or "")
            elif event["type"] == protocol.STATS:
                stats = event
            elif event["type"] == protocol.ERROR:
                return _engine_error(event)
            elif event["type"] == protocol.DONE:
                done = event
        whole = "".join(text)
        rest, calls = parse_tool_calls(whole, self.tool_names) if self.tool_names else (whole, [])
        piece = self._piece(rest, "".join(thinking), calls)
        return self._line({**piece, **self._final(done, stats)})

    async def _lines(self, relay: Relay, job: Any) -> AsyncIterator[str]:
        stats: dict[str, Any] = {}
        held = ToolCallStream(self.tool_names) if self.tool_names else None
        try:
            async for event in relay.events():
                kind = event["type"]
                if kind == protocol.DELTA and (event.get("text") or event.get("reasoning")):
                    text = event.get("text") or ""
                    text = held.feed(text) if held else text
                    if text or event.get("reasoning"):
                        piece = self._piece(text, event.get("reasoning") or "")
                        yield json.dumps(self._line({**piece, "done": False})) + "\n"
                elif kind == protocol.STATS:
                    stats = event
                elif kind == protocol.DONE:
                    rest, calls = held.finish() if held else ("", [])
                    if rest or calls:  # Ollama sends the calls in a line of their own
                        piece = self._piece(rest, "", calls)
                        yield json.dumps(self._line({**piece, "done": False})) + "\n"
                    final = {**self._piece("", ""), **self._final(event, stats)}
                    yield json.dumps(self._line(final)) + "\n"
                elif kind == protocol.ERROR:
                    yield json.dumps({"error": str(event.get("message"))}) + "\n"
        finally:
            if not job.finished:
                job.cancel()  # the client went away: stop generating


def _engine_error(event: dict[str, Any]) -> JSONResponse:
    return error(engine_status(event), str(event.get("message")))
