"""Ollama's requests as Hearth validates them (``options`` with the ranges of the settings
declaration), their translation into the pipeline's ``Ask``, and what Ollama's listing
routes say about a model (``ModelFacts``)."""

from __future__ import annotations

import hashlib
import os
import re
import time
from datetime import UTC, datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, field_validator, model_validator

from app.engines import GRAMMAR, IMAGES, RAW_PROMPT, TOOLS
from app.serve import pictures
from app.serve.embeddings import inputs_of
from app.serve.naming import ollama_name
from app.serve.openai_tools import MAX_TOOLS, NAME_PATTERN, ToolSpec
from app.serve.pipeline import Ask
from app.serve.sampling import (
    MAX_MESSAGES,
    MAX_TEXT,
    SAMPLERS,
    checked_stops,
    given,
    ranged,
    unicode_text,
)
from app.settings import highest
from wire import images


def now_iso() -> str:
    return iso(time.time())


def iso(stamp: float) -> str:
    return datetime.fromtimestamp(stamp, UTC).isoformat().replace("+00:00", "Z")


class OllamaOptions(BaseModel):
    """Ollama's ``options``, with Hearth's ranges; options that only concern how Ollama
    runs a model (``num_ctx``, ``num_gpu``, ``num_thread``…) are accepted and left to the
    server's own settings."""

    model_config = ConfigDict(extra="ignore")
    temperature: float | None = ranged("sampling.temperature")
    top_p: float | None = ranged("sampling.top_p")
    top_k: int | None = ranged("sampling.top_k")
    min_p: float | None = ranged("sampling.min_p")
    repeat_penalty: float | None = ranged("sampling.repeat_penalty")
    seed: int | None = Field(default=None, ge=-1, le=highest("sampling.seed"))  # -1: random
    # -1: no limit, -2: until the context is full (both: the server's own limit)
    num_predict: int | None = Field(default=None, ge=-2, le=highest("sampling.max_tokens"))
    stop: list[str] | None = None
    presence_penalty: float | None = Field(default=None, ge=-2.0, le=2.0)
    frequency_penalty: float | None = Field(default=None, ge=-2.0, le=2.0)

    @field_validator("stop")
    @classmethod
    def _stops_in_range(cls, stop: list[str] | None) -> list[str] | None:
        return checked_stops(stop) if stop is not None else None

    def params(self) -> dict[str, Any]:
        params = given(self, SAMPLERS)
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


def read_pictures(sent: list[str] | None) -> list[bytes]:
    """Ollama's ``images``: base64 files (a ``data:`` URL too, as some clients send)."""
    return [
        pictures.from_url(data, f"image {number}")
        if data.startswith("data:")
        else pictures.from_base64(data, f"image {number}")
        for number, data in enumerate(sent or [], 1)
    ]


class OllamaMessage(BaseModel):
    model_config = ConfigDict(extra="ignore")
    role: Literal["system", "user", "assistant", "tool"]
    content: str = Field(default="", max_length=MAX_TEXT)
    images: list[str] | None = Field(default=None, max_length=images.MAX_IMAGES_PER_MESSAGE)
    tool_calls: list[OllamaToolCall] | None = Field(default=None, max_length=MAX_TOOLS)
    tool_name: str | None = Field(default=None, pattern=NAME_PATTERN)
    _pictures: list[bytes] = PrivateAttr(default_factory=list)

    @field_validator("content")
    @classmethod
    def _text_only(cls, content: str) -> str:
        return unicode_text(content)

    @model_validator(mode="after")
    def _read(self) -> OllamaMessage:
        self._pictures = read_pictures(self.images)
        return self

    def as_engine_message(self) -> dict[str, Any]:
        """The message as the engines take it (earlier tool calls in OpenAI's shape, which
        the engines read)."""
        engine: dict[str, Any] = {
            "role": self.role,
            "content": images.content(self.content, self._pictures),
        }
        if self.tool_calls:
            engine["tool_calls"] = [
                {"id": "", "type": "function", "function": call.function.model_dump()}
                for call in self.tool_calls
            ]
        if self.tool_name:
            engine["name"] = self.tool_name
        return engine


FormatField = Literal["json"] | dict[str, Any] | None


class Generation(BaseModel):
    """What ``/api/chat`` and ``/api/generate`` share."""

    model_config = ConfigDict(extra="ignore")
    model: str = Field(default="", max_length=500)
    stream: bool = True
    format: FormatField = None
    options: OllamaOptions | None = None
    keep_alive: str | int | float | None = None
    think: bool | str | None = None

    @field_validator("keep_alive")
    @classmethod
    def _a_duration(cls, value: str | int | float | None) -> str | int | float | None:
        keep_alive_seconds(value)
        return value

    @property
    def keep_alive_s(self) -> float | None:
        return keep_alive_seconds(self.keep_alive)

    def response_format(self) -> dict[str, Any] | None:
        """``format`` as the engines' ``response_format``."""
        if self.format == "json":
            return {"type": "json_object"}
        if isinstance(self.format, dict):
            return {"type": "json_schema", "json_schema": {"name": "format", "schema": self.format}}
        return None

    def params(self) -> dict[str, Any]:
        params = self.options.params() if self.options else {}
        wanted = self.response_format()
        if wanted is not None:
            params["response_format"] = wanted
        return params

    def needs(self) -> dict[str, str]:
        return {GRAMMAR: "format"} if self.response_format() is not None else {}


