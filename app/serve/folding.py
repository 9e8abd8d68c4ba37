"""A generation's engine events, folded into what every dialect answers: the answer and
the thinking (streamed as pieces, or whole), the tool calls read out of the answer, the
token probabilities, the usage and the finish reason.

Every dialect reads the same fold, so the rules live once: thinking that turned out to be
thinking after all (``moved_to_reasoning``) moves in a whole reply; text that may be a tool
call is held back while streaming (``ToolCallStream``) and read at the end (a reply cut by
its token limit in the middle of a call gives the calls written whole, else no call and
the finish reason ``length``: the template's markup is never an answer); usage is the
engine's ``stats``, or, when its worker died first, what the deltas said it had cost.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any

from app.tools.calls import ToolCall, ToolCallStream, parse_tool_calls
from wire import protocol

# How a choice ended, in every dialect's terms (each maps them to its own words).
STOP, LENGTH, TOOL_CALLS, CANCELLED, ERROR = "stop", "length", "tool_calls", "cancelled", "error"


@dataclass
class Usage:
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0  # of the prompt's, found in the engine's cache (not read again)

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def openai(self) -> dict[str, Any]:
        return {
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "total_tokens": self.total_tokens,
            "prompt_tokens_details": {"cached_tokens": self.cached_tokens},
        }

    @staticmethod
    def of_choices(usages: list[Usage]) -> Usage:
        """``n`` choices share one prompt: it is counted once, the completions added up."""
        return Usage(
            max((u.prompt_tokens for u in usages), default=0),
            sum(u.completion_tokens for u in usages),
            max((u.cached_tokens for u in usages), default=0),
        )


@dataclass
class Piece:
    """More of a choice's answer or thinking, with the probabilities of the answer's
    tokens it holds (when asked)."""

    index: int
    text: str = ""
    reasoning: str = ""
    logprobs: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class Ending:
    """A choice ended: how, what it cost, the tool calls it made (their text was held
    back), the stop string that ended it, and token probabilities not sent with text."""

    index: int
    finish: str
    usage: Usage
    tool_calls: list[ToolCall] = field(default_factory=list)
    stop_sequence: str | None = None
    logprobs: list[dict[str, Any]] = field(default_factory=list)
    error: dict[str, Any] | None = None  # the engine's error event, when it failed
    stats: dict[str, Any] = field(default_factory=dict)

    @property
    def failed(self) -> bool:
        return self.error is not None


@dataclass
class Outcome:
    """A whole choice: the answer (less its tool calls), the thinking, and its ending."""

    text: str
    reasoning: str
    ending: Ending
    logprobs: list[dict[str, Any]]

    @property
    def tool_calls(self) -> list[ToolCall]:
        return self.ending.tool_calls


class ChoiceFold:
    """One generation's events as they come (``take``), and as a whole (``outcome``)."""

    def __init__(self, index: int, tool_names: Collection[str]) -> None:
        self.index = index
        self.tool_names = tool_names
        self.held = ToolCallStream(tool_names) if tool_names else None
        self.text: list[str] = []
        self.reasoning: list[str] = []
        self.all_logprobs: list[dict[str, Any]] = []
        self.pending: list[dict[str, Any]] = []  # probabilities not yet sent with text
        self.stats: dict[str, Any] = {}
        self.stop_sequence: str | None = None
        self.counted = Usage()  # from the deltas, for an end without stats
        self.ending: Ending | None = None

    def take(self, event: dict[str, Any]) -> list[Piece | Ending]:
        kind = event["type"]
        if kind == protocol.NOTICE:
            if event.get("kind") == protocol.NOTICE_LOGPROB:
                entry = logprob_entry(event)
                self.pending.append(entry)
                self.all_logprobs.append(entry)
            elif event.get("kind") == protocol.NOTICE_STOP_SEQUENCE:
                self.stop_sequence = str(event.get("text"))
            return []
        if kind == protocol.DELTA:
            return self._delta(event)
        if kind == protocol.STATS:
            self.stats = event
            return []
        if kind in (protocol.DONE, protocol.ERROR):
            return self._end(event)
        return []

    def _delta(self, event: dict[str, Any]) -> list[Piece | Ending]:
        self.counted = Usage(
            int(event.get(protocol.PROMPT_TOKENS) or self.counted.prompt_tokens),
            int(event.get(protocol.GENERATED_TOKENS) or self.counted.completion_tokens),
        )
        if event.get(protocol.MOVED_TO_REASONING):
            self.reasoning, self.text = self.reasoning + self.text, []
        reasoning = str(event.get(protocol.DELTA_REASONING) or "")
        text = str(event.get(protocol.DELTA_TEXT) or "")
        self.reasoning.append(reasoning)
        self.text.append(text)
        pieces: list[Piece | Ending] = []
        if reasoning:
            self.pending = []  # thinking tokens: probabilities cover the answer only
            pieces.append(Piece(self.index, reasoning=reasoning))
        shown = self.held.feed(text) if (self.held is not None and text) else text
        if shown:
            pieces.append(Piece(self.index, text=shown, logprobs=self.pending))
            self.pending = []
        return pieces

    def _end(self, event: dict[str, Any]) -> list[Piece | Ending]:
        pieces: list[Piece | Ending] = []
        calls: list[ToolCall] = []
        if event["type"] == protocol.ERROR:
            usage = Usage(
                int(event.get(protocol.PROMPT_TOKENS) or self.counted.prompt_tokens),
                int(event.get(protocol.GENERATED_TOKENS) or self.counted.completion_tokens),
            )
            self.ending = Ending(self.index, ERROR, usage, error=event)
            return [self.ending]
        finish = str(event.get("finish_reason") or STOP)
        if self.held is not None:
            rest, calls = self.held.finish(cut=finish == LENGTH)
            if rest:
                pieces.append(Piece(self.index, text=rest))
        if calls:
            finish = TOOL_CALLS
        elif finish not in (STOP, LENGTH, CANCELLED):
            finish = STOP
        usage = (
            Usage(
                int(self.stats.get("prompt_tokens") or 0),
                int(self.stats.get("generated_tokens") or 0),
                int(self.stats.get("cached_prompt_tokens") or 0),
            )
            if self.stats
            else self.counted
        )
        self.ending = Ending(
            self.index,
            finish,
            usage,
            calls,
            self.stop_sequence,
            self.pending,
            stats=dict(self.stats),
        )
        self.pending = []
        pieces.append(self.ending)
        return pieces

    def outcome(self) -> Outcome:
        """The whole choice, once it ended: its tool calls read out of the whole text."""
        assert self.ending is not None
        whole = "".join(self.text)
        ending = self.ending
        cut = ending.finish == LENGTH
        rest, calls = (
            parse_tool_calls(whole, self.tool_names, cut) if self.tool_names else (whole, [])
        )
        if not ending.failed:
            ending.tool_calls = calls
            if calls:
                ending.finish = TOOL_CALLS
            elif ending.finish == TOOL_CALLS:
                ending.finish = STOP
        return Outcome(rest, "".join(self.reasoning), ending, self.all_logprobs)


def logprob_entry(event: dict[str, Any]) -> dict[str, Any]:
    """A token's probabilities as OpenAI's ``logprobs.content`` lists them."""
    return {
        "token": event.get("token", ""),
        "logprob": event.get("logprob", 0.0),
        "bytes": event.get("bytes"),
        "top_logprobs": [
            {"token": t.get("token", ""), "logprob": t.get("logprob", 0.0), "bytes": t.get("bytes")}
            for t in event.get("top_logprobs") or []
        ],
    }
