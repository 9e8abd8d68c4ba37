"""Tools in a reply: what a conversation may use, and the bookkeeping of one reply's rounds.

``ChatTools`` is what the front end gives its session: the tools already listed (listing
starts servers, which the window does off its main thread), the servers that run them,
Hearth's own tools, the person's *Always allow* choices and the limits.  ``ToolTurn``
follows one reply: it holds back streamed text from where a call may begin (the person
never sees half a call as text), reads the calls when the model is done, and keeps the
rounds as they are stored (``app.chat.tool_rounds``).  The chat session drives it: asks
the listener for approval, runs each call, sends the results back to the model.
"""

from __future__ import annotations

import concurrent.futures
import json
import re
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from app.chat import tool_rounds as tr
from app.tools.approval import DENIED, needs_asking
from app.tools.builtin import SERVER as BUILTIN
from app.tools.builtin import BuiltinTools
from app.tools.calls import ToolCall, ToolCallStream, call_start
from app.tools.servers import ToolInfo, ToolResult, ToolServerError, ToolServers
from wire.phrases import Phrase

NAME_PATTERN = re.compile(r"^[A-Za-z0-9_.:-]{1,64}$")
CALL_MARKERS = ("<tool_call>", "[TOOL_CALLS]")
NAME_IN_CALL = re.compile(r'"name"\s*:\s*"([^"]{1,128})"')
MAX_RESULT_CHARS = 16_000  # a result is cut to this, or less when the context is short


@dataclass
class ChatTools:
    """The tools a conversation's replies may use, and how."""

    offered: list[ToolInfo]
    servers: ToolServers | None = None
    builtin: BuiltinTools = field(default_factory=BuiltinTools)
    always_allow: set[str] = field(default_factory=set)
    remember: Callable[[str], None] | None = None  # keeps an Always allow (tools.json)
    choice: str = "auto"  # the first round's tool_choice: auto, required or none
    max_calls: int = 10
    timeout_s: float = 60.0
    max_result_chars: int = MAX_RESULT_CHARS

    def by_model_name(self) -> dict[str, ToolInfo]:
        """The name the model calls each tool by: its own, or ``server_tool`` where two
        servers share a name or the name has characters a template cannot take."""
        counts: dict[str, int] = {}
        for tool in self.offered:
            counts[tool.name] = counts.get(tool.name, 0) + 1
        named: dict[str, ToolInfo] = {}
        for tool in self.offered:
            name = tool.name
            if counts[name] > 1 or not NAME_PATTERN.match(name):
                name = re.sub(r"[^A-Za-z0-9_.:-]", "_", f"{tool.server}_{tool.name}")[:64]
            named[name] = tool
        return named

    def params(self, first_round: bool, calls_made: int) -> dict[str, Any]:
        """The request's ``tools`` and ``tool_choice``: the first round's choice, then
        ``auto``; none once the reply used up its calls (the model answers with what it
        has)."""
        if not self.offered or self.choice == "none" or calls_made >= self.max_calls:
            return {}
        specs = [
            {
                "type": "function",
                "function": {
                    "name": name,
                    "description": tool.description or tool.title or name,
                    "parameters": tool.input_schema(),
                },
            }
            for name, tool in self.by_model_name().items()
        ]
        return {"tools": specs, "tool_choice": self.choice if first_round else "auto"}

    def run(self, tool: ToolInfo, arguments: dict[str, Any]) -> concurrent.futures.Future[Any]:
        """Start the call; the future gives a ToolResult (or raises ToolServerError)."""
        if tool.server == BUILTIN:
            future: concurrent.futures.Future[Any] = concurrent.futures.Future()
            _BUILTIN_POOL.submit(_settle, future, lambda: self.builtin.call(tool.name, arguments))
            return future
        if self.servers is None:
            raise ToolServerError(Phrase("The tool servers are not running."))
        return self.servers.call(tool.server, tool.name, arguments, self.timeout_s)


_BUILTIN_POOL = concurrent.futures.ThreadPoolExecutor(2, thread_name_prefix="hearth tool")


