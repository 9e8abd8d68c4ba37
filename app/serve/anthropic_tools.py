"""Anthropic's tools: the request's ``tools`` and ``tool_choice``, ``tool_use`` and
``tool_result`` blocks in the history, all turned into the OpenAI shapes the engines read,
and the model's calls turned back into ``tool_use`` blocks."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, field_validator, model_validator

from app.serve import pictures
from app.serve.openai_tools import ID_PATTERN, MAX_TOOLS, NAME_PATTERN
from app.serve.sampling import unicode_text
from app.tools.calls import ToolCall
from wire import images


class TextBlock(BaseModel):
    """Text; earlier thinking (dropped, as Anthropic's API does)."""

    model_config = ConfigDict(extra="ignore")
    type: Literal["text", "thinking", "redacted_thinking"]
    text: str = Field(default="", max_length=1_000_000)

    @field_validator("text")
    @classmethod
    def _text_only(cls, text: str) -> str:
        return unicode_text(text)


class ToolUseBlock(BaseModel):
    """An earlier call of the assistant."""

    model_config = ConfigDict(extra="ignore")
    type: Literal["tool_use"]
    id: str = Field(pattern=ID_PATTERN)
    name: str = Field(pattern=NAME_PATTERN)
    input: dict[str, Any] = Field(default_factory=dict)


class ToolResultBlock(BaseModel):
    """What a tool answered, sent back by the user."""

    model_config = ConfigDict(extra="ignore")
    type: Literal["tool_result"]
    tool_use_id: str = Field(pattern=ID_PATTERN)
    content: str | list[TextBlock] = ""
    is_error: bool = False

    def text(self) -> str:
        body = (
            self.content
            if isinstance(self.content, str)
            else "\n".join(b.text for b in self.content if b.type == "text")
        )
        return f"Error: {body}" if self.is_error else body


class ImageSource(BaseModel):
    model_config = ConfigDict(extra="ignore")
    type: str  # "base64" is read; "url" and "file" are refused
    media_type: str | None = None
    data: str | None = None


class ImageBlock(BaseModel):
    """A picture with a ``base64`` source; one by address (a ``url`` or ``file`` source)
    is refused in words and never fetched."""

    model_config = ConfigDict(extra="ignore")
    type: Literal["image"]
    source: ImageSource
    _data: bytes = PrivateAttr(b"")

    @model_validator(mode="after")
    def _read(self) -> ImageBlock:
        if self.source.type != "base64" or self.source.data is None:
            raise ValueError(pictures.BY_ADDRESS.format(f"a {self.source.type[:16]} source"))
        self._data = pictures.from_base64(self.source.data, "the image")
        return self

    def part(self) -> dict[str, Any]:
        return images.image_part(self._data)


class DocumentBlock(BaseModel):
    """A document: understood, and refused in words (Hearth reads documents through its
    collections)."""

    model_config = ConfigDict(extra="ignore")
    type: Literal["document"]

    @model_validator(mode="after")
    def _refused(self) -> DocumentBlock:
        raise ValueError(
            "document blocks are not read here; add the files to a document collection "
            "(hearth docs add) and ask with it"
        )


Block = Annotated[
    TextBlock | ToolUseBlock | ToolResultBlock | ImageBlock | DocumentBlock,
    Field(discriminator="type"),
]


class AnthropicTool(BaseModel):
    model_config = ConfigDict(extra="ignore")
    name: str = Field(pattern=NAME_PATTERN)
    description: str | None = Field(default=None, max_length=100_000)
    input_schema: dict[str, Any] = Field(default_factory=lambda: {"type": "object"})

    def openai(self) -> dict[str, Any]:
        function = {"name": self.name, "parameters": self.input_schema}
        if self.description:
            function["description"] = self.description
        return {"type": "function", "function": function}


class AnthropicToolChoice(BaseModel):
    model_config = ConfigDict(extra="ignore")
    type: Literal["auto", "any", "tool", "none"]
    name: str | None = Field(default=None, pattern=NAME_PATTERN)

    def openai(self) -> Any:
        if self.type == "any":
            return "required"
        if self.type == "tool":
            return {"type": "function", "function": {"name": self.name or ""}}
        return self.type


MAX_ANTHROPIC_TOOLS = MAX_TOOLS


def engine_messages_of(role: str, content: str | list[Block]) -> list[dict[str, Any]]:
    """One Anthropic message as the engines' messages: tool results become ``tool``
    messages, an assistant's ``tool_use`` blocks its ``tool_calls``."""
    if isinstance(content, str):
        return [{"role": role, "content": content}]
    text: str | list[dict[str, Any]] = "\n".join(
        b.text for b in content if isinstance(b, TextBlock) and b.type == "text"
    )
    if any(isinstance(b, ImageBlock) for b in content):  # the text and pictures, in order
        text = [
            b.part() if isinstance(b, ImageBlock) else {"type": "text", "text": b.text}
            for b in content
            if isinstance(b, ImageBlock) or (isinstance(b, TextBlock) and b.type == "text")
        ]
    results = [
        {"role": "tool", "tool_call_id": b.tool_use_id, "content": b.text()}
        for b in content
        if isinstance(b, ToolResultBlock)
    ]
    calls = [
        {"id": b.id, "type": "function", "function": {"name": b.name, "arguments": b.input}}
        for b in content
        if isinstance(b, ToolUseBlock)
    ]
    message: dict[str, Any] = {"role": role, "content": text}
    if calls:
        message["tool_calls"] = calls
    if results and not text:
        return results
    return [*results, message]


def tool_use_block(call: ToolCall) -> dict[str, Any]:
    return {
        "type": "tool_use",
        "id": call.id.replace("call_", "toolu_", 1),
        "name": call.name,
        "input": call.arguments,
    }
