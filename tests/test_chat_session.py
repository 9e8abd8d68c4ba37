"""The chat session without any window: the real worker (scripted engine), a real store.

Everything the window and ``hearth chat`` do with a conversation goes through
``ChatSession``, so branching, regenerate, continue, Stop and a dying engine are tested
here once, for every front end."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest

from app.chat import store as st
from app.chat.listener import SessionListener
from app.chat.reply import Reply
from app.chat.session import ChatSession
from app.core import Core
from app.engine.host import EngineHost
from app.engine.seat import Seat
from app.errors import HearthError
from app.models.library import ModelEntry
from tests.conftest import kill_hard
from tests.gui_helpers import MARK

pytestmark = pytest.mark.slow
WAIT_S = 120


class Heard(SessionListener):
    """Everything the session told its front end, in order."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, Any]] = []

    def reply_text(self, session: ChatSession, reply: Reply, text: str) -> None:
        self.calls.append(("text", text))

    def reply_reasoning(self, session: ChatSession, reply: Reply, text: str) -> None:
        self.calls.append(("reasoning", text))

    def reply_moved_to_reasoning(self, session: ChatSession, reply: Reply) -> None:
        self.calls.append(("moved", None))

    def reply_ended(self, session: ChatSession, reply: Reply) -> None:
        self.calls.append(("ended", reply.status))

    def notice(self, message: str) -> None:
        self.calls.append(("notice", message))

    def conversation_changed(self, session: ChatSession) -> None:
        self.calls.append(("changed", session.conversation_id))

    def said(self, kind: str) -> str:
        return "".join(str(value) for what, value in self.calls if what == kind)


def scripted(core: Core, script: str, name: str = "Scripted") -> ModelEntry:
    """A model that replays ``script`` (see ``backends.synthetic_engine``)."""
    path = core.paths.data_dir / f"{name}.script.txt"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(script, encoding="utf-8")
    return ModelEntry(name, path, "synthetic", path.stat().st_size, "file")


@pytest.fixture
def store(core: Core) -> Iterator[st.ChatStore]:
    opened = core.open_store()
    yield opened
    opened.close()


@pytest.fixture
def heard() -> Heard:
    return Heard()


def session_for(
    core: Core, store: st.ChatStore, client: Seat, heard: Heard, script: str
) -> ChatSession:
    session = ChatSession(core.settings, store, client, core.model_spec, heard)
    session.model = scripted(core, script)
    return session


def talking(session: ChatSession) -> Reply:
    """A long reply, slowed down, once it has begun to arrive."""
    session.extra_params = {"delay_s": 0.01}
    reply = session.send("Talk.")
    assert reply is not None
    deadline = time.monotonic() + WAIT_S
    while len(reply.text) < 20 and time.monotonic() < deadline:
        session.wait(0.05)
    return reply


def finished(session: ChatSession, reply: Reply | None) -> Reply:
    assert reply is not None
    session.wait(WAIT_S)
    assert reply.finished, "the reply did not end"
    return reply


def test_a_reply_is_streamed_saved_and_titled(
    core: Core, store: st.ChatStore, client: Seat, heard: Heard
) -> None:
    session = session_for(core, store, client, heard, MARK.join(["Red, ", "yellow ", "and blue."]))
    reply = finished(session, session.send("Name three primary colours."))
    assert reply.status == st.COMPLETE and not reply.error
    assert heard.said("text") == "Red, yellow and blue." == reply.text
    assert ("ended", st.COMPLETE) in heard.calls
    conversation = store.conversation(reply.conversation_id)
    assert conversation.title == "Name three primary colours."
    saved = store.messages(reply.conversation_id)
    assert [(m.role, m.content, m.status) for m in saved] == [
        ("user", "Name three primary colours.", st.COMPLETE),
        ("assistant", "Red, yellow and blue.", st.COMPLETE),
    ]
    assert saved[1].stats["generated_tokens"] == 3


def test_thinking_arrives_apart_from_the_answer(
    core: Core, store: st.ChatStore, client: Seat, heard: Heard
) -> None:
    script = MARK.join(["<thi", "nk>Two and", " two.</th", "ink>It is", " 4."])
    session = session_for(core, store, client, heard, script)
    reply = finished(session, session.send("2+2?"))
    assert (heard.said("reasoning"), heard.said("text")) == ("Two and two.", "It is 4.")
    saved = store.message(reply.message_id)
    assert (saved.reasoning, saved.content) == ("Two and two.", "It is 4.")
    assert isinstance(saved.stats["thinking_s"], float)


def test_an_implied_think_tag_moves_the_answer_so_far_to_thinking(
    core: Core, store: st.ChatStore, client: Seat, heard: Heard
) -> None:
    script = MARK.join(["Hmm, two ", "and two.", "</think>", "\n\nIt is 4."])
    session = session_for(core, store, client, heard, script)
    reply = finished(session, session.send("2+2?"))
    assert ("moved", None) in heard.calls
    saved = store.message(reply.message_id)
    assert (saved.reasoning, saved.content.strip()) == ("Hmm, two and two.", "It is 4.")


