"""OpenAI's ``POST /v1/chat/completions``: the request as Hearth validates it, and the
reply, streamed as server-sent events or whole.

``stop`` (a string or up to four) ends the reply in every engine, ``seed`` serves its own
request only (the engines build their sampling state per request), and ``n`` choices are
generated one after another, up to ``MAX_CHOICES``.  ``presence_penalty``,
``frequency_penalty`` and ``logit_bias`` (in the model's token ids) are honoured by every
engine; ``response_format`` (``json_object``, ``json_schema``) is enforced by grammar in
llama.cpp, passed on by the remote engine, and refused with 400 for a transformers model,
which has no grammar.  ``tools`` reach the model through its chat template (or Hearth's
Hermes-style prompt when the template has none), its calls are read out of the reply in
the Hermes/Qwen, Mistral and Llama 3 formats (``app.serve.tool_calls``) and returned as
``tool_calls`` with ``finish_reason: "tool_calls"``; ``tool_choice`` ``"required"`` or a
named function is enforced by grammar in llama.cpp.  ``logprobs``/``top_logprobs`` come
from llama.cpp's logits (the model's own probabilities, before the sampling settings), in
each chunk for the tokens it holds.  A stream carries usage only when asked
(``stream_options.include_usage``), in a last chunk without choices, as OpenAI's does.
"""

from __future__ import annotations

import json
import re
import time
import uuid
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from fastapi import Request
from fastapi.responses import JSONResponse, StreamingResponse
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from app.engine_client import EngineClient
from app.serve.openai_tools import (
    ID_PATTERN,
    MAX_TOOLS,
    NAME_PATTERN,
    ToolCallIn,
    ToolChoice,
    ToolSpec,
    choice_problem,
)
from app.serve.relay import Relay, engine_status
from app.serve.tool_calls import ToolCallStream, parse_tool_calls
from app.settings import highest, lowest
from wire import protocol
from wire.model_spec import LLAMA_CPP, REMOTE, SYNTHETIC, TRANSFORMERS, ModelSpec

MAX_CHOICES = 4  # n: each choice is a whole generation, one after another
LOGPROB = "logprob"  # the engine's notice for one token's probabilities
MAX_STOPS = 4  # as OpenAI's API
MAX_STOP_CHARS = 200
MAX_BIASED_TOKENS = 300  # as OpenAI's API
JSON_NEEDS_GGUF = (
    "{0} needs a GGUF model: llama.cpp enforces it by grammar, and this server's model runs "
    "in transformers, which has none."
)


