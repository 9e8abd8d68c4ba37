"""A reply being streamed into a conversation, as its chat session (``app.chat.session``)
and every front end see it, and once finished, how it ended."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from app.chat import store as st
from app.chat.recorder import ReplyRecorder
from app.chat.tool_turn import ToolTurn
from app.engine.jobs import Job
from wire.model_spec import ModelSpec


@dataclass
class Reply:
    """A reply being streamed (and, once finished, how it ended)."""

    conversation_id: int
    message_id: int
    model_name: str
    recorder: ReplyRecorder
    user_message_id: int | None = None  # the message it answers (None when continuing)
    # The user's message and this reply were added at the end of the branch shown (a plain
    # send): a viewer can append them instead of showing the conversation again.
    appended: bool = False
    job: Job | None = None
    stopping: bool = False
    save_failed: bool = False
    stats: dict[str, Any] = field(default_factory=dict)
    think_started: float = 0.0  # when the first reasoning arrived (monotonic clock)
    thinking_s: float | None = None  # how long the model thought before answering
    status: str = st.STREAMING
    error: str = ""  # a sentence (a Phrase where the engine sent one) when it failed
    final: dict[str, Any] = field(default_factory=dict)  # the done or error event
    turn: ToolTurn | None = None  # its tool rounds, when the conversation may use tools
    spec: ModelSpec | None = None  # how its model was loaded (its next rounds ask the same)

    @property
    def text(self) -> str:
        return self.recorder.text

    @property
    def reasoning(self) -> str:
        return self.recorder.reasoning

    @property
    def finished(self) -> bool:
        return self.status != st.STREAMING
