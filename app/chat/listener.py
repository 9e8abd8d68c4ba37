"""What a front end hears from its chat session (``SessionListener``).

The one contract between ``app.chat.session.ChatSession`` and whoever shows it: the
window's Chat screen (``ui/chat/chat_screen.py``) and ``hearth chat``'s terminal
(``app/cli/terminal.py``) each override what they show, and hear it on the session's
own thread.  Each call names the session it comes from (``Session`` here: the contract
does not import its caller, and each front end's override types it as the
``ChatSession`` it is).
"""

from __future__ import annotations

from typing import Any

from app.chat.reply import Reply
from app.tools.approval import PendingCall

Session = Any  # the app.chat.session.ChatSession that calls


class SessionListener:
    """What a front end hears from its session, on the session's thread.  Every method
    does nothing here, so a front end overrides only what it shows."""

    def conversation_changed(self, session: Session) -> None:
        """Created, retitled, a message added or removed: lists of conversations are stale."""

    def reply_started(self, session: Session, reply: Reply) -> None:
        """A reply's row exists and the request is on its way."""

    def reply_text(self, session: Session, reply: Reply, text: str) -> None:
        """More of the answer."""

    def reply_reasoning(self, session: Session, reply: Reply, text: str) -> None:
        """More of the model's thinking (kept apart from the answer)."""

    def reply_moved_to_reasoning(self, session: Session, reply: Reply) -> None:
        """The answer so far turned out to be thinking (a template's implied ``<think>``)."""

    def reply_stats(self, session: Session, reply: Reply, stats: dict[str, Any]) -> None:
        """Token counts and speeds, just before the reply ends."""

    def reply_ended(self, session: Session, reply: Reply) -> None:
        """The reply ended: ``reply.status``, ``reply.error`` and ``reply.stats`` say how."""

    def engine_progress(self, fraction: float, stage: str) -> None:
        """The model is being loaded for this reply."""

    def engine_loaded(self, event: dict[str, Any]) -> None:
        """The model finished loading (its context length is in ``n_ctx``)."""

    def notice(self, message: str) -> None:
        """Something the user should know, e.g. old messages were left out of the context."""

    def problem(self, exc: BaseException, doing: str) -> None:
        """Saving failed (a full disk); the reply goes on.  Log it and say it once."""

    def tool_round(self, session: Session, reply: Reply) -> None:
        """The model called tools: its text so far became a round (``reply.turn``)."""

    def tool_approval(self, session: Session, reply: Reply, call: PendingCall) -> None:
        """A call waits for the person: answer with ``session.answer_tool``."""

    def tool_started(self, session: Session, reply: Reply, call: dict[str, Any]) -> None:
        """A call runs."""

    def tool_result(self, session: Session, reply: Reply, call: dict[str, Any]) -> None:
        """A call has its result (or was denied, stopped, or could not be read)."""

    def engine_event(self, session: Session, reply: Reply, event: dict[str, Any]) -> None:
        """Every engine event of a reply, after the session handled it (``--json``)."""
