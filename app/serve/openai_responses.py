"""OpenAI's ``POST /v1/responses``, minimal and stateless: text in, text and reasoning out.

Understood: ``input`` as a string or a list of messages (text content, roles ``user``,
``assistant``, ``system``, ``developer``), ``instructions``, ``max_output_tokens``,
``temperature``, ``top_p``, ``text.format`` (``json_object``/``json_schema``, by grammar
in llama.cpp) and ``stream`` with the events the API names (``response.created`` …
``response.output_text.delta`` … ``response.completed``).  A reasoning model's thinking is
a ``reasoning`` item before the message.  Nothing is stored: ``previous_response_id`` is
refused, as are tools and input items other than messages, in words; pictures come
as ``input_image`` parts with a ``data:`` URL.  The request
becomes a chat completion's (``as_chat``) and goes through the same pipeline.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import AsyncIterator
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from app.serve import pictures, pipeline
from app.serve.call import Call, named, sse
from app.serve.folding import LENGTH, Ending, Outcome, Piece
from app.serve.openai_chat import ChatRequest, JsonSchemaFormat
from app.serve.pipeline import Refusal, Reply
from app.serve.sampling import MAX_TEXT, ranged, reply_limit, unicode_text


class InputText(BaseModel):
    model_config = ConfigDict(extra="ignore")
    type: Literal["input_text", "output_text", "text"]
    text: str = Field(max_length=MAX_TEXT)

    @field_validator("text")
    @classmethod
    def _text_only(cls, text: str) -> str:
        return unicode_text(text)


class InputImage(BaseModel):
    """A picture, inline as a ``data:`` URL; an address or a file id is refused in words."""

    model_config = ConfigDict(extra="ignore")
    type: Literal["input_image"]
    image_url: str | None = None
    file_id: str | None = None
    detail: str | None = None

    @model_validator(mode="after")
    def _read(self) -> InputImage:
        if self.image_url is None:
            raise ValueError(pictures.BY_ADDRESS.format("a file_id"))
        pictures.from_url(self.image_url, "the input_image")  # refused here, in its words
        return self


InputPart = Annotated[InputText | InputImage, Field(discriminator="type")]


class InputMessage(BaseModel):
    model_config = ConfigDict(extra="ignore")
    type: Literal["message"] = "message"
    role: Literal["user", "assistant", "system", "developer"]
    content: str | list[InputPart] = Field(max_length=MAX_TEXT)

    def chat_content(self) -> str | list[dict[str, Any]]:
        """The content as a chat message's: text, or text and image parts."""
        if isinstance(self.content, str):
            return unicode_text(self.content)
        return [
            {"type": "text", "text": part.text}
            if isinstance(part, InputText)
            else {"type": "image_url", "image_url": {"url": part.image_url}}
            for part in self.content
        ]


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
    instructions: str | None = Field(default=None, max_length=MAX_TEXT)
    max_output_tokens: int | None = reply_limit()
    temperature: float | None = ranged("sampling.temperature")
    top_p: float | None = ranged("sampling.top_p")
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
            messages.extend(
                {"role": item.role, "content": item.chat_content()} for item in self.input
            )
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


async def respond(call: Call) -> Any:
    """The route: a whole response object, or the API's named events."""
    body: ResponsesRequest = call.body
    refusal = body.refusal()
    if refusal:
        raise Refusal(400, refusal)
    try:
        chat = body.as_chat()
    except ValidationError as exc:
        errors = exc.errors()
        where = ".".join(str(p) for p in errors[0]["loc"]) if errors else "value"
        message = errors[0]["msg"] if errors else "bad value"
        raise Refusal(400, f"Invalid input: {where}: {message}") from None
    reply = await pipeline.start(
        chat.ask(), call.models, call.request, pictures=call.config.pictures
    )
    response = ModelResponse(reply)
    if body.stream:
        return sse(response.events())
    outcomes: list[Outcome] = await reply.whole()
    if not outcomes:  # the client went away
        return {}
    outcome = outcomes[0]
    return response.response_object(outcome.text, outcome.reasoning, outcome.ending)


class ModelResponse:
    """One request's response, whole or as the API's named events."""

    def __init__(self, reply: Reply) -> None:
        self.reply = reply
        self.params = reply.params
        self.model_name = reply.name
        self.response_id = f"resp_{uuid.uuid4().hex[:24]}"
        self.message_id = f"msg_{uuid.uuid4().hex[:24]}"
        self.reasoning_id = f"rs_{uuid.uuid4().hex[:24]}"
        self.created = int(time.time())
        self.sequence = 0

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
        self, text: str | None, reasoning: str, ending: Ending | None = None
    ) -> dict[str, Any]:
        """The response object: in progress (``text`` None) or finished."""
        output: list[dict[str, Any]] = []
        if reasoning:
            output.append(self.reasoning_item(reasoning))
        if text is not None:
            output.append(self.message_item(text))
        cut = ending is not None and ending.finish == LENGTH
        usage = ending.usage.openai() if ending is not None else {}
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
                "input_tokens_details": {
                    "cached_tokens": ending.usage.cached_tokens if ending is not None else 0
                },
                "output_tokens_details": {"reasoning_tokens": 0},
            }
            if text is not None
            else None,
        }

    # -- streaming ---------------------------------------------------------------------
    def sse(self, kind: str, **fields: Any) -> str:
        payload = {"type": kind, "sequence_number": self.sequence, **fields}
        self.sequence += 1
        return named(kind, payload)

    async def events(self) -> AsyncIterator[str]:
        stream = _ItemStream(self)
        yield self.sse("response.created", response=self.response_object(None, ""))
        yield self.sse("response.in_progress", response=self.response_object(None, ""))
        async for item in self.reply.stream():
            if isinstance(item, Piece):
                for chunk in stream.take(item):
                    yield chunk
            elif item.error is not None:
                error = item.error
                yield self.sse(
                    "error", code=str(error.get("kind")), message=str(error.get("message"))
                )
                return
            else:
                for chunk in stream.finish(item):
                    yield chunk


class _ItemStream:
    """The output items as events: a ``reasoning`` item while the model thinks (index
    0), then the ``message`` item (after the reasoning, if there was any)."""

    def __init__(self, response: ModelResponse) -> None:
        self.response = response
        self.text: list[str] = []
        self.thought: list[str] = []
        self.reasoning = "none"  # "open", then "closed"
        self.message_open = False

    @property
    def message_index(self) -> int:
        return 0 if self.reasoning == "none" else 1

    def take(self, piece: Piece) -> list[str]:
        r = self.response
        chunks: list[str] = []
        thought, said = piece.reasoning, piece.text
        self.thought.append(thought)
        self.text.append(said)
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

    def finish(self, ending: Ending) -> list[str]:
        r = self.response
        chunks = self._open_message()
        text = "".join(self.text)
        chunks.append(r.sse("response.output_text.done", **self._place(), text=text, logprobs=[]))
        chunks.append(r.sse("response.content_part.done", **self._place(), part=r.part(text)))
        item = r.message_item(text)
        chunks.append(
            r.sse("response.output_item.done", output_index=self.message_index, item=item)
        )
        whole = r.response_object(text, "".join(self.thought), ending)
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
            text = "".join(self.thought)
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
