"""OpenAI's ``POST /v1/chat/completions``: the request as Hearth validates it, its
translation into the pipeline's ``Ask``, and the reply, streamed as server-sent events or
whole.

``stop`` (a string or up to four) ends the reply in every engine, ``seed`` serves its own
request only, and ``n`` choices are generated one after another.  ``presence_penalty``,
``frequency_penalty`` and ``logit_bias`` (in the model's token ids) are honoured by every
engine, and so are ``top_k``, ``min_p`` and ``repeat_penalty`` (llama-server's and vLLM's
extensions, which many clients send; a remote engine keeps its own).
``response_format`` (``json_object``, ``json_schema``) and a forced ``tool_choice`` need an
engine with a grammar, ``tools`` one that takes them, ``logprobs`` one that reports them
(the engine catalogue says which: ``app.serve.capabilities``).  Tool calls are read
out of the reply (``app.tools.calls``) and returned as ``tool_calls`` with
``finish_reason: "tool_calls"``.  A stream carries usage only when asked
(``stream_options.include_usage``), in a last chunk without choices, as OpenAI's does; a
reply whose engine died ends with ``finish_reason: "error"``, the usage of what was sent,
then the error.  Image parts are read with a ``data:`` URL by a model that reads pictures
(an address is refused, never fetched: ``app.serve.pictures``).
"""

from __future__ import annotations

import time
import uuid
from collections.abc import AsyncIterator
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, field_validator, model_validator

from app.engines import GRAMMAR, IMAGES, LOGPROBS, TOOLS
from app.serve import pictures, pipeline
from app.serve.call import Call, data, sse
from app.serve.folding import CANCELLED, ERROR, Ending, Outcome, Piece, Usage
from app.serve.openai_tools import (
    ID_PATTERN,
    MAX_TOOLS,
    NAME_PATTERN,
    ToolCallIn,
    ToolChoice,
    ToolSpec,
    choice_problem,
)
from app.serve.pipeline import Ask, Reply
from app.serve.sampling import MAX_MESSAGES, MAX_TEXT, Sampling, reply_limit, unicode_text
from wire import images


class TextPart(BaseModel):
    model_config = ConfigDict(extra="ignore")
    type: Literal["text"]
    text: str = Field(max_length=MAX_TEXT)

    @field_validator("text")
    @classmethod
    def _text_only(cls, text: str) -> str:
        return unicode_text(text)


class ImageUrl(BaseModel):
    model_config = ConfigDict(extra="ignore")
    url: str
    detail: str | None = None  # "low", "high", "auto": the model reads what it reads


class ImagePart(BaseModel):
    """A picture, inline as a ``data:`` URL; an address is refused in words."""

    model_config = ConfigDict(extra="ignore")
    type: Literal["image_url"]
    image_url: ImageUrl | str  # an object, as OpenAI sends it; some clients send the URL
    _data: bytes = PrivateAttr(b"")

    @model_validator(mode="after")
    def _read(self) -> ImagePart:
        url = self.image_url if isinstance(self.image_url, str) else self.image_url.url
        self._data = pictures.from_url(url, "the image_url")
        return self

    def part(self) -> dict[str, Any]:
        return images.image_part(self._data)


Part = Annotated[TextPart | ImagePart, Field(discriminator="type")]


