"""Anthropic's ``POST /v1/messages``: the request as Hearth validates it, and the reply,
whole or as Anthropic's named server-sent events.

Understood: ``system`` (a string or text blocks), ``messages`` whose content is a string
or blocks (text, ``tool_use``, ``tool_result``; earlier ``thinking`` blocks are dropped, as
Anthropic's API does), ``max_tokens``, ``stop_sequences`` (the one that ended the reply is
named in ``stop_sequence``), ``tools`` and ``tool_choice`` (``auto``, ``any``, ``tool``,
``none``; the model's calls come back as ``tool_use`` blocks with ``stop_reason:
"tool_use"``, and ``any``/``tool`` are enforced by grammar in llama.cpp),
``output_config.format`` (JSON that matches a schema, by grammar in llama.cpp),
``temperature``, ``top_p``, ``top_k`` (which older clients send) and ``stream``.  The
usage counts the prompt's tokens found in the prompt cache as ``cache_read_input_tokens``.  A
reasoning model's thinking comes back as a ``thinking`` block before the text.  Errors come
in Anthropic's shape (``{"type": "error", "error": {"type", "message"}}``).

Images and documents are refused in words until a model here reads them; what an engine
cannot do (a grammar, tools) is refused in words from the engine catalogue, before the
engine sees the request.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from app.engines import GRAMMAR, IMAGES, TOOLS
from app.serve import pipeline
from app.serve.anthropic_tools import (
    MAX_ANTHROPIC_TOOLS,
    AnthropicTool,
    AnthropicToolChoice,
    Block,
    ImageBlock,
    TextBlock,
    engine_messages_of,
    tool_use_block,
)
from app.serve.call import Call, named, sse
from app.serve.folding import LENGTH, TOOL_CALLS, Ending, Outcome, Piece
from app.serve.pipeline import Ask, Reply
from app.serve.sampling import (
    MAX_MESSAGES,
    MAX_STOPS,
    MAX_TEXT,
    checked_stops,
    given,
    ranged,
    unicode_text,
)
from app.settings import highest
from wire import images


class AnthropicMessage(BaseModel):
    model_config = ConfigDict(extra="ignore")
    role: Literal["user", "assistant"]
    content: str | list[Block] = Field(max_length=MAX_TEXT)

    @field_validator("content")
    @classmethod
    def _text_only(cls, content: str | list[Block]) -> str | list[Block]:
        return unicode_text(content) if isinstance(content, str) else content

    @property
    def media(self) -> bool:
        return isinstance(self.content, list) and any(
            isinstance(block, ImageBlock) for block in self.content
        )


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
    messages: list[AnthropicMessage] = Field(min_length=1, max_length=MAX_MESSAGES)
    system: str | list[TextBlock] | None = None
    stop_sequences: list[str] | None = Field(default=None, max_length=MAX_STOPS)
    temperature: float | None = ranged("sampling.temperature")
    top_p: float | None = ranged("sampling.top_p")
    top_k: int | None = ranged("sampling.top_k")
    stream: bool = False
    tools: list[AnthropicTool] | None = Field(default=None, max_length=MAX_ANTHROPIC_TOOLS)
    tool_choice: AnthropicToolChoice | None = None
    output_config: OutputConfig | None = None

    @field_validator("stop_sequences")
    @classmethod
    def _stops_in_range(cls, stops: list[str] | None) -> list[str] | None:
        return checked_stops(stops) if stops is not None else None

    @model_validator(mode="after")
    def _choice_fits_the_tools(self) -> MessagesRequest:
        choice = self.tool_choice
        names = {tool.name for tool in self.tools or []}
        if choice is not None and choice.type == "tool" and choice.name not in names:
            raise ValueError(f"tool_choice names {choice.name!r}, which is not among the tools")
        if choice is not None and choice.type in ("any", "tool") and not names:
            raise ValueError(f"tool_choice {choice.type!r} needs tools")
        return self

    def tool_names(self) -> frozenset[str]:
        if self.tool_choice is not None and self.tool_choice.type == "none":
            return frozenset()
        return frozenset(tool.name for tool in self.tools or [])

    def needs(self) -> dict[str, str]:
        needs: dict[str, str] = {}
        if any(message.media for message in self.messages):
            needs[IMAGES] = "images"
        choice = self.tool_choice
        if choice is not None and choice.type in ("any", "tool"):
            needs[GRAMMAR] = f"tool_choice {choice.type!r}"
        elif self.output_config and self.output_config.format:
            needs[GRAMMAR] = "output_config.format"
        if self.tools:
            needs[TOOLS] = "tools"
        return needs

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

    def params(self) -> dict[str, Any]:
        params = {"max_tokens": self.max_tokens, **given(self, ("temperature", "top_p", "top_k"))}
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

    def ask(self) -> Ask:
        return Ask(
            self.model,
            messages=self.engine_messages(),
            params=self.params(),
            tool_names=self.tool_names(),
            needs=self.needs(),
        )


class CountRequest(BaseModel):
    """``POST /v1/messages/count_tokens``: what a request would read, without a reply."""

    model_config = ConfigDict(extra="ignore")
    model: str = Field(max_length=500)
    messages: list[AnthropicMessage] = Field(min_length=1, max_length=MAX_MESSAGES)
    system: str | list[TextBlock] | None = None
    tools: list[AnthropicTool] | None = Field(default=None, max_length=MAX_ANTHROPIC_TOOLS)

    def text(self) -> str:
        """Everything the model would read, as text: its token count is the request's,
        less the few tokens the chat template adds around the messages."""
        as_request = MessagesRequest(
            model=self.model, max_tokens=1, messages=self.messages, system=self.system
        )
        parts = [images.text_of(m.get("content")) for m in as_request.engine_messages()]
        parts += [json.dumps(tool.openai()) for tool in self.tools or []]
        return "\n".join(parts)


async def messages(call: Call) -> Any:
    """The route: a whole message, or Anthropic's named events."""
    body: MessagesRequest = call.body
    reply = await pipeline.start(
        body.ask(), call.models, call.request, pictures=call.config.pictures
    )
    shaped = MessagesReply(reply, body)
    if body.stream:
        return sse(shaped.events())
    outcomes = await reply.whole()
    return shaped.whole(outcomes[0]) if outcomes else {}