class OllamaChat(Generation):
    messages: list[OllamaMessage] = Field(default_factory=list, max_length=MAX_MESSAGES)
    tools: list[ToolSpec] | None = Field(default=None, max_length=MAX_TOOLS)

    def params(self) -> dict[str, Any]:
        params = super().params()
        if self.tools:
            params["tools"] = [tool.model_dump(exclude_none=True) for tool in self.tools]
            params["tool_choice"] = "auto"
        return params

    def needs(self) -> dict[str, str]:
        needs = super().needs()
        if any(message.images for message in self.messages):
            needs = {IMAGES: "images", **needs}
        if self.tools:
            needs[TOOLS] = "tools"
        return needs

    def ask(self) -> Ask:
        return Ask(
            self.model or None,
            messages=[m.as_engine_message() for m in self.messages],
            params=self.params(),
            tool_names=frozenset(tool.function.name for tool in self.tools or []),
            needs=self.needs(),
            keep_alive_s=self.keep_alive_s,
        )


class OllamaGenerate(Generation):
    prompt: str = Field(default="", max_length=MAX_TEXT)
    system: str | None = Field(default=None, max_length=MAX_TEXT)
    suffix: str | None = None
    raw: bool = False
    images: list[str] | None = Field(default=None, max_length=images.MAX_IMAGES_PER_MESSAGE)
    _pictures: list[bytes] = PrivateAttr(default_factory=list)

    @model_validator(mode="after")
    def _read(self) -> OllamaGenerate:
        self._pictures = read_pictures(self.images)
        if self._pictures and (self.raw or self.suffix is not None):
            raise ValueError(
                "images go with a prompt in the model's template: a raw prompt or a suffix "
                "reads text only"
            )
        return self

    @field_validator("prompt")
    @classmethod
    def _text_only(cls, prompt: str) -> str:
        return unicode_text(prompt)

    @property
    def asks_nothing(self) -> bool:
        return not (self.prompt or self.system or self.suffix)

    def ask(self) -> Ask:
        needs = super().needs()
        if self.images:
            needs = {IMAGES: "images", **needs}
        raw = self.raw or self.suffix is not None
        if raw:  # the prompt as it is (raw), or the middle between prompt and suffix
            needs[RAW_PROMPT] = "raw prompts and suffix (fill-in-the-middle)"
            return Ask(
                self.model or None,
                prompt=self.prompt,
                suffix=self.suffix,
                params=self.params(),
                needs=needs,
                keep_alive_s=self.keep_alive_s,
            )
        messages: list[dict[str, Any]] = (
            [{"role": "system", "content": self.system}] if self.system else []
        )
        messages.append({"role": "user", "content": images.content(self.prompt, self._pictures)})
        return Ask(
            self.model or None,
            messages=messages,
            params=self.params(),
            needs=needs,
            keep_alive_s=self.keep_alive_s,
        )


class OllamaEmbed(BaseModel):
    model_config = ConfigDict(extra="ignore")
    model: str = Field(default="", max_length=500)
    input: str | list[str]
    truncate: bool = True  # inputs are never cut here: a long one is refused in words
    keep_alive: str | int | float | None = None

    @field_validator("keep_alive")
    @classmethod
    def _a_duration(cls, value: str | int | float | None) -> str | int | float | None:
        keep_alive_seconds(value)
        return value

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
    """What Ollama's listing routes say about a model, from the library's entry (its
    ``path``, ``engine``, size and architecture) and the file itself."""

    def __init__(self, name: str, facts: dict[str, Any]) -> None:
        self.name, self.facts = name, facts
        self.path = str(facts.get("path") or "")
        self.engine = str(facts.get("engine") or "")
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
        return iso(stamp)

    def details(self) -> dict[str, Any]:
        family = str(self.facts.get("architecture") or "")
        parameters = self.facts.get("parameters")
        return {
            "parent_model": "",
            "format": "gguf" if self.facts.get("format", "gguf") == "gguf" else "safetensors",
            "family": family,
            "families": [family] if family else None,
            "parameter_size": parameter_size(parameters) if isinstance(parameters, int) else "",
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


def parameter_size(parameters: int) -> str:
    """Ollama's ``parameter_size``: 135M, 7.6B."""
    if parameters >= 1_000_000_000:
        return f"{parameters / 1e9:.1f}B"
    return f"{parameters / 1e6:.0f}M"


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