def unicode_text(text: str) -> str:
    """JSON may carry lone surrogates (``\\ud800``), which are no text: refused with the
    field's name rather than passed to a tokenizer."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError("the text contains lone surrogates (\\ud800-\\udfff)") from None
    return text


class TextPart(BaseModel):
    """A part of a message's content; only text is understood (a model here reads no
    images), so any other part is refused by its type."""

    model_config = ConfigDict(extra="ignore")
    type: Literal["text"]
    text: str = Field(max_length=1_000_000)

    @field_validator("text")
    @classmethod
    def _text_only(cls, text: str) -> str:
        return unicode_text(text)


class ChatMessage(BaseModel):
    model_config = ConfigDict(extra="ignore")
    # "developer" is what newer OpenAI clients send for "system".
    role: Literal["system", "developer", "user", "assistant", "tool"]
    # None: an assistant message that only calls tools.
    content: str | list[TextPart] | None = Field(default=None, max_length=1_000_000)
    tool_calls: list[ToolCallIn] | None = Field(default=None, max_length=MAX_TOOLS)
    tool_call_id: str | None = Field(default=None, pattern=ID_PATTERN)
    name: str | None = Field(default=None, pattern=NAME_PATTERN)

    @field_validator("content")
    @classmethod
    def _text_only(cls, content: str | list[TextPart] | None) -> str | list[TextPart] | None:
        return unicode_text(content) if isinstance(content, str) else content

    @model_validator(mode="after")
    def _something_said(self) -> ChatMessage:
        if self.content is None and not (self.role == "assistant" and self.tool_calls):
            raise ValueError("content is required (only an assistant's tool calls may stand alone)")
        return self

    def as_engine_message(self) -> dict[str, Any]:
        """The message as the engines take it: text content, the system role, and the
        tool parts as the templates read them."""
        if self.content is None or isinstance(self.content, str):
            text = self.content or ""
        else:
            text = "\n".join(part.text for part in self.content)
        message: dict[str, Any] = {
            "role": "system" if self.role == "developer" else self.role,
            "content": text,
        }
        if self.tool_calls:
            message["tool_calls"] = [call.model_dump() for call in self.tool_calls]
        if self.tool_call_id is not None:
            message["tool_call_id"] = self.tool_call_id
        if self.name is not None:
            message["name"] = self.name
        return message


class HearthOptions(BaseModel):
    """Hearth's own request options (``"hearth": {...}`` in the body; other servers'
    clients never send it): answer from document collections, with sources."""

    model_config = ConfigDict(extra="forbid")
    collections: list[str] = Field(default_factory=list, max_length=16)
    k: int = Field(default=6, ge=1, le=20)  # passages at most


class StreamOptions(BaseModel):
    model_config = ConfigDict(extra="ignore")
    include_usage: bool = False


class JsonSchemaFormat(BaseModel):
    model_config = ConfigDict(extra="ignore", populate_by_name=True)
    name: str = Field(default="response", max_length=64)
    schema_: dict[str, Any] = Field(default_factory=dict, alias="schema")
    strict: bool | None = None


class ResponseFormat(BaseModel):
    """What the reply must be: text, any JSON object, or JSON that matches a schema."""

    model_config = ConfigDict(extra="ignore")
    type: Literal["text", "json_object", "json_schema"]
    json_schema: JsonSchemaFormat | None = None

    @model_validator(mode="after")
    def _schema_given(self) -> ResponseFormat:
        if self.type == "json_schema" and self.json_schema is None:
            raise ValueError("type json_schema needs a json_schema object with its schema")
        return self

    @property
    def wants_json(self) -> bool:
        return self.type != "text"

    def as_param(self) -> dict[str, Any]:
        return self.model_dump(by_alias=True, exclude_none=True)


class Sampling(BaseModel):
    """The sampling fields chat and completions share, with their checks.  Ranges come
    from the one settings declaration (a request may not ask for "unlimited" tokens or a
    random seed by number: it leaves them out)."""

    model_config = ConfigDict(extra="ignore")
    model: str | None = None
    stream: bool = False
    temperature: float | None = Field(
        default=None, ge=lowest("sampling.temperature"), le=highest("sampling.temperature")
    )
    top_p: float | None = Field(
        default=None, ge=lowest("sampling.top_p"), le=highest("sampling.top_p")
    )
    max_tokens: int | None = Field(default=None, ge=1, le=highest("sampling.max_tokens"))
    n: int = Field(default=1, ge=1, le=MAX_CHOICES)
    seed: int | None = Field(default=None, ge=0, le=highest("sampling.seed"))
    stop: str | list[str] | None = None
    presence_penalty: float | None = Field(default=None, ge=-2.0, le=2.0)
    frequency_penalty: float | None = Field(default=None, ge=-2.0, le=2.0)
    logit_bias: dict[str, float] | None = None

    @field_validator("logit_bias")
    @classmethod
    def _bias_in_range(cls, bias: dict[str, float] | None) -> dict[str, float] | None:
        for token, amount in (bias or {}).items():
            if not re.fullmatch(r"[0-9]+", token):
                raise ValueError(f"keys must be token ids, not {token[:20]!r}")
            if not -100 <= amount <= 100:
                raise ValueError(f"each bias must be from -100 to 100, not {amount}")
        if bias is not None and len(bias) > MAX_BIASED_TOKENS:
            raise ValueError(f"at most {MAX_BIASED_TOKENS} tokens")
        return bias

    @field_validator("stop")
    @classmethod
    def _stops_in_range(cls, stop: str | list[str] | None) -> str | list[str] | None:
        """An empty stop string would end every reply at once: refused, as too many are."""
        listed = [stop] if isinstance(stop, str) else list(stop or [])
        if len(listed) > MAX_STOPS:
            raise ValueError(f"at most {MAX_STOPS} stop strings")
        if any(not 1 <= len(text) <= MAX_STOP_CHARS for text in listed):
            raise ValueError(f"each stop string must be 1 to {MAX_STOP_CHARS} characters")
        return stop

    def stops(self) -> list[str]:
        return [self.stop] if isinstance(self.stop, str) else list(self.stop or [])

    def reply_limit(self) -> int | None:
        return self.max_tokens

    def params(self, defaults: dict[str, Any]) -> dict[str, Any]:
        """The engine's parameters: the server's defaults, then what the request set."""
        params = dict(defaults)
        for key in ("temperature", "top_p", "seed", "presence_penalty", "frequency_penalty"):
            if getattr(self, key) is not None:
                params[key] = getattr(self, key)
        if self.logit_bias:
            params["logit_bias"] = dict(self.logit_bias)
        limit = self.reply_limit()
        if limit is not None:
            params["max_tokens"] = limit
        stops = self.stops()
        if stops:
            params["stop"] = stops
        return params


class ChatRequest(Sampling):
    messages: list[ChatMessage] = Field(min_length=1, max_length=10_000)
    stream_options: StreamOptions | None = None
    max_completion_tokens: int | None = Field(default=None, ge=1, le=highest("sampling.max_tokens"))
    response_format: ResponseFormat | None = None
    tools: list[ToolSpec] | None = Field(default=None, max_length=MAX_TOOLS)
    tool_choice: ToolChoice | None = None
    parallel_tool_calls: bool | None = None  # several calls are always allowed
    logprobs: bool = False
    top_logprobs: int | None = Field(default=None, ge=0, le=20)
    hearth: HearthOptions | None = None

    @model_validator(mode="after")
    def _top_needs_logprobs(self) -> ChatRequest:
        if self.top_logprobs and not self.logprobs:
            raise ValueError("top_logprobs needs logprobs: true")
        return self

    @model_validator(mode="after")
    def _choice_fits_the_tools(self) -> ChatRequest:
        problem = choice_problem(self.tools, self.tool_choice)
        if problem:
            raise ValueError(problem)
        return self

    def tool_names(self) -> set[str]:
        """The tools the model may call."""
        if self.tool_choice == "none":
            return set()
        return {tool.function.name for tool in self.tools or []}

    @property
    def include_usage(self) -> bool:
        return bool(self.stream_options and self.stream_options.include_usage)

    def refusal(self, spec: ModelSpec) -> str | None:
        """Why this request cannot be served by ``spec``'s engine (checked before it)."""
        wanted = self.response_format
        if wanted is not None and wanted.wants_json and spec.engine == TRANSFORMERS:
            return JSON_NEEDS_GGUF.format(f"response_format {wanted.type}")
        forced = self.tool_choice not in (None, "auto", "none")
        if self.tools and forced and spec.engine == TRANSFORMERS:
            return JSON_NEEDS_GGUF.format("tool_choice")
        if self.tools and spec.engine == REMOTE:
            return "tools are not passed to a remote endpoint yet; call it directly"
        if self.logprobs and spec.engine not in (LLAMA_CPP, SYNTHETIC):
            return "logprobs need a GGUF model (llama.cpp) for now"
        return None

    def reply_limit(self) -> int | None:
        return self.max_completion_tokens or self.max_tokens

    def params(self, defaults: dict[str, Any]) -> dict[str, Any]:
        params = super().params(defaults)
        if self.response_format is not None and self.response_format.wants_json:
            params["response_format"] = self.response_format.as_param()
        if self.logprobs:
            params["logprobs"] = True
            params["top_logprobs"] = self.top_logprobs or 0
        if self.tools:
            params["tools"] = [tool.model_dump(exclude_none=True) for tool in self.tools]
            choice = self.tool_choice
            params["tool_choice"] = (
                choice.model_dump() if isinstance(choice, BaseModel) else (choice or "auto")
            )
        return params


