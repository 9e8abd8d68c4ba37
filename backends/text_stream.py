"""Turning a stream of token bytes into clean text deltas.

Two things go wrong in naive streaming and both are handled here, for every engine:

* A multi-byte UTF-8 character (Chinese, emoji) is often split across tokens.  Decoding
  each token on its own prints replacement characters.  ``TextAssembler`` keeps an
  incremental UTF-8 decoder, so a character is released only once it is complete; the
  concatenated deltas therefore equal the decoded whole reply.
  A character cut in half by the token limit at the very end is dropped.
* A stop string (for example ``\\nUser:`` in the fallback template) may arrive in pieces.
  Text that could still become a stop string is held back until it is decided.
"""

from __future__ import annotations

import codecs
from collections.abc import Callable, Sequence
from typing import Any

from wire import protocol


class TextAssembler:
    """Feed token bytes, get text that is safe to show; tells when a stop string appeared."""

    def __init__(self, stop_strings: Sequence[str] = (), strip_leading: bool = True) -> None:
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._stops = [s for s in stop_strings if s]
        self._held = ""
        self._strip_leading = strip_leading
        self._started = False
        self.stopped = False
        self.stopped_by = ""  # the stop string that ended the text
        self.text = ""  # everything released so far

    def feed(self, data: bytes) -> str:
        """Add one token's bytes; return the text that can be shown now."""
        if self.stopped:
            return ""
        return self._release(self._decoder.decode(data, final=False))

    def finish(self) -> str:
        """End of stream: flush whatever is held (an unfinished stop string is just text).
        The bytes of a character the token limit cut in half are dropped, never shown as
        U+FFFD."""
        if self.stopped:
            return ""
        self._decoder.reset()  # an incomplete character at the very end: left out
        out = self._release("")
        rest, self._held = self._held, ""
        rest = self._leading(rest)
        self.text += rest
        return out + rest

    def _leading(self, text: str) -> str:
        if self._strip_leading and not self._started:
            text = text.lstrip(" ")
            self._started = bool(text)
        return text

    def _release(self, new: str) -> str:
        if not new and not self._held:
            return ""
        buffer = self._held + new
        found = [i for i in (buffer.find(stop) for stop in self._stops) if i != -1]
        if found:  # the earliest stop string ends the text, whichever was listed first
            self.stopped = True
            at = min(found)
            self.stopped_by = next(stop for stop in self._stops if buffer.find(stop) == at)
            out = self._leading(buffer[:at])
            self._held = ""
            self.text += out
            return out
        keep = longest_prefix_at_end(buffer, self._stops)
        out, self._held = buffer[: len(buffer) - keep], buffer[len(buffer) - keep :]
        out = self._leading(out)
        self.text += out
        return out


def complete_text(data: bytes) -> str:
    """``data`` decoded as UTF-8, without an incomplete character at its end (a reply cut
    by its token limit): the same text ``TextAssembler`` streams."""
    return codecs.getincrementaldecoder("utf-8")(errors="replace").decode(data, final=False)


def longest_prefix_at_end(text: str, stops: Sequence[str]) -> int:
    """Length of the longest end of ``text`` that could still grow into one of ``stops``
    (held back by stop-string and tag detection until it is decided)."""
    best = 0
    for stop in stops:
        for length in range(min(len(stop) - 1, len(text)), best, -1):
            if text.endswith(stop[:length]):
                best = length
                break
    return best


def request_stops(raw: Any) -> tuple[str, ...]:
    """A request's ``stop``: one string or a list of them (empty ones mean nothing)."""
    if isinstance(raw, str):
        raw = [raw]
    if not isinstance(raw, list):
        return ()
    return tuple(str(s) for s in raw if isinstance(s, str) and s)


def stop_notice(assembler: TextAssembler, asked: Sequence[str]) -> dict[str, Any] | None:
    """The ``stop_sequence`` notice when one of the request's stop strings ended the reply
    (Anthropic's API names it in ``stop_sequence``); None for a template's own stops."""
    if assembler.stopped and assembler.stopped_by in asked:
        return {
            "type": protocol.NOTICE,
            "kind": protocol.NOTICE_STOP_SEQUENCE,
            "text": assembler.stopped_by,
        }
    return None


