"""Saving a reply while it streams: at most half a second of text is ever unsaved."""

from pathlib import Path

from app.chat import store as st
from app.chat.recorder import ReplyRecorder, engine_messages, status_for
from app.chat.store import ChatStore


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_text_is_flushed_every_half_second_and_at_the_end(tmp_path: Path) -> None:
    store = ChatStore(tmp_path / "c.sqlite3")
    conversation = store.create_conversation()
    message_id = store.add_message(conversation.id, "assistant", "", status=st.STREAMING)
    clock = Clock()
    recorder = ReplyRecorder(store, message_id, clock=clock)
    recorder.append("Red, ")
    assert store.message(message_id).content == ""  # not yet due
    clock.now = 0.5
    recorder.append("blue, ")
    assert store.message(message_id).content == "Red, blue, "
    clock.now = 0.7
    recorder.append("yellow.")
    assert store.message(message_id).content == "Red, blue, "
    recorder.finish(st.COMPLETE, {"tokens_per_s": 90.0})
    saved = store.message(message_id)
    assert (saved.content, saved.status, saved.stats) == (
        "Red, blue, yellow.",
        st.COMPLETE,
        {"tokens_per_s": 90.0},
    )


def test_history_sent_to_the_engine(tmp_path: Path) -> None:
    store = ChatStore(tmp_path / "c.sqlite3")
    conversation = store.create_conversation()
    store.add_message(conversation.id, "user", "Hi")
    store.add_message(conversation.id, "assistant", "", status=st.FAILED)
    store.add_message(conversation.id, "user", "Again")
    store.add_message(conversation.id, "assistant", "Half", status=st.STOPPED)
    messages = engine_messages(store.messages(conversation.id), "Be kind.")
    assert messages == [
        {"role": "system", "content": "Be kind."},
        {"role": "user", "content": "Hi"},
        {"role": "user", "content": "Again"},
        {"role": "assistant", "content": "Half"},
    ]


def test_how_a_reply_ended_becomes_its_status() -> None:
    assert status_for({"type": "done", "finish_reason": "stop"}) == st.COMPLETE
    assert status_for({"type": "done", "finish_reason": "cancelled"}) == st.STOPPED
    assert status_for({"type": "done", "finish_reason": "length"}) == st.LENGTH
    assert status_for({"type": "error", "kind": "worker_died"}) == st.INTERRUPTED
    assert status_for({"type": "error", "kind": "context_overflow"}) == st.FAILED