def choice_params(params: dict[str, Any], index: int) -> dict[str, Any]:
    """Choice ``index`` of ``n``: with a seed, seed + index, so that the choices differ
    and the whole answer is still reproducible."""
    if index and params.get("seed") is not None:
        return {**params, "seed": (int(params["seed"]) + index) % (highest("sampling.seed") + 1)}
    return params


@dataclass
class Choice:
    """One generation's outcome, gathered from its events."""

    text: list[str] = field(default_factory=list)
    reasoning: list[str] = field(default_factory=list)
    usage: dict[str, Any] = field(default_factory=dict)
    final: dict[str, Any] = field(default_factory=dict)
    logprobs: list[dict[str, Any]] = field(default_factory=list)

    def take(self, event: dict[str, Any]) -> None:
        if event["type"] == protocol.NOTICE and event.get("kind") == LOGPROB:
            self.logprobs.append(logprob_entry(event))
        elif event["type"] == protocol.DELTA:
            if event.get(protocol.MOVED_TO_REASONING):
                self.reasoning, self.text = self.reasoning + self.text, []
            self.reasoning.append(event.get(protocol.DELTA_REASONING) or "")
            self.text.append(event.get(protocol.DELTA_TEXT) or "")
        elif event["type"] == protocol.STATS:
            self.usage = usage_of(event)
        elif event["type"] in (protocol.DONE, protocol.ERROR):
            self.final = event


