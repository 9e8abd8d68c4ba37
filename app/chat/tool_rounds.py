"""A reply's tool rounds as they are kept with it, and what they become for the engine, for
Markdown and on import.

A reply that used tools is one assistant message: ``tools`` holds its rounds in order,
each the text the model wrote before calling (``text``) and its calls, each with the tool,
the arguments, what the person decided and what came back; ``content`` is the text after
the last round.  Regenerate, Edit and Continue therefore work on the whole reply, and a
history without tools reads as before.

A call's ``status``: ``done``, ``error`` (the tool or its server failed), ``timeout``,
``denied`` (by the person), ``stopped`` (Esc), ``malformed`` (the model's call could not
be read: it is told so), ``limit`` (past the reply's tool-call limit, not run).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

DONE, ERROR, TIMEOUT, DENIED, STOPPED, MALFORMED, LIMIT = (
    "done",
    "error",
    "timeout",
    "denied",
    "stopped",
    "malformed",
    "limit",
)
STATUSES = frozenset({DONE, ERROR, TIMEOUT, DENIED, STOPPED, MALFORMED, LIMIT})
PENDING = "pending"  # asked for, not answered yet (only while the reply runs)
MAX_ROUNDS_KEPT = 100  # an imported file cannot make a reply of a million rounds


def round_messages(rounds: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """The engine messages of a reply's rounds: for each, the assistant's text with its
    calls (as the chat templates read them, OpenAI's shape) and one ``tool`` message per
    call with what came back."""
    messages: list[dict[str, Any]] = []
    for number, round_ in enumerate(rounds):
        calls = [c for c in round_.get("calls", []) if c.get("status") != PENDING]
        if not calls:  # interrupted before any call was answered: its text is kept
            if round_.get("text"):
                messages.append({"role": "assistant", "content": str(round_["text"])})
            continue
        listed: list[dict[str, Any]] = []
        for index, call in enumerate(calls):
            call_id = str(call.get("id") or f"call_{number}_{index}")
            listed.append(
                {
                    "id": call_id,
                    "type": "function",
                    "function": {
                        "name": str(call.get("name") or "unknown"),
                        "arguments": json.dumps(call.get("arguments") or {}, ensure_ascii=False),
                    },
                }
            )
        messages.append(
            {"role": "assistant", "content": str(round_.get("text") or ""), "tool_calls": listed}
        )
        for call, entry in zip(calls, listed, strict=True):
            messages.append(
                {
                    "role": "tool",
                    "tool_call_id": entry["id"],
                    "name": entry["function"]["name"],
                    "content": str(call.get("result") or ""),
                }
            )
    return messages


def markdown(rounds: Iterable[dict[str, Any]]) -> list[str]:
    """Lines of Markdown for a reply's rounds (before its final text)."""
    lines: list[str] = []
    for round_ in rounds:
        if round_.get("text"):
            lines += [str(round_["text"]), ""]
        for call in round_.get("calls", []):
            where = f"{call.get('server')}/{call.get('tool')}" if call.get("server") else ""
            arguments = json.dumps(call.get("arguments") or {}, ensure_ascii=False)
            lines += [
                f"> **Tool** `{where or call.get('name')}` ({call.get('status')})",
                ">",
                f"> Arguments: `{arguments}`",
                ">",
            ]
            result = str(call.get("result") or "")
            lines += ["> " + line for line in (result.splitlines() or [""])] + [""]
    return lines


def cleaned(value: Any) -> list[dict[str, Any]]:
    """Rounds read from an imported file: only what Hearth can show and send, every call
    with a known status (a call still pending when exported was stopped)."""
    if not isinstance(value, list):
        return []
    rounds: list[dict[str, Any]] = []
    for round_ in value[:MAX_ROUNDS_KEPT]:
        if not isinstance(round_, dict):
            continue
        calls: list[dict[str, Any]] = []
        for call in round_.get("calls", []) if isinstance(round_.get("calls"), list) else []:
            if not isinstance(call, dict):
                continue
            status = call.get("status")
            calls.append(
                {
                    "id": str(call.get("id") or ""),
                    "name": str(call.get("name") or ""),
                    "server": str(call.get("server") or ""),
                    "tool": str(call.get("tool") or ""),
                    "arguments": call.get("arguments")
                    if isinstance(call.get("arguments"), dict)
                    else {},
                    "status": status if status in STATUSES else STOPPED,
                    "result": str(call.get("result") or ""),
                    "notes": [str(n) for n in call.get("notes", []) if isinstance(n, str)]
                    if isinstance(call.get("notes"), list)
                    else [],
                }
            )
        rounds.append({"text": str(round_.get("text") or ""), "calls": calls})
    return rounds