def _settle(future: concurrent.futures.Future[Any], work: Callable[[], ToolResult]) -> None:
    if not future.set_running_or_notify_cancel():
        return
    try:
        future.set_result(work())
    except BaseException as exc:  # noqa: BLE001 - handed to whoever waits on the future
        future.set_exception(exc)


class ToolTurn:
    """One reply's tools: its rounds (as stored), the text held back while streaming, and
    the call waiting for the person or running."""

    def __init__(
        self,
        tools: ChatTools,
        rounds: list[dict[str, Any]] | None = None,
        room_chars: int | None = None,
    ) -> None:
        self.tools = tools
        # The most of one result the model is given: the setting, or less in a short context.
        self.result_chars = min(tools.max_result_chars, room_chars or tools.max_result_chars)
        self.names = tools.by_model_name()
        self.rounds: list[dict[str, Any]] = [dict(r) for r in rounds or []]
        self.stream = ToolCallStream(self.names if self.params() else {})
        self.results_left = self.result_chars * 2  # all results of the reply together
        self.waiting: dict[str, Any] | None = None  # a call waiting for the person
        self.running: concurrent.futures.Future[Any] | None = None
        self.cut_call = False  # the token limit cut a call short (it was not made)

    @property
    def calls_made(self) -> int:
        return sum(
            1
            for r in self.rounds
            for c in r.get("calls", [])
            if c.get("status") not in (tr.PENDING, tr.LIMIT)  # a malformed one counts too
        )

    def params(self) -> dict[str, Any]:
        return self.tools.params(not self.rounds, self.calls_made)

    def new_request(self) -> None:
        """The next request of the reply reads calls afresh."""
        self.stream = ToolCallStream(self.names if self.params() else {})

    def feed(self, text: str) -> str:
        """The part of streamed ``text`` the person may see now."""
        return self.stream.feed(text)

    def end_of_text(self, cut: bool = False) -> tuple[str, list[dict[str, Any]]]:
        """When the model is done: the rest of its text, and its calls as stored (status
        pending, or malformed when a call could not be read).  A reply ``cut`` by its
        token limit in the middle of a call keeps the calls written whole; the one cut is
        dropped, never shown as text nor answered as malformed (``cut_call`` says so)."""
        held = self.stream.text[self.stream.released :]
        rest, calls = self.stream.finish(cut)
        self.cut_call = cut and bool(self.stream.names) and call_start(held) >= 0
        if calls:
            return rest, [self._stored(call) for call in calls]
        if cut:
            return rest, []
        if self.stream.names and any(marker in held for marker in CALL_MARKERS):
            return "", [self._malformed(held)]
        return rest, []

    def _stored(self, call: ToolCall) -> dict[str, Any]:
        tool = self.names[call.name]
        return {
            # Nine letters and digits: Mistral's templates refuse any other id.
            "id": uuid.uuid4().hex[:9],
            "name": call.name,
            "server": tool.server,
            "tool": tool.name,
            "arguments": call.arguments,
            "status": tr.PENDING,
            "result": "",
            "notes": [],
        }

    def _malformed(self, held: str) -> dict[str, Any]:
        found = NAME_IN_CALL.search(held)
        name = found.group(1) if found else ""
        tool = self.names.get(name)
        known = ", ".join(self.names)
        reason = (
            Phrase("its arguments are not valid JSON")
            if tool is not None
            else Phrase("there is no tool named '{0}' (the tools are: {1})", name, known)
        )
        return {
            "id": "",
            "name": name or "unknown",
            "server": tool.server if tool else "",
            "tool": tool.name if tool else name,
            "arguments": {},
            "raw": held.strip()[:2000],
            "status": tr.MALFORMED,
            "result": Phrase(
                "Your tool call could not be read: {0}. Write it as <tool_call>"
                '{{"name": "...", "arguments": {{...}}}}</tool_call>.',
                reason,
            ),
            "notes": [],
        }

    def add_round(self, text: str, calls: list[dict[str, Any]]) -> dict[str, Any]:
        round_ = {"text": text, "calls": calls}
        self.rounds.append(round_)
        return round_

    def next_pending(self) -> dict[str, Any] | None:
        calls: list[dict[str, Any]] = self.rounds[-1]["calls"] if self.rounds else []
        return next((call for call in calls if call["status"] == tr.PENDING), None)

    def over_the_limit(self, call: dict[str, Any]) -> bool:
        """Past the reply's limit: the call is not run, and the model is told so."""
        if self.calls_made < self.tools.max_calls:
            return False
        call["status"] = tr.LIMIT
        call["result"] = Phrase(
            "Not run: this reply reached its limit of {0} tool calls. Answer with what you have.",
            self.tools.max_calls,
        )
        return True

    def needs_asking(self, call: dict[str, Any]) -> bool:
        return needs_asking(self.tool_of(call), self.tools.always_allow)

    def tool_of(self, call: dict[str, Any]) -> ToolInfo:
        return self.names[call["name"]]

    def deny(self, call: dict[str, Any]) -> None:
        call["status"], call["result"] = tr.DENIED, DENIED

    def always(self, call: dict[str, Any]) -> None:
        key = self.tool_of(call).key
        self.tools.always_allow.add(key)
        if self.tools.remember is not None:
            self.tools.remember(key)

    def settle(self, call: dict[str, Any], outcome: ToolResult | BaseException) -> None:
        """Store what a call gave: its result (cut to what the context can take), or why
        it failed."""
        if isinstance(outcome, concurrent.futures.CancelledError):
            call["status"], call["result"] = tr.STOPPED, Phrase("Stopped by the user.")
            return
        if isinstance(outcome, ToolServerError):
            call["status"], call["result"] = tr.ERROR, str(outcome.args[0])
            return
        if isinstance(outcome, BaseException):
            call["status"] = tr.ERROR
            call["result"] = Phrase("The tool failed: {0}", outcome)
            return
        text = outcome.text
        # Each result within its share, and all of them within half the context: the
        # conversation's own words must still fit beside them.
        limit = max(min(self.result_chars, self.results_left), 200)
        if len(text) > limit:
            call["notes"].append(
                Phrase(
                    "The result was cut to {0:,} of its {1:,} characters to fit the model's "
                    "context.",
                    limit,
                    len(text),
                )
            )
            text = text[:limit]
        call["notes"] += list(outcome.notes)
        call["result"] = text
        self.results_left = max(0, self.results_left - len(text))
        call["seconds"] = round(outcome.seconds, 3)
        call["status"] = (
            tr.TIMEOUT if outcome.timed_out else tr.ERROR if outcome.is_error else tr.DONE
        )

    def stop_all(self) -> list[dict[str, Any]]:
        """Esc: the running call is cancelled and every call not done is marked stopped
        (returned)."""
        if self.running is not None:
            self.running.cancel()
        stopped = []
        for round_ in self.rounds:
            for call in round_["calls"]:
                if call["status"] == tr.PENDING:
                    call["status"], call["result"] = tr.STOPPED, Phrase("Stopped by the user.")
                    stopped.append(call)
        self.waiting = None
        return stopped

    def held_text(self) -> str:
        """Text held back in case it was a call, when the reply ends another way (Esc, an
        error): it was written, so it is kept."""
        held = self.stream.text[self.stream.released :]
        self.stream.released = len(self.stream.text)
        return held


def arguments_text(call: dict[str, Any]) -> str:
    """A call's arguments as one line of JSON, for a prompt or a block."""
    return json.dumps(call.get("arguments") or {}, ensure_ascii=False)


def turn_for(tools: ChatTools, engine: str, room_chars: int) -> tuple[ToolTurn | None, str]:
    """A reply's tool turn, or None and why when the model's engine cannot call tools
    (an OpenAI-compatible server's replies come without them)."""
    from app.engines import BY_NAME, TOOLS

    known = BY_NAME.get(engine)
    if known is None or TOOLS not in known.features:
        name = known.label if known is not None else engine
        return None, Phrase(
            "Tools are not offered to this reply: the {0} engine cannot call them.", name
        )
    return ToolTurn(tools, room_chars=room_chars), ""