class ChatCompletion:
    """One request's reply: ``n`` generations through the engine client, one at a time."""

    def __init__(
        self,
        client: EngineClient,
        spec: ModelSpec,
        body: ChatRequest,
        params: dict[str, Any],
        model_name: str,
    ) -> None:
        self.client, self.spec, self.body, self.params = client, spec, body, params
        self.model_name = model_name
        self.messages = [m.as_engine_message() for m in body.messages]
        # The passages given to the model from document collections (``hearth`` option):
        # sent back as ``sources`` with the answer (the first chunk of a stream).
        self.sources: list[dict[str, Any]] = []
        self.reply_id = f"chatcmpl-{uuid.uuid4().hex[:24]}"
        self.created = int(time.time())

    def ground(self, context: str, sources: list[dict[str, Any]]) -> None:
        """Put ``context`` (numbered passages) before the last user message's words."""
        self.sources = sources
        for message in reversed(self.messages):
            if message["role"] == "user" and context:
                message["content"] = f"{context}\n\n{message['content']}"
                break

    def question(self) -> str:
        """The last user message: what the collections are searched for."""
        return next((m["content"] for m in reversed(self.messages) if m["role"] == "user"), "")

    def start(self, index: int) -> tuple[Relay, Any]:
        relay = Relay()
        job = self.client.chat(
            self.spec, self.messages, choice_params(self.params, index), relay.put
        )
        return relay, job

    async def whole(self, request: Request, refuse: Callable[..., JSONResponse]) -> Any:
        choices: list[Choice] = []
        for index in range(self.body.n):
            relay, job = self.start(index)
            choice = Choice()
            async for event in relay.events_until_gone(request, job):
                choice.take(event)
            if choice.final.get("finish_reason") == protocol.FINISH_CANCELLED:
                break  # the client went away: the other choices are not generated
            if choice.final.get("type") == protocol.ERROR:
                return refused_by_engine(choice.final, refuse)
            choices.append(choice)
        sources = {"sources": self.sources} if self.sources else {}
        return {
            "id": self.reply_id,
            "object": "chat.completion",
            "created": self.created,
            "model": self.model_name,
            **sources,
            "choices": [
                {
                    "index": index,
                    **self._choice_ending("".join(c.text), "".join(c.reasoning), c.final),
                    "logprobs": {"content": c.logprobs, "refusal": None}
                    if self.body.logprobs
                    else None,
                }
                for index, c in enumerate(choices)
            ],
            "usage": total_usage([c.usage for c in choices]),
        }

    def _choice_ending(self, text: str, reasoning: str, final: dict[str, Any]) -> dict[str, Any]:
        """A whole choice's message and finish reason, with the tool calls read out of it."""
        names = self.body.tool_names()
        rest, calls = parse_tool_calls(text, names) if names else (text, [])
        message = message_of(rest, reasoning)
        if calls:
            message["content"] = rest or None
            message["tool_calls"] = [call.openai() for call in calls]
            return {"message": message, "finish_reason": "tool_calls"}
        return {"message": message, "finish_reason": finish_of(final)}

    def chunk(
        self,
        index: int,
        delta: dict[str, Any],
        finish: str | None = None,
        logprobs: list[dict[str, Any]] | None = None,
    ) -> str:
        choice: dict[str, Any] = {"index": index, "delta": delta, "finish_reason": finish}
        if logprobs:
            choice["logprobs"] = {"content": logprobs, "refusal": None}
        return self._data([choice])

    def _data(self, choices: list[dict[str, Any]], usage: dict[str, Any] | None = None) -> str:
        """One event.  With ``include_usage`` every chunk has ``usage`` (null until the
        last one, which has no choices), as OpenAI's API sends it."""
        payload: dict[str, Any] = {
            "id": self.reply_id,
            "object": "chat.completion.chunk",
            "created": self.created,
            "model": self.model_name,
            "choices": choices,
        }
        if self.body.include_usage:
            payload["usage"] = usage
        if self.sources:  # once, with the first chunk
            payload["sources"], self.sources = self.sources, []
        return "data: " + json.dumps(payload) + "\n\n"

    def _tool_call_chunks(
        self, index: int, calls: ToolCallStream, done: dict[str, Any]
    ) -> list[str]:
        """The end of a streamed choice that may call tools: the held text that is no
        call, then each call whole (name and arguments in one delta), then the finish."""
        rest, found = calls.finish()
        chunks = [self.chunk(index, {"content": rest})] if rest else []
        if found:
            listed = [call.openai(number) for number, call in enumerate(found)]
            chunks.append(self.chunk(index, {"tool_calls": listed}))
        chunks.append(self.chunk(index, {}, "tool_calls" if found else finish_of(done)))
        return chunks

    async def streamed(self, request: Request, refuse: Callable[..., JSONResponse]) -> Any:
        """The stream starts with the engine's first event, so that a request the engine
        refuses before generating (a grammar, a prompt too long) gets its HTTP status."""
        relay, job = self.start(0)
        first = await relay.first(request, job)
        if first["type"] == protocol.ERROR:
            return refused_by_engine(first, refuse)
        return StreamingResponse(
            self._events((relay, job)),
            media_type="text/event-stream",
            headers={"Cache-Control": "no-cache"},
        )

    async def _events(self, started: tuple[Relay, Any]) -> AsyncIterator[str]:
        usages: list[dict[str, Any]] = []
        for index in range(self.body.n):
            relay, job = started if index == 0 else self.start(index)
            usage: dict[str, Any] = {}
            failed = False
            names = self.body.tool_names()
            calls = ToolCallStream(names) if names else None
            pending: list[dict[str, Any]] = []  # token probabilities not yet sent
            try:  # from the first yield on: a client that goes away ends the job
                yield self.chunk(index, {"role": "assistant", "content": ""})
                async for event in relay.events():
                    kind = event["type"]
                    if kind == protocol.NOTICE and event.get("kind") == LOGPROB:
                        pending.append(logprob_entry(event))
                    elif kind == protocol.DELTA and event.get("text"):
                        text = calls.feed(event["text"]) if calls else event["text"]
                        if text:  # with the probabilities of the tokens it holds
                            yield self.chunk(index, {"content": text}, logprobs=pending)
                            pending = []
                    elif kind == protocol.DONE and calls:
                        for chunk in self._tool_call_chunks(index, calls, event):
                            yield chunk
                    elif kind == protocol.DELTA and event.get("reasoning"):
                        pending = []  # thinking tokens: OpenAI's logprobs cover content
                        yield self.chunk(index, {"reasoning_content": event["reasoning"]})
                    elif kind == protocol.STATS:
                        usage = usage_of(event)
                    elif kind == protocol.DONE:
                        yield self.chunk(index, {}, finish_of(event), logprobs=pending)
                    elif kind == protocol.ERROR:
                        failed = True
                        error = {"message": event.get("message"), "type": event.get("kind")}
                        yield "data: " + json.dumps({"error": error}) + "\n\n"
            finally:
                if not job.finished:
                    job.cancel()  # the client went away: stop generating
            usages.append(usage)
            if failed:
                break
        if self.body.include_usage:
            yield self._data([], total_usage(usages))
        yield "data: [DONE]\n\n"


