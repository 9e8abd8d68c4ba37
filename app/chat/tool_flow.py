"""How a chat session goes through a reply's tool calls, on the session's own thread.

When the model ends its text with calls (``ToolTurn.end_of_text``), the text so far
becomes a round and its calls are handled one after another: a call the model could not
write is answered with why; one past the reply's limit is not run; one that needs the
person waits for ``ChatSession.answer_tool`` (the listener's ``tool_approval`` asked);
the others run (a future: nothing blocks the window), and their results come back through
the session's ``deliver``.  When every call of the round has its result, the model is
asked again with the results, under the same reply.  Esc stops the call that runs and
ends the reply as stopped.  Every change of a round is saved with the reply at once.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, Protocol

from app.chat.reply import Reply
from app.chat.tool_rounds import PENDING
from app.tools.approval import Decision, PendingCall
from app.tools.servers import ToolServerError
from wire import protocol
from wire.phrases import Phrase


class ChatSession(Protocol):
    """What the flow uses of its ``app.chat.session.ChatSession``."""

    store: Any
    listener: Any
    tool_listener: Any

    def show_text(self, reply: Reply, text: str) -> None: ...

    def ask_again(self, reply: Reply) -> None: ...

    def deliver_later(self, handler: Callable[[dict[str, Any]], None]) -> Any: ...

    def end(self, reply: Reply, final: dict[str, Any]) -> None: ...


log = logging.getLogger(__name__)
SAVING_TOOLS = Phrase("saving the tool calls")
KEEPING_ALWAYS = Phrase("keeping the tool's Always allow")
CUT_CALL = Phrase(
    "The reply reached its length limit in the middle of a tool call, so that call was not "
    "made. Raise the maximum length and send again."
)


class ToolFlow:
    def __init__(self, session: ChatSession) -> None:
        self.session = session

    @property
    def listener(self) -> Any:
        """Who hears about the tools: the session's tool listener, else its listener."""
        return self.session.tool_listener or self.session.listener

    def after_text(self, reply: Reply, cut: bool = False) -> bool:
        """The model finished a request of ``reply`` (``cut`` by its token limit, or not):
        show the text it held back, and start the calls it made.  False when it made none
        (the reply ends)."""
        turn = reply.turn
        assert turn is not None
        rest, calls = turn.end_of_text(cut)
        if rest:
            self.session.show_text(reply, rest)
        if turn.cut_call:
            self.session.listener.notice(CUT_CALL)
        if not calls:
            return False
        text = reply.recorder.text
        turn.add_round(text, calls)
        try:
            reply.recorder.start_round()
        except Exception as exc:  # noqa: BLE001 - e.g. disk full: said once, the reply goes on
            if not reply.save_failed:
                reply.save_failed = True
                self.session.listener.problem(exc, SAVING_TOOLS)
        self._save(reply)
        self.listener.tool_round(self.session, reply)
        for call in calls:
            if call["status"] != PENDING:  # could not be read: answered already
                self.listener.tool_result(self.session, reply, call)
        self.next_call(reply)
        return True

    def next_call(self, reply: Reply) -> None:
        """Handle the round's next call, or ask the model again once all are answered."""
        turn = reply.turn
        assert turn is not None
        while True:
            call = turn.next_pending()
            if call is None:
                self._save(reply)
                self.session.ask_again(reply)
                return
            if turn.over_the_limit(call):
                self._answered(reply, call)
                continue
            if turn.needs_asking(call):
                turn.waiting = call
                pending = PendingCall(call["id"], turn.tool_of(call), call["arguments"])
                self.listener.tool_approval(self.session, reply, pending)
                return
            self._run(reply, call)
            return

    def answer(self, reply: Reply, decision: Decision) -> None:
        """The person's answer to the call waiting for it."""
        turn = reply.turn
        if turn is None or turn.waiting is None:
            return
        call, turn.waiting = turn.waiting, None
        if decision == Decision.DENY:
            turn.deny(call)
            self._answered(reply, call)
            self.next_call(reply)
            return
        if decision == Decision.ALWAYS:
            try:
                turn.always(call)
            except Exception as exc:  # noqa: BLE001 - the call runs; the choice was not kept
                self.session.listener.problem(exc, KEEPING_ALWAYS)
        self._run(reply, call)

    def _run(self, reply: Reply, call: dict[str, Any]) -> None:
        turn = reply.turn
        assert turn is not None
        self.listener.tool_started(self.session, reply, call)
        try:
            future = turn.tools.run(turn.tool_of(call), dict(call["arguments"]))
        except ToolServerError as exc:
            turn.settle(call, exc)
            self._answered(reply, call)
            self.next_call(reply)
            return
        turn.running = future
        # A "done" event: a front end's relay of events ends with it (one relay per call).
        done = self.session.deliver_later(lambda _event: self._finished(reply, call))
        future.add_done_callback(lambda _f: done({"type": protocol.DONE}))

    def _finished(self, reply: Reply, call: dict[str, Any]) -> None:
        turn = reply.turn
        if turn is None or reply.finished or turn.running is None:
            return  # stopped meanwhile: already settled as stopped
        future, turn.running = turn.running, None
        try:
            outcome: Any = future.result()
        except BaseException as exc:  # noqa: BLE001 - the call's failure is its result
            outcome = exc
        turn.settle(call, outcome)
        self._answered(reply, call)
        self.next_call(reply)

    def _answered(self, reply: Reply, call: dict[str, Any]) -> None:
        self._save(reply)
        self.listener.tool_result(self.session, reply, call)

    def stop(self, reply: Reply) -> bool:
        """Esc while a call waits or runs: stop it and end the reply.  False when the
        model is writing (the engine is told instead)."""
        turn = reply.turn
        if turn is None or (turn.waiting is None and turn.running is None):
            return False
        stopped = turn.stop_all()
        turn.running = None
        self._save(reply)
        for call in stopped:
            self.listener.tool_result(self.session, reply, call)
        self.session.end(reply, {"type": protocol.DONE, "finish_reason": protocol.FINISH_CANCELLED})
        return True

    def _save(self, reply: Reply) -> None:
        turn = reply.turn
        assert turn is not None
        try:
            self.session.store.update_message(reply.message_id, tools=turn.rounds)
        except Exception as exc:  # noqa: BLE001 - said once; the reply goes on
            if not reply.save_failed:
                reply.save_failed = True
                self.session.listener.problem(exc, SAVING_TOOLS)