REASONING, ANSWER, RETRO = "reasoning", "answer", "retro"


class ThinkSplitter:
    """Separate ``<think>…</think>`` reasoning from the answer in streamed text.

    Handles a tag split across chunks (held back until decided) and the implied opening
    tag of templates that end the prompt with ``<think>`` (DeepSeek-R1 distills): text
    arrives as answer until ``</think>`` shows it was reasoning, and a ``("retro", "")``
    piece then says "the answer so far was reasoning", so a viewer can move it once.
    """

    OPEN, CLOSE = "<think>", "</think>"

    def __init__(self) -> None:
        self.thinking = False
        self.opened = False  # an opening tag was seen (or implied and found out)
        self.answered = False  # answer text was handed out
        self.held = ""

    def feed(self, text: str) -> list[tuple[str, str]]:
        """Return (kind, text) pieces, kind "reasoning", "answer" or "retro"."""
        out: list[tuple[str, str]] = []
        buffer = self.held + text
        self.held = ""
        while buffer:
            tag = self.CLOSE if self.thinking else self.OPEN
            index = buffer.find(tag)
            close_index = buffer.find(self.CLOSE)
            if (
                not self.thinking
                and not self.opened
                and close_index != -1
                and (index == -1 or close_index < index)
            ):
                # "</think>" without an opening tag: everything before it was reasoning.
                if self.answered:
                    out.append((RETRO, ""))
                out.append((REASONING, buffer[:close_index]))
                self.opened = True
                buffer = buffer[close_index + len(self.CLOSE) :]
                continue
            if index == -1:
                keep = longest_prefix_at_end(buffer, (self.OPEN, self.CLOSE))
                piece, self.held = buffer[: len(buffer) - keep], buffer[len(buffer) - keep :]
                if piece:
                    out.append(self._piece(piece))
                break
            if buffer[:index]:
                out.append(self._piece(buffer[:index]))
            buffer = buffer[index + len(tag) :]
            self.thinking = not self.thinking
            self.opened = True
        return [(kind, piece) for kind, piece in out if piece or kind == RETRO]

    def _piece(self, text: str) -> tuple[str, str]:
        if self.thinking:
            return (REASONING, text)
        self.answered = self.answered or bool(text.strip())
        return (ANSWER, text)

    def finish(self) -> list[tuple[str, str]]:
        held, self.held = self.held, ""
        return [self._piece(held)] if held else []


class ReasoningSplit:
    """Wraps an engine's ``emit``: its deltas' text leaves split into answer (``text``) and
    thinking (``reasoning``), one event per piece, in order.

    The worker puts this around every engine, so the split happens once, in one place, for
    the window, ``hearth chat`` and ``hearth serve`` alike.  Reasoning that an engine
    already sends apart (a server's ``reasoning_content``) passes through untouched.
    """

    def __init__(self, emit: Callable[[dict[str, Any]], None]) -> None:
        self._emit = emit
        self._splitter = ThinkSplitter()

    def __call__(self, event: dict[str, Any]) -> None:
        if event.get("type") == protocol.DELTA:
            reasoning = event.get(protocol.DELTA_REASONING)
            if reasoning:
                self._emit({**event, protocol.DELTA_TEXT: "", protocol.DELTA_REASONING: reasoning})
            text = event.get(protocol.DELTA_TEXT)
            if text:
                self._send(self._splitter.feed(str(text)))
            return
        if event.get("type") == protocol.STATS:
            self.flush()  # a tag-like ending held back is text after all: before the stats
        self._emit(event)

    def flush(self) -> None:
        """The reply ended: send what was held back while it could still become a tag."""
        self._send(self._splitter.finish())

    def _send(self, pieces: list[tuple[str, str]]) -> None:
        for kind, piece in pieces:
            event: dict[str, Any]
            if kind == REASONING:
                event = {protocol.DELTA_TEXT: "", protocol.DELTA_REASONING: piece}
            elif kind == RETRO:
                event = {protocol.DELTA_TEXT: "", protocol.MOVED_TO_REASONING: True}
            else:
                event = {protocol.DELTA_TEXT: piece}
            self._emit({"type": protocol.DELTA, **event})