def refused_by_engine(error: dict[str, Any], refuse: Callable[..., JSONResponse]) -> JSONResponse:
    """An engine's error before or instead of a reply, in OpenAI's shape."""
    kind = str(error.get("kind"))
    return refuse(
        engine_status(error),
        str(error.get("message")),
        "invalid_request_error" if kind == protocol.ERR_BAD_REQUEST else kind,
    )


def logprob_entry(event: dict[str, Any]) -> dict[str, Any]:
    """A token's probabilities as OpenAI's ``logprobs.content`` lists them."""
    return {
        "token": event.get("token", ""),
        "logprob": event.get("logprob", 0.0),
        "bytes": event.get("bytes"),
        "top_logprobs": [
            {"token": t.get("token", ""), "logprob": t.get("logprob", 0.0), "bytes": t.get("bytes")}
            for t in event.get("top_logprobs") or []
        ],
    }


def message_of(text: str, reasoning: str) -> dict[str, Any]:
    """The reply as OpenAI's message, with the thinking apart as DeepSeek's and vLLM's
    servers send it (``reasoning_content``)."""
    message: dict[str, Any] = {"role": "assistant", "content": text}
    if reasoning:
        message["reasoning_content"] = reasoning
    return message


def usage_of(stats: dict[str, Any]) -> dict[str, Any]:
    prompt = int(stats.get("prompt_tokens") or 0)
    completion = int(stats.get("generated_tokens") or 0)
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
    }


def total_usage(usages: list[dict[str, Any]]) -> dict[str, Any]:
    """``n`` choices share one prompt: it is counted once, the completions added up."""
    prompt = max((int(u.get("prompt_tokens") or 0) for u in usages), default=0)
    completion = sum(int(u.get("completion_tokens") or 0) for u in usages)
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
    }


def finish_of(done: dict[str, Any]) -> str:
    return {"length": "length", "cancelled": "stop"}.get(str(done.get("finish_reason")), "stop")
