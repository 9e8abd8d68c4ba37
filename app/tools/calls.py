"""Tool calls read out of a model's reply, in the formats open models write them.

* Hermes, Qwen 2.5/3 and Hearth's own prompt for templates without tools:
  ``<tool_call>{"name": …, "arguments": {…}}</tool_call>``, any number, after some text or not;
* Mistral: ``[TOOL_CALLS][{"name": …, "arguments": {…}}, …]``;
* Llama 3.x: the whole reply is ``{"name": …, "parameters": {…}}`` (or a list of them),
  sometimes after ``<|python_tag|>``.

Only calls of the request's own tools count: a JSON answer that happens to have a
``name`` is an answer.  While streaming, text is released as it comes until a call may have
begun (a marker, or a reply that opens with ``{``); from there it is held back and read at
the end, so a client never sees half a call as text.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any

OPEN, CLOSE = "<tool_call>", "</tool_call>"  # Hermes' (and Qwen's) markup around a call
MARKERS = ("<tool_call>", "[TOOL_CALLS]", "<|python_tag|>")
# A reply that opens as a JSON call (Llama's style): ``{"name":`` first, or a list of such.
_JSON_CALL = re.compile(r'\s*(\[\s*)?\{\s*"name"\s*:')


@dataclass(frozen=True)
class ToolCall:
    name: str
    arguments: dict[str, Any]
    id: str = field(default_factory=lambda: f"call_{uuid.uuid4().hex[:24]}")

    def openai(self, index: int | None = None) -> dict[str, Any]:
        call: dict[str, Any] = {
            "id": self.id,
            "type": "function",
            "function": {"name": self.name, "arguments": json.dumps(self.arguments)},
        }
        return call if index is None else {"index": index, **call}


def parse_tool_calls(
    text: str, names: Collection[str], cut: bool = False
) -> tuple[str, list[ToolCall]]:
    """(the text that is not a call, the calls) of a whole reply.  A reply ``cut`` short
    (its token limit) in the middle of a call gives the calls written whole, and never the
    unfinished one as text: its markup is the template's, not an answer."""
    if cut:
        return _cut_reply(text, names)
    return _whole_reply(text, names)


def _cut_reply(text: str, names: Collection[str]) -> tuple[str, list[ToolCall]]:
    at = call_start(text)
    if at < 0:
        return _whole_reply(text, names)
    before, calls = _whole_reply(text[:at], names)
    tail = text[at:]
    if OPEN in tail:  # Hermes' calls written whole before the one cut
        written = hermes_calls(tail)
        calls += [c for raw, _span in written for c in _calls_in(raw, names)]
        last, (start, _end) = written[-1]
        tail = "" if _calls_in(last, names) else tail[start:]
    if tail and not _begun_call(tail, names):  # prose or an answer that was cut: kept
        return ((before + tail).rstrip(), calls) if calls else _whole_reply(text, names)
    return before.rstrip(), calls


# The head of a call as far as it was written: ``{"name": "par`` (after a marker or not).
_CALL_HEAD = re.compile(r'\s*(?:\[\s*)?\{\s*"name"\s*:\s*"((?:[^"\\]|\\.)*)("?)')
_HEADS = ('{"name":"', '[{"name":"')


def _begun_call(tail: str, names: Collection[str]) -> bool:
    """Whether ``tail``, cut short, is the beginning of a call of one of ``names``: a
    marker with nothing after it yet, or a call's head whose name (as far as it was
    written) is one of theirs.  A JSON answer ``{"name": "Alice", …`` or prose that
    mentions ``<tool_call>`` is not."""
    body = next((tail[len(m) :] for m in MARKERS if tail.startswith(m)), tail)
    head = _CALL_HEAD.match(body)
    if head is None:
        squeezed = "".join(body.split())
        return any(h.startswith(squeezed) for h in _HEADS)
    written, closed = head.group(1), bool(head.group(2))
    return any(name == written if closed else name.startswith(written) for name in names)


