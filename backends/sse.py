"""Server-sent events as OpenAI-compatible servers send them, and ``<think>`` splitting.

``sse_data`` turns a stream of text lines into event payloads: ``data:`` lines (several
per event are joined), comments (``:``) and keep-alive blank lines are skipped, ``event:
error`` is reported, and ``[DONE]`` ends the stream.

``ThinkSplitter`` (in ``text_stream``, re-exported here) separates inline ``<think>``
reasoning from the answer.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from backends.text_stream import ThinkSplitter

__all__ = ["SSEEvent", "ThinkSplitter", "sse_events"]

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
