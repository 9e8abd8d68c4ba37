"""Server-sent events as OpenAI-compatible servers send them, and ``<think>`` splitting.

``sse_data`` turns a stream of text lines into event payloads: ``data:`` lines (several
per event are joined), comments (``:``) and keep-alive blank lines are skipped, ``event:
error`` is reported, and ``[DONE]`` ends the stream.

``ThinkSplitter`` separates reasoning from the answer for models that write it inline as
``<think>…</think>`` (also when the opening tag is implied by the template and only
``</think>`` arrives), with tags split across chunks held back until they are decided.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from backends.text_stream import longest_prefix_at_end

DONE = "[DONE]"


@dataclass(frozen=True)
class SSEEvent:
    data: str
    event: str = "message"


def sse_events(lines: Iterable[str]) -> Iterator[SSEEvent]:
    data: list[str] = []
    event = "message"
    for raw in lines:
        line = raw.rstrip("\r\n")
        if not line:
            if data:
                payload = "\n".join(data)
                data, kind, event = [], event, "message"
                if payload.strip() == DONE:
                    return
                yield SSEEvent(payload, kind)
            continue
        if line.startswith(":"):
            continue  # a comment or keep-alive
        field, _, value = line.partition(":")
        value = value[1:] if value.startswith(" ") else value
        if field == "data":
            data.append(value)
        elif field == "event":
            event = value
    if data:
        payload = "\n".join(data)
        if payload.strip() != DONE:
            yield SSEEvent(payload, event)


class ThinkSplitter:
    OPEN, CLOSE = "<think>", "</think>"

    def __init__(self) -> None:
        self.thinking = False
        self.decided = False  # whether the reply started with <think> (or an implied one)
        self.held = ""

    def feed(self, text: str) -> list[tuple[str, str]]:
        """Return (kind, text) pieces, kind "reasoning" or "answer"."""
        out: list[tuple[str, str]] = []
        buffer = self.held + text
        self.held = ""
        while buffer:
            tag = self.CLOSE if self.thinking else self.OPEN
            index = buffer.find(tag)
            close_index = buffer.find(self.CLOSE)
            if not self.thinking and close_index != -1 and (index == -1 or close_index < index):
                # "</think>" without an opening tag: everything before it was reasoning.
                out.append(("reasoning", buffer[:close_index]))
                buffer = buffer[close_index + len(self.CLOSE) :]
                continue
            if index == -1:
                keep = longest_prefix_at_end(buffer, (self.OPEN, self.CLOSE))
                piece, self.held = buffer[: len(buffer) - keep], buffer[len(buffer) - keep :]
                if piece:
                    out.append(("reasoning" if self.thinking else "answer", piece))
                break
            if buffer[:index]:
                out.append(("reasoning" if self.thinking else "answer", buffer[:index]))
            buffer = buffer[index + len(tag) :]
            self.thinking = not self.thinking
        return [(kind, piece) for kind, piece in out if piece]

    def finish(self) -> list[tuple[str, str]]:
        held, self.held = self.held, ""
        return [("reasoning" if self.thinking else "answer", held)] if held else []