def hermes_calls(text: str) -> list[tuple[str, tuple[int, int]]]:
    """Each ``<tool_call>…</tool_call>`` in ``text``: its JSON (as written) and where the
    whole call stands.  The JSON is read as JSON, so a ``</tool_call>`` inside one of its
    strings (a model's argument) does not end it; what is not JSON runs to the next
    closing tag, or to the end."""
    found: list[tuple[str, tuple[int, int]]] = []
    decoder = json.JSONDecoder()
    at = text.find(OPEN)
    while at >= 0:
        start = at + len(OPEN)
        while start < len(text) and text[start].isspace():
            start += 1
        try:
            end = decoder.raw_decode(text, start)[1]
        except (ValueError, RecursionError):
            closing = text.find(CLOSE, start)
            end = len(text) if closing < 0 else closing
        raw = text[start:end].strip()
        after = end
        while after < len(text) and text[after].isspace():
            after += 1
        if text.startswith(CLOSE, after):
            end = after + len(CLOSE)
        found.append((raw, (at, end)))
        at = text.find(OPEN, end)
    return found


def call_start(text: str) -> int:
    """Where a tool call begins in ``text`` (-1: none does): a marker, or a reply that
    opens as a JSON call (``{"name": …``)."""
    found = [i for i in (text.find(m) for m in MARKERS) if i >= 0]
    if found:
        return min(found)
    opening = _JSON_CALL.match(text)
    if opening is not None:
        return len(text) - len(text.lstrip())
    return -1


def _whole_reply(text: str, names: Collection[str]) -> tuple[str, list[ToolCall]]:
    if OPEN in text:
        written = hermes_calls(text)
        calls = [c for raw, _span in written for c in _calls_in(raw, names)]
        if calls:
            kept, last = [], 0
            for _raw, (start, end) in written:
                kept.append(text[last:start])
                last = end
            return ("".join(kept) + text[last:]).strip(), calls
    if "[TOOL_CALLS]" in text:
        before, _, after = text.partition("[TOOL_CALLS]")
        calls = _calls_in(after.strip(), names)
        if calls:
            return before.strip(), calls
    stripped = text.strip().removeprefix("<|python_tag|>").strip()
    if stripped.startswith(("{", "[")):
        calls = _calls_in(stripped, names)
        if calls:
            return "", calls
    return text, []


def _calls_in(raw: str, names: Collection[str]) -> list[ToolCall]:
    """The calls in one JSON value (an object or a list of them); none if any is not a
    call of a known tool."""
    try:
        value = json.loads(raw)
    except (ValueError, RecursionError):  # not JSON, or nested past the parser's depth
        return []
    items = value if isinstance(value, list) else [value]
    calls = []
    for item in items:
        name = item.get("name") if isinstance(item, dict) else None
        if not isinstance(name, str) or name not in names:
            return []
        arguments = item.get("arguments", item.get("parameters", {}))
        if isinstance(arguments, str):
            try:
                arguments = json.loads(arguments)
            except (ValueError, RecursionError):
                return []
        if not isinstance(arguments, dict):
            return []
        calls.append(ToolCall(str(item["name"]), arguments))
    return calls


class ToolCallStream:
    """Releases a streamed reply's text, holding back from where a tool call may start."""

    def __init__(self, names: Collection[str]) -> None:
        self.names = names
        self.text = ""
        self.released = 0
        self.holding = False

    def feed(self, piece: str) -> str:
        self.text += piece
        if self.holding:
            return ""
        if not self.text.strip():
            return ""  # a reply may open with blank space before its JSON call
        if self.text.lstrip().startswith(("{", "[")):
            self.holding = True
            return ""
        at = min(
            (i for i in (self.text.find(m, self.released) for m in MARKERS) if i >= 0), default=-1
        )
        if at >= 0:
            self.holding = True
            return self._release(at)
        return self._release(len(self.text) - _partial_marker(self.text))

    def finish(self, cut: bool = False) -> tuple[str, list[ToolCall]]:
        """The rest of the text (what was held and is no call) and the calls; a reply
        ``cut`` by its token limit keeps the calls it wrote whole and drops the one cut."""
        rest, calls = parse_tool_calls(self.text[self.released :], self.names, cut)
        if not calls and not cut:
            rest = self.text[self.released :]
        self.released = len(self.text)
        return rest, calls

    def _release(self, end: int) -> str:
        out = self.text[self.released : end]
        self.released = max(self.released, end)
        return out


def _partial_marker(text: str) -> int:
    """How many characters at the end of ``text`` may be the start of a marker."""
    longest = 0
    for marker in MARKERS:
        for size in range(1, len(marker)):
            if text.endswith(marker[:size]):
                longest = max(longest, size)
    return longest
