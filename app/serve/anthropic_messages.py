"""Anthropic's ``POST /v1/messages``: the request as Hearth validates it, and the reply,
whole or as Anthropic's named server-sent events.

Understood: ``system`` (a string or text blocks), ``messages`` whose content is a string
or blocks (text, ``tool_use``, ``tool_result``; earlier ``thinking`` blocks are dropped, as
Anthropic's API does), ``max_tokens``, ``stop_sequences`` (the one that ended the reply is
named in ``stop_sequence``), ``tools`` and ``tool_choice`` (``auto``, ``any``, ``tool``,
``none``; the model's calls come back as ``tool_use`` blocks with ``stop_reason:
"tool_use"``, and ``any``/``tool`` are enforced by grammar in llama.cpp),
``output_config.format`` (JSON that matches a schema, by grammar in llama.cpp),
``temperature``, ``top_p``, ``top_k`` (which older clients send) and ``stream``.  A
reasoning model's thinking comes back as a ``thinking`` block before the text.  Errors come
in Anthropic's shape (``{"type": "error", "error": {"type", "message"}}``).

Not yet, and refused with 400 rather than ignored: images and documents.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator
from typing import Any, Literal

from fastapi import Request
from fastapi.responses import JSONResponse, StreamingResponse
from pydantic import BaseModel, ConfigDict, Field, field_validator

from app.engine_client import EngineClient
from app.serve.anthropic_tools import (
    MAX_ANTHROPIC_TOOLS,
    AnthropicTool,
    AnthropicToolChoice,
    Block,
    TextBlock,
    engine_messages_of,
    tool_use_block,
)
from app.serve.openai_chat import JSON_NEEDS_GGUF, MAX_STOP_CHARS, MAX_STOPS, unicode_text
from app.serve.relay import Relay, engine_status
from app.serve.tool_calls import ToolCallStream, parse_tool_calls
from app.settings import highest, lowest
from wire import protocol
from wire.model_spec import REMOTE, TRANSFORMERS, ModelSpec

STOP_SEQUENCE = "stop_sequence"  # the notice an engine sends (backends.text_stream)
ERROR_TYPES = {400: "invalid_request_error", 401: "authentication_error", 403: "permission_error"}
ERROR_TYPES |= {404: "not_found_error", 413: "request_too_large", 503: "overloaded_error"}


def error(status: int, message: str) -> JSONResponse:
    kind = ERROR_TYPES.get(status, "api_error")
    return JSONResponse(
        {"type": "error", "error": {"type": kind, "message": message}}, status_code=status
    )


class AnthropicMessage(BaseModel):
    model_config = ConfigDict(extra="ignore")
    role: Literal["user", "assistant"]
    content: str | list[Block] = Field(max_length=1_000_000)

    @field_validator("content")
    @classmethod
    def _text_only(cls, content: str | list[Block]) -> str | list[Block]:
        return unicode_text(content) if isinstance(content, str) else content


class OutputFormat(BaseModel):
    model_config = ConfigDict(extra="ignore")
    type: Literal["json_schema"]
    schema_: dict[str, Any] = Field(alias="schema")


class OutputConfig(BaseModel):
    """Structured output: the reply is JSON that matches ``format.schema`` (by grammar in
    llama.cpp); ``effort`` is accepted and has no meaning here."""

    model_config = ConfigDict(extra="ignore")
    format: OutputFormat | None = None


class MessagesRequest(BaseModel):
    model_config = ConfigDict(extra="ignore")
    model: str = Field(max_length=500)
    max_tokens: int = Field(ge=1, le=highest("sampling.max_tokens"))
    messages: list[AnthropicMessage] = Field(min_length=1, max_length=10_000)
    system: str | list[TextBlock] | None = None
    stop_sequences: list[str] | None = Field(default=None, max_length=MAX_STOPS)
    temperature: float | None = Field(
        default=None, ge=lowest("sampling.temperature"), le=highest("sampling.temperature")
    )
    top_p: float | None = Field(
        default=None, ge=lowest("sampling.top_p"), le=highest("sampling.top_p")
    )
    top_k: int | None = Field(default=None, ge=0, le=1000)
    stream: bool = False
    tools: list[AnthropicTool] | None = Field(default=None, max_length=MAX_ANTHROPIC_TOOLS)
    tool_choice: AnthropicToolChoice | None = None
    output_config: OutputConfig | None = None

    @field_validator("stop_sequences")
    @classmethod
    def _stops_in_range(cls, stops: list[str] | None) -> list[str] | None:
        if any(not 1 <= len(text) <= MAX_STOP_CHARS for text in stops or []):
            raise ValueError(f"each stop sequence must be 1 to {MAX_STOP_CHARS} characters")
        return stops

    def tool_names(self) -> set[str]:
        if self.tool_choice is not None and self.tool_choice.type == "none":
            return set()
        return {tool.name for tool in self.tools or []}

    def refusal(self, spec: ModelSpec) -> str | None:
        choice = self.tool_choice
        names = {tool.name for tool in self.tools or []}
        if choice is not None and choice.type == "tool" and choice.name not in names:
            return f"tool_choice names {choice.name!r}, which is not among the tools"
        if choice is not None and choice.type in ("any", "tool") and not names:
            return f"tool_choice {choice.type!r} needs tools"
        if choice is not None and choice.type in ("any", "tool") and spec.engine == TRANSFORMERS:
            return JSON_NEEDS_GGUF.format(f"tool_choice {choice.type!r}")
        if self.tools and spec.engine == REMOTE:
            return "tools are not passed to a remote endpoint yet; call it directly"
        if self.output_config and self.output_config.format and spec.engine == TRANSFORMERS:
            return JSON_NEEDS_GGUF.format("output_config.format")
        return None

    def engine_messages(self) -> list[dict[str, Any]]:
        messages: list[dict[str, Any]] = []
        if self.system:
            system = (
                self.system
                if isinstance(self.system, str)
                else "\n".join(block.text for block in self.system if block.type == "text")
            )
            messages.append({"role": "system", "content": system})
        for message in self.messages:
            messages.extend(engine_messages_of(message.role, message.content))
        return messages

    def params(self, defaults: dict[str, Any]) -> dict[str, Any]:
        params = {**defaults, "max_tokens": self.max_tokens}
        for key in ("temperature", "top_p", "top_k"):
            if getattr(self, key) is not None:
                params[key] = getattr(self, key)
        if self.stop_sequences:
            params["stop"] = list(self.stop_sequences)
        if self.tools:
            params["tools"] = [tool.openai() for tool in self.tools]
            params["tool_choice"] = self.tool_choice.openai() if self.tool_choice else "auto"
        wanted = self.output_config.format if self.output_config else None
        if wanted is not None:
            schema = {"name": "output", "schema": wanted.schema_}
            params["response_format"] = {"type": "json_schema", "json_schema": schema}
        return params


class CountRequest(BaseModel):
    """``POST /v1/messages/count_tokens``: what a request would read, without a reply."""

    model_config = ConfigDict(extra="ignore")
    model: str = Field(max_length=500)
    messages: list[AnthropicMessage] = Field(min_length=1, max_length=10_000)
    system: str | list[TextBlock] | None = None
    tools: list[AnthropicTool] | None = Field(default=None, max_length=MAX_ANTHROPIC_TOOLS)

    def text(self) -> str:
        """Everything the model would read, as text: its token count is the request's,
        less the few tokens the chat template adds around the messages."""
        as_request = MessagesRequest(
            model=self.model, max_tokens=1, messages=self.messages, system=self.system
        )
        parts = [str(m.get("content", "")) for m in as_request.engine_messages()]
        parts += [json.dumps(tool.openai()) for tool in self.tools or []]
        return "\n".join(parts)


class MessagesReply:
    """One request's reply, whole or streamed as Anthropic's events."""

    def __init__(self, client: EngineClient, spec: ModelSpec, body: MessagesRequest) -> None:
        self.client, self.spec, self.body = client, spec, body
        self.message_id = f"msg_{uuid.uuid4().hex[:24]}"

    async def answer(self, request: Request, defaults: dict[str, Any]) -> Any:
        relay = Relay()
        job = self.client.chat(
            self.spec, self.body.engine_messages(), self.body.params(defaults), relay.put
        )
        first = await relay.first(request, job)
        if first["type"] == protocol.ERROR:
            return engine_error(first)
        if self.body.stream:
            return StreamingResponse(
                self._events(relay, job),
                media_type="text/event-stream",
                headers={"Cache-Control": "no-cache"},
            )
        return await self._whole(relay, job, request)

    def _message(self, content: list[dict[str, Any]], usage: dict[str, int]) -> dict[str, Any]:
        return {
            "id": self.message_id,
            "type": "message",
            "role": "assistant",
            "model": self.body.model,
            "content": content,
            "stop_reason": None,
            "stop_sequence": None,
            "usage": usage,
        }

    async def _whole(self, relay: Relay, job: Any, request: Request) -> Any:
        text: list[str] = []
        thinking: list[str] = []
        outcome = Outcome()
        async for event in relay.events_until_gone(request, job):
            if event["type"] == protocol.DELTA:
                if event.get(protocol.MOVED_TO_REASONING):
                    thinking, text = thinking + text, []
                text.append(event.get(protocol.DELTA_TEXT) or "")
                thinking.append(event.get(protocol.DELTA_REASONING) or "")
            elif event["type"] == protocol.ERROR:
                return engine_error(event)
            outcome.take(event)
        names = self.body.tool_names()
        rest, calls = parse_tool_calls("".join(text), names) if names else ("".join(text), [])
        outcome.called = bool(calls)
        content: list[dict[str, Any]] = []
        if "".join(thinking):
            content.append({"type": "thinking", "thinking": "".join(thinking), "signature": ""})
        if rest or not calls:
            content.append({"type": "text", "text": rest})
        content.extend(tool_use_block(call) for call in calls)
        return {**self._message(content, outcome.usage()), **outcome.stop()}

    async def _events(self, relay: Relay, job: Any) -> AsyncIterator[str]:
        outcome = Outcome()
        names = self.body.tool_names()
        blocks = Blocks(ToolCallStream(names) if names else None)
        try:
            start = self._message([], {"input_tokens": 0, "output_tokens": 0})
            yield sse("message_start", {"type": "message_start", "message": start})
            async for event in relay.events():
                kind = event["type"]
                if kind == protocol.DELTA:
                    for chunk in blocks.take(event):
                        yield chunk
                elif kind == protocol.ERROR:
                    failed = {"type": "api_error", "message": str(event.get("message"))}
                    yield sse("error", {"type": "error", "error": failed})
                    return
                outcome.take(event)
            for chunk in blocks.finish():
                yield chunk
            outcome.called = blocks.called
            delta = {"type": "message_delta", "delta": outcome.stop()}
            yield sse("message_delta", {**delta, "usage": outcome.usage()})
            yield sse("message_stop", {"type": "message_stop"})
        finally:
            if not job.finished:
                job.cancel()  # the client went away: stop generating


class Outcome:
    """How the reply ended and what it cost, gathered from the engine's events."""

    def __init__(self) -> None:
        self.stats: dict[str, Any] = {}
        self.done: dict[str, Any] = {}
        self.stopped_by: str | None = None
        self.called = False

    def take(self, event: dict[str, Any]) -> None:
        if event["type"] == protocol.STATS:
            self.stats = event
        elif event["type"] == protocol.DONE:
            self.done = event
        elif event["type"] == protocol.NOTICE and event.get("kind") == STOP_SEQUENCE:
            self.stopped_by = str(event.get("text"))

    def stop(self) -> dict[str, Any]:
        if self.called:
            return {"stop_reason": "tool_use", "stop_sequence": None}
        if self.stopped_by is not None:
            return {"stop_reason": "stop_sequence", "stop_sequence": self.stopped_by}
        finish = self.done.get("finish_reason")
        reason = "max_tokens" if finish == protocol.FINISH_LENGTH else "end_turn"
        return {"stop_reason": reason, "stop_sequence": None}

    def usage(self) -> dict[str, int]:
        return {
            "input_tokens": int(self.stats.get("prompt_tokens") or 0),
            "output_tokens": int(self.stats.get("generated_tokens") or 0),
        }