async def count_tokens(call: Call) -> dict[str, int]:
    body: CountRequest = call.body
    counted = await pipeline.count_tokens(call.models, call.request, body.model, body.text())
    return {"input_tokens": counted}


def stop_of(ending: Ending) -> dict[str, Any]:
    if ending.finish == TOOL_CALLS:
        return {"stop_reason": "tool_use", "stop_sequence": None}
    if ending.stop_sequence is not None:
        return {"stop_reason": "stop_sequence", "stop_sequence": ending.stop_sequence}
    reason = "max_tokens" if ending.finish == LENGTH else "end_turn"
    return {"stop_reason": reason, "stop_sequence": None}


def usage_of(ending: Ending | None) -> dict[str, int]:
    """Anthropic's usage: ``input_tokens`` are the prompt's tokens read now, and those found
    in the engine's prompt cache are ``cache_read_input_tokens`` (the prompt is their sum,
    as Anthropic counts it; Hearth caches without being asked, so nothing is "created")."""
    usage = ending.usage if ending is not None else None
    cached = min(usage.cached_tokens, usage.prompt_tokens) if usage else 0
    return {
        "input_tokens": usage.prompt_tokens - cached if usage else 0,
        "output_tokens": usage.completion_tokens if usage else 0,
        "cache_read_input_tokens": cached,
        "cache_creation_input_tokens": 0,
    }


class MessagesReply:
    """One request's reply, whole or streamed as Anthropic's events."""

    def __init__(self, reply: Reply, body: MessagesRequest) -> None:
        self.reply, self.body = reply, body
        self.message_id = f"msg_{uuid.uuid4().hex[:24]}"

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

    def whole(self, outcome: Outcome) -> dict[str, Any]:
        content: list[dict[str, Any]] = []
        if outcome.reasoning:
            content.append({"type": "thinking", "thinking": outcome.reasoning, "signature": ""})
        if outcome.text:  # never an empty text block: Anthropic's API refuses one sent back
            content.append({"type": "text", "text": outcome.text})
        content.extend(tool_use_block(call) for call in outcome.tool_calls)
        ending = outcome.ending
        return {**self._message(content, usage_of(ending)), **stop_of(ending)}

    async def events(self) -> AsyncIterator[str]:
        blocks = Blocks()
        start = self._message([], usage_of(None))
        yield named("message_start", {"type": "message_start", "message": start})
        async for item in self.reply.stream():
            if isinstance(item, Piece):
                for chunk in blocks.take(item):
                    yield chunk
                continue
            if item.error is not None:
                failed = {"type": "api_error", "message": str(item.error.get("message"))}
                yield named("error", {"type": "error", "error": failed})
                return
            for chunk in blocks.finish(item):
                yield chunk
            delta = {"type": "message_delta", "delta": stop_of(item)}
            yield named("message_delta", {**delta, "usage": usage_of(item)})
            yield named("message_stop", {"type": "message_stop"})


class Blocks:
    """Pieces as content blocks: a ``thinking`` block while the model thinks, a ``text``
    block, then a ``tool_use`` block for each call; each opened with
    ``content_block_start`` and closed with ``content_block_stop``."""

    def __init__(self) -> None:
        self.index = -1
        self.open: str | None = None

    def take(self, piece: Piece) -> list[str]:
        return self._delta("thinking", piece.reasoning) + self._delta("text", piece.text)

    def finish(self, ending: Ending) -> list[str]:
        """The calls, and the last block closed (a reply with nothing to say still gets an
        empty text block)."""
        calls = ending.tool_calls
        chunks = self._open("text") if self.index < 0 and not calls else []
        chunks += self._close()
        for call in calls:
            block = tool_use_block(call)
            arguments = json.dumps(block["input"])
            chunks += self._open("tool_use", {**block, "input": {}})
            delta = {"type": "input_json_delta", "partial_json": arguments}
            chunks.append(self._event("content_block_delta", delta=delta))
            chunks += self._close()
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
        return named(name, {"type": name, "index": self.index, **fields})