def test_edit_regenerate_and_continue_make_versions(
    core: Core, store: st.ChatStore, client: Seat, heard: Heard
) -> None:
    session = session_for(core, store, client, heard, "Fine.")
    first = finished(session, session.send("Hello"))
    question = first.user_message_id
    assert question is not None
    # Regenerate: a second reply to the same question; the first stays as a version.
    again = finished(session, session.regenerate())
    assert again.message_id != first.message_id
    branches = session.branches()
    assert branches[first.message_id] == (1, 2) and branches[again.message_id] == (2, 2)
    # Edit the question: a new branch with its own reply.
    edited = finished(session, session.send("Hello there", edit_of=question))
    assert [m.content for m in session.messages()] == ["Hello there", "Fine."]
    assert session.branches()[edited.user_message_id or 0] == (2, 2)
    assert session.step_branch(edited.user_message_id or 0, -1)
    assert [m.content for m in session.messages()] == ["Hello", "Fine."]
    # Continue: the last reply goes on (the scripted engine says so).
    going_on = finished(session, session.continue_reply())
    assert going_on.message_id == session.messages()[-1].id
    assert session.messages()[-1].content == "Fine.(continued)"
    session.delete_message(session.messages()[-1].id)
    assert [m.content for m in session.messages()] == ["Hello"]


def test_stop_keeps_what_was_written(
    core: Core, store: st.ChatStore, client: Seat, heard: Heard
) -> None:
    session = session_for(core, store, client, heard, "word " * 2000)
    reply = talking(session)
    session.stop()
    finished(session, reply)
    assert reply.status == st.STOPPED
    saved = store.message(reply.message_id)
    assert saved.status == st.STOPPED and saved.content == reply.text
    assert 20 <= len(saved.content) < len("word " * 2000)
    assert not reply.final.get("forced"), "the worker should stop between tokens, not be killed"


def test_a_dying_engine_keeps_the_partial_reply_and_the_next_message_works(
    core: Core, store: st.ChatStore, client: Seat, heard: Heard, expect_error_logs: None
) -> None:
    session = session_for(core, store, client, heard, "word " * 2000)
    reply = talking(session)
    pid = client.worker_pid
    assert pid is not None
    kill_hard(pid)
    finished(session, reply)
    assert reply.status == st.INTERRUPTED and "stopped unexpectedly" in reply.error
    assert store.message(reply.message_id).content == reply.text != ""
    session.extra_params = {}
    after = finished(session, session.send("Are you back?"))
    assert after.status == st.COMPLETE and client.worker_pid not in (None, pid)


def test_what_cannot_be_done_now_is_a_sentence(
    core: Core, store: st.ChatStore, client: Seat, heard: Heard
) -> None:
    session = ChatSession(core.settings, store, client, core.model_spec, heard)
    with pytest.raises(HearthError, match="Choose a model first"):
        session.send("Hello")
    assert store.conversations() == []  # nothing half-created
    assert session.send("   ") is None
    session.model = scripted(core, "word " * 500)
    session.extra_params = {"delay_s": 0.01}
    reply = session.send("Talk.")
    with pytest.raises(HearthError, match="Wait for the reply"):
        session.send("And another thing")
    session.stop()
    finished(session, reply)
    with pytest.raises(KeyError):
        ChatSession(core.settings, store, client, core.model_spec, heard, conversation_id=999)


def test_instructions_wait_for_the_conversation_then_apply(
    core: Core, store: st.ChatStore, client: Seat, heard: Heard
) -> None:
    session = session_for(core, store, client, heard, "Aye.")
    session.set_instructions("Answer like a pirate.", {"sampling.temperature": 0.3})
    assert store.conversations() == []
    assert session.values()["sampling.temperature"] == 0.3
    reply = finished(session, session.send("Hello"))
    conversation = store.conversation(reply.conversation_id)
    assert conversation.system_prompt == "Answer like a pirate."
    assert conversation.settings == {"sampling.temperature": 0.3}
    session.overrides = {"sampling.temperature": 0.9}  # a flag of hearth chat: not saved
    assert session.values()["sampling.temperature"] == 0.9
    used, window, exact = session.context_usage(None)
    assert window == 4096 and not exact and used > 0


def test_an_engine_that_cannot_start_fails_the_reply_and_frees_the_session(
    core: Core, store: st.ChatStore, heard: Heard, expect_error_logs: None
) -> None:
    closed = Seat(EngineHost(core.paths.logs_dir))
    closed.host.close()  # refuses every request, as a client whose process cannot start
    session = session_for(core, store, closed, heard, "Hi")
    reply = session.send("Hello")
    assert reply is not None and reply.status == st.FAILED
    assert "could not be started" in reply.error and not session.busy
    assert store.message(reply.message_id).status == st.FAILED
    assert ("ended", st.FAILED) in heard.calls


def test_a_model_that_cannot_be_prepared_writes_nothing(
    core: Core, store: st.ChatStore, client: Seat, heard: Heard
) -> None:
    from wire.phrases import Phrase

    def gone(_entry: ModelEntry, _n_ctx: int | None) -> Any:
        raise HearthError(Phrase("The server endpoint {0!r} is no longer configured.", "lab"))

    session = ChatSession(core.settings, store, client, gone, heard)
    session.model = scripted(core, "Hi")
    with pytest.raises(HearthError, match="no longer configured"):
        session.send("Hello")
    assert store.conversations() == [] and not session.busy