class Blocks:
    """Deltas as content blocks: a ``thinking`` block while the model thinks, a ``text``
    block, then a ``tool_use`` block for each call; each opened with
    ``content_block_start`` and closed with ``content_block_stop``.  With tools, text that
    may be a call is held back (``ToolCallStream``) and read at the end."""

    def __init__(self, held: ToolCallStream | None = None) -> None:
        self.index = -1
        self.open: str | None = None
        self.held = held
        self.called = False

    def take(self, event: dict[str, Any]) -> list[str]:
        text = event.get(protocol.DELTA_TEXT) or ""
        if text and self.held is not None:
            text = self.held.feed(text)
        return self._delta("thinking", event.get(protocol.DELTA_REASONING) or "") + self._delta(
            "text", text
        )

    def finish(self) -> list[str]:
        """The held text that is no call, the calls, and the last block closed (a reply
        with nothing to say still gets an empty text block)."""
        rest, calls = self.held.finish() if self.held is not None else ("", [])
        chunks = self._delta("text", rest)
        if self.index < 0 and not calls:
            chunks += self._open("text")
        chunks += self._close()
        for call in calls:
            block = tool_use_block(call)
            arguments = json.dumps(block["input"])
            chunks += self._open("tool_use", {**block, "input": {}})
            delta = {"type": "input_json_delta", "partial_json": arguments}
            chunks.append(self._event("content_block_delta", delta=delta))
            chunks += self._close()
        self.called = bool(calls)
        return chunks

    def _delta(self, kind: str, text: str) -> list[str]:
        if not text:
            return []
        chunks = self._open(kind) if self.open != kind else []
        key = "thinking" if kind == "thinking" else "text"
        delta = {"type": f"{kind}_delta", key: text}
        chunks.append(self._event("content_block_delta", delta=delta))
        return chunks

    def _open(self, kind: str, block: dict[str, Any] | None = None) -> list[str]:
        chunks = self._close()
        self.index += 1
        self.open = kind
        started = block or {"type": kind, kind: ""}  # {"type": "text", "text": ""}…
        if kind == "thinking":
            started["signature"] = ""  # as the whole reply's thinking block has it
        return [*chunks, self._event("content_block_start", content_block=started)]

    def _close(self) -> list[str]:
        if self.open is None:
            return []
        self.open = None
        return [self._event("content_block_stop")]

    def _event(self, name: str, **fields: Any) -> str:
        return sse(name, {"type": name, "index": self.index, **fields})


def sse(name: str, data: dict[str, Any]) -> str:
    return f"event: {name}\ndata: {json.dumps(data)}\n\n"


def engine_error(event: dict[str, Any]) -> JSONResponse:
    return error(engine_status(event), str(event.get("message")))
