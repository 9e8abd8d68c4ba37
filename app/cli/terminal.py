"""``hearth chat`` on a terminal: the session's listener that prints the answer on stdout,
thinking and notes on stderr (thinking dimmed on a terminal), or with ``--json`` one event
per line."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, TextIO

from app.chat.listener import SessionListener
from wire import protocol
from wire.visible_text import visible


class Terminal(SessionListener):
    """``hearth chat`` on a terminal: the answer on stdout, thinking and notes on stderr
    (thinking dimmed on a terminal), or with ``--json`` one event per line."""

    DIM, PLAIN = "\x1b[2m", "\x1b[0m"

    def __init__(self, out: TextIO, err: TextIO, as_json: bool, hide_reasoning: bool) -> None:
        self.out, self.err = out, err
        self.as_json, self.hide_reasoning = as_json, hide_reasoning
        self.dim = err.isatty()
        self.ended_with_newline = True
        self.thinking = False  # thinking was printed and the answer has not started
        self.approve: Callable[[Any], Any] | None = None  # answers a tool call's approval
        self.interrupted = False  # Ctrl+C came while a tool call was asked about
        self.told: set[str] = set()  # the problems already said

    def _print(self, text: str) -> None:
        self.out.write(text)
        self.out.flush()

    def _event(self, event: dict[str, Any]) -> None:
        self._print(json.dumps(event, ensure_ascii=False) + "\n")

    # -- tools --------------------------------------------------------------------------
    def tool_round(self, session: Any, reply: Any) -> None:
        """The model's calls: a ``tool_call`` event each with ``--json``."""
        for call in reply.turn.rounds[-1]["calls"]:
            if self.as_json:
                self._event(
                    {
                        "type": "tool_call",
                        "call_id": call["id"],
                        "server": call["server"],
                        "tool": call["tool"],
                        "arguments": call["arguments"],
                    }
                )

    def tool_approval(self, session: Any, reply: Any, call: Any) -> None:
        """Asked from the flags, else on the terminal (``app.cli.chat_tools``)."""
        from app.tools.approval import Decision

        self._end_line()
        decision = self.approve(call) if self.approve is not None else Decision.DENY
        if decision is None:  # Ctrl+C at the question: the reply stops
            self.interrupted = True
            session.stop()
            return
        session.answer_tool(decision)

    def tool_started(self, session: Any, reply: Any, call: dict[str, Any]) -> None:
        if not self.as_json:
            self._end_line()
            print(
                visible(f"[tool {call['server']}/{call['tool']} {_arguments(call)}]"),
                file=self.err,
            )

    def tool_result(self, session: Any, reply: Any, call: dict[str, Any]) -> None:
        if self.as_json:
            self._event(
                {
                    "type": "tool_result",
                    "call_id": call["id"],
                    "server": call["server"],
                    "tool": call["tool"],
                    "status": call["status"],
                    "result": call["result"],
                    "notes": call.get("notes", []),
                }
            )
            return
        result = visible(" ".join(str(call["result"]).split()))  # a tool's text: no escapes
        short = result if len(result) <= 200 else result[:200] + "…"
        print(f"[{call['status']}: {short}]", file=self.err)
        for note in call.get("notes", []):
            print(f"[{visible(str(note))}]", file=self.err)

    def _end_line(self) -> None:
        self._end_thinking()
        if not self.ended_with_newline:
            self._print("\n")
            self.ended_with_newline = True

    def engine_event(self, session: Any, reply: Any, event: dict[str, Any]) -> None:
        if not self.as_json:
            return
        if reply.turn is not None and event["type"] == protocol.DELTA:
            return  # with tools, deltas are printed as shown: never half a call as text
        public = _public_event(event)
        if self.hide_reasoning and event["type"] == protocol.DELTA:
            public.pop(protocol.DELTA_REASONING, None)
            if not public.get(protocol.DELTA_TEXT) and not public.get(protocol.MOVED_TO_REASONING):
                return
        self._print(json.dumps(public, ensure_ascii=False) + "\n")

    def reply_text(self, session: Any, reply: Any, text: str) -> None:
        if self.as_json:
            if reply.turn is not None:
                self._event({"type": protocol.DELTA, protocol.DELTA_TEXT: text})
            return
        self._end_thinking()
        self._print(text)
        self.ended_with_newline = text.endswith("\n")

    def reply_reasoning(self, session: Any, reply: Any, text: str) -> None:
        if self.as_json and reply.turn is not None and not self.hide_reasoning:
            self._event({"type": protocol.DELTA, protocol.DELTA_REASONING: text})
        if self.as_json or self.hide_reasoning:
            return
        self.err.write(f"{self.DIM}{text}{self.PLAIN}" if self.dim else text)
        self.err.flush()
        self.thinking = True

    def notice(self, message: str) -> None:
        if not self.as_json:
            print(f"[{message}]", file=self.err)

    def reply_stats(self, session: Any, reply: Any, stats: dict[str, Any]) -> None:
        if not self.as_json:
            self._end_thinking()
            print(_stats_line(stats), file=self.err)

    def _end_thinking(self) -> None:
        """Thinking went to stderr without a line break: end its line."""
        if self.thinking:
            self.err.write("\n")
            self.err.flush()
            self.thinking = False

    def problem(self, exc: BaseException, doing: str) -> None:
        """Each distinct problem once (a full disk fails every write after the first)."""
        from app.errors import describe_error

        sentence = describe_error(exc, doing)
        if sentence not in self.told:
            self.told.add(sentence)
            print(f"hearth: {sentence}", file=self.err)

    def end(self) -> None:
        if not self.as_json and not self.ended_with_newline:
            self._print("\n")

    def grounded(self, grounding: Any) -> None:
        """What the model is given besides the question: a ``sources`` event with
        ``--json``, else the notes (a file given as passages, nothing found) on stderr."""
        if self.as_json:
            sources = [
                {k: v for k, v in source.to_json().items() if k != "whole"}
                for source in grounding.sources
            ]
            event = {
                "type": "sources",
                "sources": sources,
                "notes": [str(n) for n in grounding.notes],
            }
            self._print(json.dumps(event, ensure_ascii=False) + "\n")
            return
        for note in grounding.notes:
            print(f"[{visible(str(note))}]", file=self.err)

    def sources(self, grounding: Any, answer: str) -> None:
        """After the answer: its numbered sources, the ones it cited marked."""
        from app.docs.grounding import cited_numbers

        cited = cited_numbers(answer)
        if self.as_json:
            known = sorted(n for n in cited if 1 <= n <= len(grounding.sources))
            self._print(json.dumps({"type": "cited", "sources": known}) + "\n")
            return
        if not grounding.sources:
            return
        self._print("\nSources:\n")
        for source in grounding.sources:
            mark = "  (cited)" if source.n in cited else "  (used as context)"
            self._print(f"[{source.n}] {visible(source.label)}{mark}\n")

    def saved(self, conversation_id: int, message_id: int) -> None:
        if self.as_json:
            event = {"type": "saved", "conversation_id": conversation_id, "message_id": message_id}
            self._print(json.dumps(event) + "\n")
        else:
            print(
                f"[saved as conversation {conversation_id}; go on with: "
                f"hearth chat --continue {conversation_id} …]",
                file=self.err,
            )


def _arguments(call: dict[str, Any]) -> str:
    text = json.dumps(call.get("arguments") or {}, ensure_ascii=False)
    return text if len(text) <= 200 else text[:200] + "…"


def _public_event(event: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in event.items() if k != "id"}


def _stats_line(stats: dict[str, Any]) -> str:
    speed = stats.get("tokens_per_s")
    parts = [f"{stats.get('generated_tokens', 0)} tokens"]
    if speed:
        parts.append(f"{speed:.1f} tok/s")
    if stats.get("ttft_ms") is not None:
        parts.append(f"first token {stats['ttft_ms']:.0f} ms")
    if stats.get("cached_prompt_tokens"):
        parts.append(
            f"{stats['cached_prompt_tokens']} of {stats.get('prompt_tokens')} prompt tokens reused"
        )
    if stats.get("runtime"):
        parts.append(f"llama.cpp {stats['runtime']}")
    return "[" + " · ".join(parts) + "]"
