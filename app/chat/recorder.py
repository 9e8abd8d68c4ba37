"""A chat turn's bookkeeping, independent of any UI.

``ReplyRecorder`` saves a reply while it streams: the text is written to the store at
most every ``flush_interval`` seconds (so at most that much is lost if Hearth is killed)
and once more when the reply ends, with a status saying how it ended.
``engine_messages`` turns stored messages into what the engine is sent.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

from app.chat import store as st
from app.chat.tool_rounds import round_messages
from wire import images, protocol

FLUSH_INTERVAL_S = 0.5

FINISH_TO_STATUS = {
    protocol.FINISH_STOP: st.COMPLETE,
    protocol.FINISH_LENGTH: st.LENGTH,
    protocol.FINISH_CANCELLED: st.STOPPED,
}


class ReplyRecorder:
    def __init__(
        self,
        store: st.ChatStore,
        message_id: int,
        flush_interval: float = FLUSH_INTERVAL_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.store = store
        self.message_id = message_id
        self.flush_interval = flush_interval
        self.clock = clock
        self.text = ""
        self.reasoning = ""
        self._saved_length = 0
        self._last_flush = clock()
        self.finished = False

    def append(self, text: str) -> None:
        if self.finished or not text:
            return
        self.text += text
        self.flush_if_due()

    def append_reasoning(self, text: str) -> None:
        if self.finished or not text:
            return
        self.reasoning += text
        self.flush_if_due()

    def answer_was_reasoning(self) -> None:
        """The model's template opened a ``<think>`` section implicitly: move the text."""
        self.reasoning, self.text = self.reasoning + self.text, ""
        self._saved_length = -1

    def start_round(self) -> None:
        """The text so far went into a tool round (kept with its calls): the reply's text
        starts again after the calls' results."""
        self.text = ""
        self.flush()

    def flush_if_due(self) -> None:
        if self._size() != self._saved_length and (
            self.clock() - self._last_flush >= self.flush_interval
        ):
            self.flush()

    def _size(self) -> int:
        return len(self.text) + len(self.reasoning)

    def flush(self) -> None:
        self.store.update_message(self.message_id, content=self.text, reasoning=self.reasoning)
        self._saved_length = self._size()
        self._last_flush = self.clock()

    def finish(self, status: str, stats: dict[str, Any] | None = None, error: str = "") -> None:
        if self.finished:
            return
        self.finished = True
        self.store.update_message(
            self.message_id,
            content=self.text,
            reasoning=self.reasoning,
            status=status,
            stats=stats or {},
            error=error,
        )


def engine_messages(
    messages: Sequence[st.Message],
    system_prompt: str = "",
    include_reasoning: bool = False,
    pictures: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
) -> list[dict[str, Any]]:
    """The conversation as the engine should see it.

    Replies that were stopped or interrupted are sent as they are (the model sees what the
    user saw); replies that failed before writing anything are left out.  A reasoning
    model's thinking is not sent back (its authors advise against it, and it fills the
    context) unless ``include_reasoning``.  A message's pictures are sent with its text as
    the image parts ``pictures`` makes (``Pictures.part``: by reference to their files).
    """
    result: list[dict[str, Any]] = []
    if system_prompt.strip():
        result.append({"role": "system", "content": system_prompt})
    for message in messages:
        content = message.content
        if include_reasoning and message.reasoning and (content or not message.tools):
            content = f"<think>\n{message.reasoning}\n</think>\n\n{content}"
        if message.role == "assistant" and message.tools:
            result += round_messages(message.tools)
        if message.role == "assistant" and not content:
            continue
        context = message.documents.get("context") if message.role == "user" else None
        if isinstance(context, str) and context:
            content = f"{context}\n\n{content}"  # the files and passages it was given
        if message.images and pictures is not None:
            result.append(
                {
                    "role": message.role,
                    "content": images.with_parts(content, [pictures(r) for r in message.images]),
                }
            )
            continue
        result.append({"role": message.role, "content": content})
    return result


def status_for(final: dict[str, Any]) -> str:
    """The stored status for a reply that ended with ``final`` (a done or error event)."""
    if final.get("type") == protocol.DONE:
        return FINISH_TO_STATUS.get(str(final.get("finish_reason")), st.COMPLETE)
    if final.get("kind") == protocol.ERR_WORKER_DIED:
        return st.INTERRUPTED
    return st.FAILED
