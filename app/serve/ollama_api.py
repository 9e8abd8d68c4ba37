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
from collections.abc import AsyncIterator, Callable, Sequence
from datetime import UTC, datetime
from typing import Any, Literal

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, StreamingResponse
from pydantic import BaseModel, ConfigDict, Field, field_validator

from app.engine_client import EngineClient
from app.serve.embeddings import Embedded, embed, inputs_of
from app.serve.openai_chat import (
    JSON_NEEDS_GGUF,
    MAX_STOP_CHARS,
    unicode_text,
)
from app.serve.openai_tools import MAX_TOOLS, NAME_PATTERN, ToolSpec
from app.serve.relay import Relay, engine_status
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
# Quantisation names as GGUF files end with them (Q4_K_M, IQ3_XS, F16, BF16…).
QUANT_SUFFIX = re.compile(r"[.-]((?:I?Q\d\w*)|F16|F32|BF16)$", re.IGNORECASE)
NS_PER_MS = 1_000_000


def ollama_name(model_name: str) -> str:
    """Ollama's ``name:tag`` for a model: ``SmolLM2-135M-Instruct.Q4_1`` becomes
    ``smollm2-135m-instruct:q4_1``; a name without a quantisation gets ``:latest``."""
    match = QUANT_SUFFIX.search(model_name)
    if match:
        return f"{model_name[: match.start()].lower()}:{match.group(1).lower()}"
    return f"{model_name.lower()}:latest"


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
    """What Ollama's listing routes say about the served model, from the library's entry
    (passed in by whoever starts the server) and the file itself."""

    def __init__(self, name: str, spec: ModelSpec, facts: dict[str, Any]) -> None:
        self.name, self.spec, self.facts = name, spec, facts
        self.ollama_name = ollama_name(name)

    def size(self) -> int:
        size = self.facts.get("size_bytes")
        if isinstance(size, int):
            return size
        try:
            return os.path.getsize(self.spec.path)
        except OSError:
            return 0

    def digest(self) -> str:
        """A stable identity of the file (its path, size and time), not a hash of its
        gigabytes: Ollama's clients use the digest to tell models apart."""
        try:
            stat = os.stat(self.spec.path)
            identity = f"{self.spec.path}|{stat.st_size}|{stat.st_mtime_ns}"
        except OSError:
            identity = str(self.spec.path)
        return hashlib.sha256(identity.encode()).hexdigest()

    def modified_at(self) -> str:
        try:
            stamp = os.path.getmtime(self.spec.path)
        except OSError:
            stamp = time.time()
        return datetime.fromtimestamp(stamp, UTC).isoformat().replace("+00:00", "Z")

    def details(self) -> dict[str, Any]:
        family = str(self.facts.get("architecture") or "")
        parameters = self.facts.get("parameters")
        return {
            "parent_model": "",
            "format": "gguf" if self.spec.engine != TRANSFORMERS else "safetensors",
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


def _parameter_size(parameters: int) -> str:
    """Ollama's ``parameter_size``: 135M, 7.6B."""
    if parameters >= 1_000_000_000:
        return f"{parameters / 1e9:.1f}B"
    return f"{parameters / 1e6:.0f}M"


def error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


def register(
    app: FastAPI,
    client: EngineClient,
    spec: Callable[[], ModelSpec],
    model_name: str,
    facts: Callable[[], dict[str, Any]],
    defaults: Callable[[], dict[str, Any]],
) -> None:
    """Add Ollama's routes to the server's app."""

    def served() -> ModelFacts:
        return ModelFacts(model_name, spec(), facts())

    @app.get("/api/version")
    async def version() -> dict[str, Any]:
        return {"version": OLLAMA_VERSION}

    @app.get("/api/tags")
    async def tags() -> dict[str, Any]:
        return {"models": [served().listed()]}

    @app.post("/api/show")
    async def show(body: dict[str, Any]) -> Any:
        model = served()
        asked = str(body.get("model") or body.get("name") or "")
        if asked and asked not in model.names():
            return error(404, f"model '{asked}' not found; this server has '{model.ollama_name}'")
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
            "capabilities": _capabilities(model.spec),
            "modified_at": model.modified_at(),
        }

    @app.get("/api/ps")
    async def ps() -> dict[str, Any]:
        model = served()
        loaded = client.loaded_model
        if loaded is None:
            return {"models": []}
        return {
            "models": [
                {
                    **model.listed(),
                    "size": _worker_memory(client) or model.size(),
                    "size_vram": 0,
                    "context_length": loaded.n_ctx,
                    # loaded while the server runs
                    "expires_at": "2318-01-01T00:00:00Z",
                }
            ]
        }

    @app.post("/api/chat")
    async def chat(body: OllamaChat, request: Request) -> Any:
        model = spec()
        if not body.messages:  # Ollama: an empty chat loads the model
            return _loaded(body.model, "message")
        refusal = _refusal(body, model)
        if refusal:
            return error(400, refusal)
        messages = [_engine_message(m) for m in body.messages]
        reply = _Reply(client, model, body.model or model_name, "message", body.tool_names())
        return await reply.answer(messages, body.params(defaults()), body.stream, request)

    @app.post("/api/generate")
    async def generate(body: OllamaGenerate, request: Request) -> Any:
        model = spec()
        if not (body.prompt or body.system or body.suffix):  # Ollama: nothing asked: a load
            return _loaded(body.model, "response")
        raw = body.raw or body.suffix is not None
        refusal = _refusal(body, model)
        if raw and model.engine not in (LLAMA_CPP, SYNTHETIC):
            refusal = "raw prompts and suffix (fill-in-the-middle) need a GGUF model for now"
        if body.images:
            refusal = "this server's models read text only, not images"
        if refusal:
            return error(400, refusal)
        reply = _Reply(client, model, body.model or model_name, "response")
        params = body.params(defaults())
        if raw:  # the prompt as it is (raw), or the middle between prompt and suffix
            return await reply.answer(
                [], params, body.stream, request, raw=(body.prompt, body.suffix)
            )
        messages = []
        if body.system:
            messages.append({"role": "system", "content": body.system})
        messages.append({"role": "user", "content": body.prompt})
        return await reply.answer(messages, params, body.stream, request)

    @app.post("/api/embed")
    async def embed_route(body: OllamaEmbed) -> Any:
        started = time.perf_counter()
        done = await embed(client, spec(), inputs_of(body.input))
        if not isinstance(done, Embedded):
            return _engine_error(done)
        return {
            "model": body.model,
            "embeddings": done.vectors,
            "total_duration": int((time.perf_counter() - started) * 1e9),
            "load_duration": 0,
            "prompt_eval_count": done.prompt_tokens,
        }

    @app.post("/api/embeddings")
    async def embeddings_route(body: OllamaEmbeddings) -> Any:
        """Ollama's older route: one prompt, one ``embedding``."""
        done = await embed(client, spec(), inputs_of(body.prompt))
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


def _refusal(body: _Generation, model: ModelSpec) -> str | None:
    if body.response_format() is not None and model.engine == TRANSFORMERS:
        return JSON_NEEDS_GGUF.format("format")
    if isinstance(body, OllamaChat) and body.tools and model.engine == REMOTE:
        return "tools are not passed to a remote endpoint yet; call it directly"
    return None


def _capabilities(spec: ModelSpec) -> list[str]:
    """What Ollama's clients may ask of the model (Continue offers tools only when listed);
    fill-in-the-middle ("insert") depends on the model's tokens, which the request finds."""
    if spec.engine == LLAMA_CPP:
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


def _worker_memory(client: EngineClient) -> int:
    """The worker's resident memory in bytes (0 when it cannot be read)."""
    pid = client.worker_pid
    if pid is None:
        return 0
    try:
        import psutil

        return int(psutil.Process(pid).memory_info().rss)
    except Exception:  # noqa: BLE001 - a figure for a listing; the worker may have just ended
        return 0


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
