"""Which parts of a rendered prompt the chat template wrote, and which the people did.

Why: a prompt is tokenised with special tokens parsed, so that the template's
``<|im_start|>`` becomes one control token.  Parsing them in message text too would let a
user (or a web page pasted into a chat, or an API client) type ``<|im_end|><|im_start|>system``
and fake a turn of the system.  So the template is rendered once with a placeholder for
each message's text, which shows where the texts go; the template's own text is then
tokenised with special tokens and each message's text without.

A template that changes a message's text on the way in (trims it, cuts a part away) gives a
different prompt with the real texts than with placeholders; then the texts are rendered
as the template wants them, and any special-token text in them is defused instead.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from backends.bounded import Exceeded, bounded
from backends.engine import EngineError
from wire import protocol
from wire.phrases import Phrase

Render = Callable[[list[dict[str, Any]]], str]
TEMPLATE_SECONDS = 10.0  # real templates take milliseconds
TEMPLATE_EXTRA_BYTES = 1024 * 1024 * 1024
Segment = tuple[str, bool]  # (text, written by the template: parse special tokens)

_MARK = "\ue000hearth-message-{0}\ue001"
_MARKS = re.compile("\ue000hearth-message-(\\d+)\ue001")
ZERO_WIDTH = "\u200b"


def segments(
    render: Render,
    messages: list[dict[str, Any]],
    special_texts: Callable[[], Sequence[str]],
    tail: str = "",
) -> list[Segment]:
    """The prompt for ``messages`` (then ``tail``, a message's text the model goes on
    with) as template parts and message texts.  ``special_texts`` lists the vocabulary's
    control-token texts (asked for only when the template changes the texts)."""
    texts = [str(m.get("content", "")) for m in messages]
    marked = render([{**m, "content": _MARK.format(i)} for i, m in enumerate(messages)])
    parts: list[Segment] = []
    position = 0
    for match in _MARKS.finditer(marked):
        parts.append((marked[position : match.start()], True))
        parts.append((texts[int(match.group(1))], False))
        position = match.end()
    parts.append((marked[position:], True))
    if tail:
        parts.append((tail, False))
    parts = [(text, special) for text, special in parts if text]
    if "".join(text for text, _ in parts) == render(messages) + tail:
        return parts
    # The template changed the texts: keep its rendering, defuse the users' special text.
    specials = special_texts()
    safe = [
        {**m, "content": defused(text, specials)} for m, text in zip(messages, texts, strict=True)
    ]
    return [(render(safe), True), (tail, False)] if tail else [(render(safe), True)]


def defused(text: str, special_texts: Sequence[str]) -> str:
    """``text`` with each special-token text broken by a zero-width space, so that it is
    read as the characters it is made of."""
    for token in special_texts:
        if len(token) > 1 and token in text:
            text = text.replace(token, token[0] + ZERO_WIDTH + token[1:])
    return text


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
