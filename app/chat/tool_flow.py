"""A reply's tool calls as a state machine of its own: what comes next is returned to
the chat session, which does it (``app.chat.session.ChatSession``, on its own thread).

When the model ends its text with calls (``ToolTurn.end_of_text``), the text so far
becomes a round and its calls are handled one after another: a call the model could not
write is answered with why; one past the reply's limit is not run; one that needs the
person is handed back as ``AwaitPerson`` (the session's listener asks, and the answer
comes to ``answer``); the others run (``Running``: a future, so nothing blocks the
window, whose end the session brings back to ``finished`` on its thread).  When every
call of the round has its result, the flow says ``AskAgain``: the model reads the
results under the same reply.  Esc stops the call that runs (``stop``) and the session
ends the reply as stopped.  Every change of a round is saved with the reply at once.

The flow knows nothing of the session: it is given the store's write of a reply's rounds
and where its news goes (``ToolNews``), and returns its steps.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any

from app.chat.reply import Reply
from app.chat.tool_rounds import PENDING
from app.tools.approval import Decision, PendingCall
from app.tools.servers import ToolServerError
from wire.phrases import Phrase


@dataclass(frozen=True)
class AskAgain:
    """Every call of the round has its result: ask the model again, under the reply."""


@dataclass(frozen=True)
class AwaitPerson:
    """A call waits for the person's answer (``ToolFlow.answer``)."""

    call: PendingCall


@dataclass(frozen=True)
class Running:
    """A call runs; when ``future`` is done, bring ``call`` to ``ToolFlow.finished`` on
    the session's thread."""

    future: Future[Any]
    call: dict[str, Any]


Step = AskAgain | AwaitPerson | Running


@dataclass(frozen=True)
class ToolNews:
    """Where the flow's news goes: the session hands each to its front end."""

    round: Callable[[Reply], None]  # the model called tools: its text became a round
    started: Callable[[Reply, dict[str, Any]], None]  # a call runs
    result: Callable[[Reply, dict[str, Any]], None]  # a call has its result (or not)
    problem: Callable[[BaseException, Phrase], None]  # saving failed; the reply goes on
    notice: Callable[[Phrase], None]


log = logging.getLogger(__name__)
SAVING_TOOLS = Phrase("saving the tool calls")
KEEPING_ALWAYS = Phrase("keeping the tool's Always allow")
CUT_CALL = Phrase(
    "The reply reached its length limit in the middle of a tool call, so that call was not "
    "made. Raise the maximum length and send again."
)


class ToolFlow:
    """The tool calls of the session's replies, one reply at a time."""

    def __init__(
        self, save_rounds: Callable[[int, list[dict[str, Any]]], None], news: ToolNews
    ) -> None:
        self._save_rounds = save_rounds  # the store's write of a reply's rounds
        self._news = news

    def end_of_text(self, reply: Reply, cut: bool = False) -> tuple[str, list[dict[str, Any]]]:
        """The model finished a request of ``reply`` (``cut`` by its token limit, or not):
        the text it held back while a call could begin (to show now), and the calls it
        made (for ``round``)."""
        turn = reply.turn
        assert turn is not None
        return turn.end_of_text(cut)

    def round(self, reply: Reply, calls: list[dict[str, Any]]) -> Step | None:
        """The reply's text so far and ``calls`` become a round; its first step (None
        when there are no calls: the reply ends)."""
        turn = reply.turn
        assert turn is not None
        if turn.cut_call:  # said after the text shown before it
            self._news.notice(CUT_CALL)
        if not calls:
            return None
        turn.add_round(reply.recorder.text, calls)
        return self._rounded(reply, calls)

    def _rounded(self, reply: Reply, calls: list[dict[str, Any]]) -> Step:
        try:
            reply.recorder.start_round()
        except Exception as exc:  # noqa: BLE001 - e.g. disk full: said once, the reply goes on
            if not reply.save_failed:
                reply.save_failed = True
                self._news.problem(exc, SAVING_TOOLS)
        self._save(reply)
        self._news.round(reply)
        for call in calls:
            if call["status"] != PENDING:  # could not be read: answered already
                self._news.result(reply, call)
        return self._next(reply)

    def _next(self, reply: Reply) -> Step:
        """The round's next call, or the model asked again once all are answered."""
        turn = reply.turn
        assert turn is not None
        while True:
            call = turn.next_pending()
            if call is None:
                self._save(reply)
                return AskAgain()
            if turn.over_the_limit(call):
                self._answered(reply, call)
                continue
            if turn.needs_asking(call):
                turn.waiting = call
                return AwaitPerson(PendingCall(call["id"], turn.tool_of(call), call["arguments"]))
            return self._run(reply, call)

    def _run(self, reply: Reply, call: dict[str, Any]) -> Step:
        turn = reply.turn
        assert turn is not None
        self._news.started(reply, call)
        try:
            future = turn.tools.run(turn.tool_of(call), dict(call["arguments"]))
        except ToolServerError as exc:
            turn.settle(call, exc)
            self._answered(reply, call)
            return self._next(reply)
        turn.running = future
        return Running(future, call)

    def answer(self, reply: Reply, decision: Decision) -> Step | None:
        """The person's answer to the call waiting for it (None when none waits)."""
        turn = reply.turn
        if turn is None or turn.waiting is None:
            return None
        call, turn.waiting = turn.waiting, None
        if decision == Decision.DENY:
            turn.deny(call)
            self._answered(reply, call)
            return self._next(reply)
        if decision == Decision.ALWAYS:
            try:
                turn.always(call)
            except Exception as exc:  # noqa: BLE001 - the call runs; the choice was not kept
                self._news.problem(exc, KEEPING_ALWAYS)
        return self._run(reply, call)

    def finished(self, reply: Reply, call: dict[str, Any]) -> Step | None:
        """A running call's future is done: its result, then the next step (None when the
        reply was stopped meanwhile: it was settled as stopped)."""
        turn = reply.turn
        if turn is None or reply.finished or turn.running is None:
            return None
        future, turn.running = turn.running, None
        try:
            outcome: Any = future.result()
        except BaseException as exc:  # noqa: BLE001 - the call's failure is its result
            outcome = exc
        turn.settle(call, outcome)
        self._answered(reply, call)
        return self._next(reply)

    def _answered(self, reply: Reply, call: dict[str, Any]) -> None:
        self._save(reply)
        self._news.result(reply, call)

    def stop(self, reply: Reply) -> bool:
        """Esc while a call waits or runs: stop it; True when the reply is to end as
        stopped (False while the model is writing: the engine is told instead)."""
        turn = reply.turn
        if turn is None or (turn.waiting is None and turn.running is None):
            return False
        stopped = turn.stop_all()
        turn.running = None
        self._save(reply)
        for call in stopped:
            self._news.result(reply, call)
        return True

    def _save(self, reply: Reply) -> None:
        turn = reply.turn
        assert turn is not None
        try:
            self._save_rounds(reply.message_id, turn.rounds)
        except Exception as exc:  # noqa: BLE001 - said once; the reply goes on
            if not reply.save_failed:
                reply.save_failed = True
                self._news.problem(exc, SAVING_TOOLS)