class ChatMessage(BaseModel):
    model_config = ConfigDict(extra="ignore")
    # "developer" is what newer OpenAI clients send for "system".
    role: Literal["system", "developer", "user", "assistant", "tool"]
    # None: an assistant message that only calls tools.
    content: str | list[Part] | None = Field(default=None, max_length=MAX_TEXT)
    tool_calls: list[ToolCallIn] | None = Field(default=None, max_length=MAX_TOOLS)
    tool_call_id: str | None = Field(default=None, pattern=ID_PATTERN)
    name: str | None = Field(default=None, pattern=NAME_PATTERN)

    @field_validator("content")
    @classmethod
    def _text_only(cls, content: str | list[Part] | None) -> str | list[Part] | None:
        return unicode_text(content) if isinstance(content, str) else content

    @model_validator(mode="after")
    def _something_said(self) -> ChatMessage:
        if self.content is None and not (self.role == "assistant" and self.tool_calls):
            raise ValueError("content is required (only an assistant's tool calls may stand alone)")
        return self

    @property
    def images(self) -> bool:
        return isinstance(self.content, list) and any(
            isinstance(part, ImagePart) for part in self.content
        )

    def as_engine_message(self) -> dict[str, Any]:
        """The message as the engines take it: text content, the system role, and the
        tool parts as the templates read them."""
        content: str | list[dict[str, Any]]
        if self.content is None or isinstance(self.content, str):
            content = self.content or ""
        elif self.images:
            content = [
                part.part() if isinstance(part, ImagePart) else {"type": "text", "text": part.text}
                for part in self.content
            ]
        else:
            content = "\n".join(part.text for part in self.content if isinstance(part, TextPart))
        message: dict[str, Any] = {
            "role": "system" if self.role == "developer" else self.role,
            "content": content,
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


class ChatRequest(Sampling):
    messages: list[ChatMessage] = Field(min_length=1, max_length=MAX_MESSAGES)
    stream_options: StreamOptions | None = None
    max_completion_tokens: int | None = reply_limit()
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

    def tool_names(self) -> frozenset[str]:
        """The tools the model may call."""
        if self.tool_choice == "none":
            return frozenset()
        return frozenset(tool.function.name for tool in self.tools or [])

    @property
    def include_usage(self) -> bool:
        return bool(self.stream_options and self.stream_options.include_usage)

    def needs(self) -> dict[str, str]:
        """What the request asks of the engine beyond text, in its own words."""
        needs: dict[str, str] = {}
        if any(message.images for message in self.messages):
            needs[IMAGES] = "image parts"
        wanted = self.response_format
        if wanted is not None and wanted.wants_json:
            needs[GRAMMAR] = f"response_format {wanted.type}"
        elif self.tools and self.tool_choice not in (None, "auto", "none"):
            needs[GRAMMAR] = "tool_choice"
        if self.tools:
            needs[TOOLS] = "tools"
        if self.logprobs:
            needs[LOGPROBS] = "logprobs"
        return needs

    def reply_limit(self) -> int | None:
        return self.max_completion_tokens or self.max_tokens

    def params(self) -> dict[str, Any]:
        params = super().params()
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

    def ask(self) -> Ask:
        grounding = self.hearth or HearthOptions()
        return Ask(
            self.model,
            messages=[m.as_engine_message() for m in self.messages],
            params=self.params(),
            n=self.n,
            tool_names=self.tool_names(),
            needs=self.needs(),
            collections=list(grounding.collections),
            passages=grounding.k,
        )


async def chat(call: Call) -> Any:
    """The route: a whole ``chat.completion`` or a stream of chunks."""
    body: ChatRequest = call.body
    reply = await pipeline.start(
        body.ask(), call.models, call.request, call.config.ground, call.config.pictures
    )
    shape = Completion(reply, body)
    if body.stream:
        return sse(shape.chunks())
    return shape.whole(await reply.whole())


def finish_of(ending: Ending) -> str:
    """OpenAI's finish reason (a reply the client stopped ended as "stop")."""
    return "stop" if ending.finish == CANCELLED else ending.finish


def message_of(text: str, reasoning: str) -> dict[str, Any]:
    """The reply as OpenAI's message, with the thinking apart as DeepSeek's and vLLM's
    servers send it (``reasoning_content``)."""
    message: dict[str, Any] = {"role": "assistant", "content": text}
    if reasoning:
        message["reasoning_content"] = reasoning
    return message


class Completion:
    """One request's reply in OpenAI's shapes."""

    def __init__(self, reply: Reply, body: ChatRequest) -> None:
        self.reply, self.body = reply, body
        self.reply_id = f"chatcmpl-{uuid.uuid4().hex[:24]}"
        self.created = int(time.time())
        self.sources = reply.sources  # sent once: with the whole reply, or the first chunk

    def whole(self, outcomes: list[Outcome]) -> dict[str, Any]:
        return {
            "id": self.reply_id,
            "object": "chat.completion",
            "created": self.created,
            "model": self.reply.name,
            **({"sources": self.sources} if self.sources else {}),
            "choices": [self._choice(index, o) for index, o in enumerate(outcomes)],
            "usage": Usage.of_choices([o.ending.usage for o in outcomes]).openai(),
        }

    def _choice(self, index: int, outcome: Outcome) -> dict[str, Any]:
        message = message_of(outcome.text, outcome.reasoning)
        if outcome.tool_calls:
            message["content"] = outcome.text or None
            message["tool_calls"] = [call.openai() for call in outcome.tool_calls]
        logprobs = {"content": outcome.logprobs, "refusal": None} if self.body.logprobs else None
        return {
            "index": index,
            "message": message,
            "finish_reason": finish_of(outcome.ending),
            "logprobs": logprobs,
        }

    # -- streaming -------------------------------------------------------------------------
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
            "model": self.reply.name,
            "choices": choices,
        }
        if self.body.include_usage:
            payload["usage"] = usage
        if self.sources:  # once, with the first chunk
            payload["sources"], self.sources = self.sources, []
        return data(payload)

    async def chunks(self) -> AsyncIterator[str]:
        usages: list[Usage] = []
        started: set[int] = set()
        failed: dict[str, Any] | None = None
        async for item in self.reply.stream():
            if item.index not in started:
                started.add(item.index)
                yield self.chunk(item.index, {"role": "assistant", "content": ""})
            if isinstance(item, Piece):
                if item.reasoning:
                    yield self.chunk(item.index, {"reasoning_content": item.reasoning})
                if item.text:
                    yield self.chunk(item.index, {"content": item.text}, logprobs=item.logprobs)
                continue
            usages.append(item.usage)
            for chunk in self._ending(item):
                yield chunk
            if item.finish == ERROR:
                failed = item.error
        if self.body.include_usage:
            yield self._data([], Usage.of_choices(usages).openai())
        if failed is not None:  # after what it cost: a client may stop reading at an error
            yield data({"error": {"message": failed.get("message"), "type": failed.get("kind")}})
        yield "data: [DONE]\n\n"

    def _ending(self, ending: Ending) -> list[str]:
        """A choice's end: its tool calls whole (name and arguments in one delta), then
        the finish reason, with the probabilities of tokens not sent yet."""
        chunks = []
        if ending.tool_calls:
            listed = [call.openai(number) for number, call in enumerate(ending.tool_calls)]
            chunks.append(self.chunk(ending.index, {"tool_calls": listed}))
        chunks.append(self.chunk(ending.index, {}, finish_of(ending), logprobs=ending.logprobs))
        return chunks
