"""OpenAI's ``POST /v1/responses``, minimal and stateless: text in, text and reasoning out.

Understood: ``input`` as a string or a list of messages (text content, roles ``user``,
``assistant``, ``system``, ``developer``), ``instructions``, ``max_output_tokens``,
``temperature``, ``top_p``, ``text.format`` (``json_object``/``json_schema``, by grammar
in llama.cpp) and ``stream`` with the events the API names (``response.created`` …
``response.output_text.delta`` … ``response.completed``).  A reasoning model's thinking is
a ``reasoning`` item before the message.  Nothing is stored: ``previous_response_id`` is
refused, as are tools and input items other than messages, in words.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import AsyncIterator, Callable
from typing import Any, Literal

from fastapi import Request
from fastapi.responses import JSONResponse, StreamingResponse
from pydantic import BaseModel, ConfigDict, Field, field_validator

from app.engine_client import EngineClient
from app.serve.openai_chat import (
    ChatRequest,
    Choice,
    JsonSchemaFormat,
    refused_by_engine,
    unicode_text,
)
from app.serve.relay import Relay
from app.settings import highest, lowest
from wire import protocol
from wire.model_spec import ModelSpec


class InputText(BaseModel):
    model_config = ConfigDict(extra="ignore")
    type: Literal["input_text", "output_text", "text"]
    text: str = Field(max_length=1_000_000)

    @field_validator("text")
    @classmethod
    def _text_only(cls, text: str) -> str:
        return unicode_text(text)


class InputMessage(BaseModel):
    model_config = ConfigDict(extra="ignore")
    type: Literal["message"] = "message"
    role: Literal["user", "assistant", "system", "developer"]
    content: str | list[InputText] = Field(max_length=1_000_000)

    def text(self) -> str:
        if isinstance(self.content, str):
            return unicode_text(self.content)
        return "\n".join(part.text for part in self.content)


class TextFormat(BaseModel):
    """``text.format``: plain text, any JSON object, or JSON matching a schema (its name,
    schema and strictness are fields of the format itself here)."""

    model_config = ConfigDict(extra="ignore", populate_by_name=True)
    type: Literal["text", "json_object", "json_schema"] = "text"
    name: str = Field(default="response", max_length=64)
    schema_: dict[str, Any] | None = Field(default=None, alias="schema")


class TextOptions(BaseModel):
    model_config = ConfigDict(extra="ignore")
    format: TextFormat | None = None


class ResponsesRequest(BaseModel):
    model_config = ConfigDict(extra="ignore")
    model: str | None = None
    input: str | list[InputMessage] = Field(max_length=10_000)
    instructions: str | None = Field(default=None, max_length=1_000_000)
    max_output_tokens: int | None = Field(default=None, ge=1, le=highest("sampling.max_tokens"))
    temperature: float | None = Field(
        default=None, ge=lowest("sampling.temperature"), le=highest("sampling.temperature")
    )
    top_p: float | None = Field(
        default=None, ge=lowest("sampling.top_p"), le=highest("sampling.top_p")
    )
    stream: bool = False
    text: TextOptions | None = None
    tools: list[dict[str, Any]] | None = None
    previous_response_id: str | None = None

    def refusal(self) -> str | None:
        if self.previous_response_id:
            return (
                "this server keeps no responses (it is stateless): send the whole "
                "conversation as input instead of previous_response_id"
            )
        if self.tools:
            return "tools in /v1/responses are not supported yet; use /v1/chat/completions"
        return None

    def as_chat(self) -> ChatRequest:
        """The same request as a chat completion (checked the same way)."""
        messages: list[dict[str, Any]] = []
        if self.instructions:
            messages.append({"role": "system", "content": self.instructions})
        if isinstance(self.input, str):
            messages.append({"role": "user", "content": unicode_text(self.input)})
        else:
            messages.extend({"role": item.role, "content": item.text()} for item in self.input)
        chat: dict[str, Any] = {"messages": messages, "stream": self.stream}
        for ours, theirs in (
            ("max_output_tokens", "max_tokens"),
            ("temperature", "temperature"),
            ("top_p", "top_p"),
        ):
            if getattr(self, ours) is not None:
                chat[theirs] = getattr(self, ours)
        wanted = self.text.format if self.text else None
        if wanted is not None and wanted.type == "json_object":
            chat["response_format"] = {"type": "json_object"}
        elif wanted is not None and wanted.type == "json_schema":
            schema = JsonSchemaFormat(name=wanted.name, schema=wanted.schema_ or {})
            chat["response_format"] = {
                "type": "json_schema",
                "json_schema": schema.model_dump(by_alias=True),
            }
        return ChatRequest.model_validate(chat)


class ModelResponse:
    """One request's response, whole or as the API's named events."""

    def __init__(
        self,
        client: EngineClient,
        spec: ModelSpec,
        chat: ChatRequest,
        params: dict[str, Any],
        model_name: str,
    ) -> None:
        self.client, self.spec, self.chat, self.params = client, spec, chat, params
        self.model_name = model_name
        self.response_id = f"resp_{uuid.uuid4().hex[:24]}"
        self.message_id = f"msg_{uuid.uuid4().hex[:24]}"
        self.reasoning_id = f"rs_{uuid.uuid4().hex[:24]}"
        self.created = int(time.time())
        self.sequence = 0

    async def answer(self, request: Request, refuse: Callable[..., JSONResponse]) -> Any:
        relay = Relay()
        messages = [m.as_engine_message() for m in self.chat.messages]
        job = self.client.chat(self.spec, messages, self.params, relay.put)
        first = await relay.first(request, job)
        if first["type"] == protocol.ERROR:
            return refused_by_engine(first, refuse)
        if self.chat.stream:
            return StreamingResponse(
                self._events(relay, job),
                media_type="text/event-stream",
                headers={"Cache-Control": "no-cache"},
            )
        choice = Choice()
        async for event in relay.events_until_gone(request, job):
            choice.take(event)
        if choice.final.get("type") == protocol.ERROR:
            return refused_by_engine(choice.final, refuse)
        return self.response_object("".join(choice.text), "".join(choice.reasoning), choice)

    # -- the response object ---------------------------------------------------------
    def reasoning_item(self, text: str) -> dict[str, Any]:
        return {
            "type": "reasoning",
            "id": self.reasoning_id,
            "summary": [],
            "content": [{"type": "reasoning_text", "text": text}] if text else [],
        }

    def part(self, text: str) -> dict[str, Any]:
        return {"type": "output_text", "text": text, "annotations": [], "logprobs": []}

    def message_item(self, text: str | None) -> dict[str, Any]:
        return {
            "type": "message",
            "id": self.message_id,
            "status": "in_progress" if text is None else "completed",
            "role": "assistant",
            "content": [] if text is None else [self.part(text)],
        }

    def response_object(
        self, text: str | None, reasoning: str, choice: Choice | None = None
    ) -> dict[str, Any]:
        """The response object: in progress (``text`` None) or finished."""
        output: list[dict[str, Any]] = []
        if reasoning:
            output.append(self.reasoning_item(reasoning))
        if text is not None:
            output.append(self.message_item(text))
        cut = choice is not None and choice.final.get("finish_reason") == protocol.FINISH_LENGTH
        usage = choice.usage if choice is not None else {}
        status = "in_progress" if text is None else ("incomplete" if cut else "completed")
        return {
            "id": self.response_id,
            "object": "response",
            "created_at": self.created,
            "status": status,
            "model": self.model_name,
            "output": output,
            "error": None,
            "incomplete_details": {"reason": "max_output_tokens"} if cut else None,
            "instructions": None,
            "parallel_tool_calls": False,
            "tool_choice": "none",
            "tools": [],
            "temperature": self.params.get("temperature"),
            "top_p": self.params.get("top_p"),
            "usage": {
                "input_tokens": int(usage.get("prompt_tokens") or 0),
                "output_tokens": int(usage.get("completion_tokens") or 0),
                "total_tokens": int(usage.get("total_tokens") or 0),
                "input_tokens_details": {"cached_tokens": 0},
                "output_tokens_details": {"reasoning_tokens": 0},
            }
            if text is not None
            else None,
        }

    # -- streaming ---------------------------------------------------------------------
    def sse(self, kind: str, **fields: Any) -> str:
        data = {"type": kind, "sequence_number": self.sequence, **fields}
        self.sequence += 1
        return f"event: {kind}\ndata: {json.dumps(data)}\n\n"

    async def _events(self, relay: Relay, job: Any) -> AsyncIterator[str]:
        stream = _ItemStream(self)
        try:
            yield self.sse("response.created", response=self.response_object(None, ""))
            yield self.sse("response.in_progress", response=self.response_object(None, ""))
            async for event in relay.events():
                if event["type"] == protocol.ERROR:
                    error = {"code": str(event.get("kind")), "message": str(event.get("message"))}
                    yield self.sse("error", **error)
                    return
                for chunk in stream.take(event):
                    yield chunk
            for chunk in stream.finish():
                yield chunk
        finally:
            if not job.finished:
                job.cancel()  # the client went away: stop generating


class _ItemStream:
    """The output items as events: a ``reasoning`` item while the model thinks (index
    0), then the ``message`` item (after the reasoning, if there was any)."""

    def __init__(self, response: ModelResponse) -> None:
        self.response = response
        self.choice = Choice()
        self.reasoning = "none"  # "open", then "closed"
        self.message_open = False

    @property
    def message_index(self) -> int:
        return 0 if self.reasoning == "none" else 1

    def take(self, event: dict[str, Any]) -> list[str]:
        r = self.response
        self.choice.take(event)
        chunks: list[str] = []
        thought = event.get(protocol.DELTA_REASONING) if event["type"] == protocol.DELTA else None
        said = event.get(protocol.DELTA_TEXT) if event["type"] == protocol.DELTA else None
        if thought and not self.message_open:
            if self.reasoning == "none":
                self.reasoning = "open"
                item = {**r.reasoning_item(""), "content": []}
                chunks.append(r.sse("response.output_item.added", output_index=0, item=item))
            chunks.append(
                r.sse(
                    "response.reasoning_text.delta",
                    item_id=r.reasoning_id,
                    output_index=0,
                    content_index=0,
                    delta=thought,
                )
            )
        if said:
            chunks += self._open_message()
            chunks.append(
                r.sse(
                    "response.output_text.delta",
                    **self._place(),
                    delta=said,
                    logprobs=[],
                )
            )
        return chunks

    def finish(self) -> list[str]:
        r = self.response
        chunks = self._open_message()
        text = "".join(self.choice.text)
        chunks.append(r.sse("response.output_text.done", **self._place(), text=text, logprobs=[]))
        chunks.append(r.sse("response.content_part.done", **self._place(), part=r.part(text)))
        item = r.message_item(text)
        chunks.append(
            r.sse("response.output_item.done", output_index=self.message_index, item=item)
        )
        whole = r.response_object(text, "".join(self.choice.reasoning), self.choice)
        done = "response.incomplete" if whole["status"] == "incomplete" else "response.completed"
        chunks.append(r.sse(done, response=whole))
        return chunks

    def _place(self) -> dict[str, Any]:
        return {
            "item_id": self.response.message_id,
            "output_index": self.message_index,
            "content_index": 0,
        }

    def _open_message(self) -> list[str]:
        """The reasoning item closed (if open) and the message item opened, once."""
        if self.message_open:
            return []
        r = self.response
        chunks: list[str] = []
        if self.reasoning == "open":
            self.reasoning = "closed"
            text = "".join(self.choice.reasoning)
            place = {"item_id": r.reasoning_id, "output_index": 0, "content_index": 0}
            chunks.append(r.sse("response.reasoning_text.done", **place, text=text))
            item = r.reasoning_item(text)
            chunks.append(r.sse("response.output_item.done", output_index=0, item=item))
        self.message_open = True
        item = r.message_item(None)
        chunks.append(
            r.sse("response.output_item.added", output_index=self.message_index, item=item)
        )
        chunks.append(r.sse("response.content_part.added", **self._place(), part=r.part("")))
        return chunks
