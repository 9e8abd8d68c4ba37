"""What every dialect validates the same way: text, stop strings, and sampling fields
with their ranges taken from the one settings declaration (``app.settings``), so a limit
is written once.  A request may not ask for "unlimited" tokens or a random seed by number:
it leaves them out."""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from app.settings import highest, lowest

MAX_STOPS = 4  # as OpenAI's API
MAX_STOP_CHARS = 200
MAX_BIASED_TOKENS = 300  # as OpenAI's API
MAX_TEXT = 1_000_000  # characters in one message or prompt
MAX_MESSAGES = 10_000
# The sampling fields every dialect passes to the engine as they are, by the same names.
SAMPLERS = (
    "temperature",
    "top_p",
    "top_k",
    "min_p",
    "repeat_penalty",
    "presence_penalty",
    "frequency_penalty",
)


def ranged(key: str) -> Any:
    """An optional field with the range the settings declaration gives ``key``."""
    return Field(default=None, ge=lowest(key), le=highest(key))


def reply_limit() -> Any:
    """An optional token limit: at least one, at most the setting's largest."""
    return Field(default=None, ge=1, le=highest("sampling.max_tokens"))


def unicode_text(text: str) -> str:
    """JSON may carry lone surrogates (``\\ud800``), which are no text: refused with the
    field's name rather than passed to a tokenizer."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError("the text contains lone surrogates (\\ud800-\\udfff)") from None
    return text


def checked_stops(stops: list[str]) -> list[str]:
    """An empty stop string would end every reply at once: refused, as too many are."""
    if len(stops) > MAX_STOPS:
        raise ValueError(f"at most {MAX_STOPS} stop strings")
    if any(not 1 <= len(text) <= MAX_STOP_CHARS for text in stops):
        raise ValueError(f"each stop string must be 1 to {MAX_STOP_CHARS} characters")
    return stops


def given(model: BaseModel, keys: tuple[str, ...]) -> dict[str, Any]:
    """The fields among ``keys`` that the request set."""
    return {key: getattr(model, key) for key in keys if getattr(model, key) is not None}


class Sampling(BaseModel):
    """The sampling fields OpenAI's chat and completions share, with their checks."""

    model_config = ConfigDict(extra="ignore")
    model: str | None = None
    stream: bool = False
    temperature: float | None = ranged("sampling.temperature")
    top_p: float | None = ranged("sampling.top_p")
    # Not OpenAI's, but sent to OpenAI-compatible servers by many clients (llama-server,
    # vLLM and LM Studio take them): as Hearth's own settings, with their ranges.
    top_k: int | None = ranged("sampling.top_k")
    min_p: float | None = ranged("sampling.min_p")
    repeat_penalty: float | None = ranged("sampling.repeat_penalty")
    max_tokens: int | None = reply_limit()
    n: int = Field(default=1, ge=1, le=4)  # each choice is a whole generation
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
        checked_stops([stop] if isinstance(stop, str) else list(stop or []))
        return stop

    def stops(self) -> list[str]:
        return [self.stop] if isinstance(self.stop, str) else list(self.stop or [])

    def reply_limit(self) -> int | None:
        return self.max_tokens

    def params(self) -> dict[str, Any]:
        """The engine's parameters the request set (over the model's defaults)."""
        params = given(self, (*SAMPLERS, "seed"))
        if self.logit_bias:
            params["logit_bias"] = dict(self.logit_bias)
        limit = self.reply_limit()
        if limit is not None:
            params["max_tokens"] = limit
        if self.stops():
            params["stop"] = self.stops()
        return params
