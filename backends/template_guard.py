"""Keeping what people type apart from what the chat template writes, and bounding the
template itself.

Why: a prompt is tokenised with special tokens parsed, so that the template's
``<|im_start|>`` becomes one control token.  Parsed in message text too, it would let a user
(or a web page pasted into a chat, or an API client) type ``<|im_end|><|im_start|>system``
and fake a turn of the system, or ``<tool_call>`` and fake a tool call.  So before the
template sees the messages, every special-token text in them is *defused*: a zero-width
space after its first character makes it plain characters, which no tokenizer matches as
a token.  The prompt is then rendered and tokenised in one piece, as before, so nothing
else about tokenisation changes (tokenising the pieces apart would, for SentencePiece
vocabularies, add a space before each piece).

The template is a program that comes with the model file; ``bounded_render`` stops one
that runs away (``backends.bounded``).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable
from typing import Any

from backends.bounded import Exceeded, bounded
from backends.engine import EngineError
from wire import protocol
from wire.phrases import Phrase

Render = Callable[[list[dict[str, Any]]], str]
TEMPLATE_SECONDS = 10.0  # real templates take milliseconds
TEMPLATE_EXTRA_BYTES = 1024 * 1024 * 1024
ZERO_WIDTH = "\u200b"


class Defuser:
    """Defuses the special-token texts of one vocabulary in message texts."""

    def __init__(self, special_texts: Iterable[str]) -> None:
        texts = sorted({t for t in special_texts if len(t) > 1}, key=len, reverse=True)
        self._starts = frozenset(t[0] for t in texts)
        self._pattern = re.compile("|".join(map(re.escape, texts))) if texts else None
        # Earlier messages come back at every turn: each text is defused once.
        self.text = functools.lru_cache(maxsize=4096)(self._defuse)

    def _defuse(self, text: str) -> str:
        if self._pattern is None or not any(c in self._starts for c in set(text)):
            return text  # the common case: no character a special token starts with
        return self._pattern.sub(lambda m: m.group(0)[0] + ZERO_WIDTH + m.group(0)[1:], text)

    def messages(self, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Each message's text, and the texts inside its tool calls (a name or an argument
        is written into the prompt as well)."""
        defused = []
        for message in messages:
            body = message.get("content", "")
            content: Any = (
                [self._part(part) for part in body]
                if isinstance(body, list)
                else self.text(str(body))
            )
            copy = {**message, "content": content}
            for key in ("tool_calls", "name", "tool_call_id"):
                if key in message:
                    copy[key] = self.values(message[key])
            defused.append(copy)
        return defused

    def _part(self, part: Any) -> Any:
        """A text part of a message with pictures, defused; a picture as it is."""
        if isinstance(part, dict) and part.get("type") == "text":
            return {**part, "text": self.text(str(part.get("text", "")))}
        return part

    def values(self, value: Any) -> Any:
        """Every text inside ``value`` (lists and objects, their keys too) defused: tool
        calls and the request's tool list are written into the prompt as well."""
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, list):
            return [self.values(item) for item in value]
        if isinstance(value, dict):
            return {self.values(key): self.values(item) for key, item in value.items()}
        return value


def bounded_render(render: Render) -> Render:
    """``render`` with a bound on its time and memory (``backends.bounded``): a template
    that runs away is stopped and reported, never left to hang or fill the memory."""

    def run(messages: list[dict[str, Any]]) -> str:
        try:
            with bounded(TEMPLATE_SECONDS, TEMPLATE_EXTRA_BYTES):
                return render(messages)
        except Exceeded as exc:
            raise EngineError(
                protocol.ERR_MODEL_INVALID,
                Phrase(
                    "The model's chat template ran away ({0} limit reached) and was stopped. "
                    "This model file cannot be used as it is; choose another model.",
                    Phrase("time") if exc.what == "time" else Phrase("memory"),
                ),
            ) from exc

    return run
