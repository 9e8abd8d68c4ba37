"""Branches, deletion with undo, pinning and reasoning in the chat store."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.chat import store as st
from app.chat import transfer
from app.chat.recorder import ReplyRecorder, engine_messages
from app.chat.store import ChatStore


def contents(store: ChatStore, conversation_id: int) -> list[str]:
    return [m.content for m in store.messages(conversation_id)]


def test_edits_and_regenerations_become_branches_the_user_can_step_through(
    tmp_path: Path,
) -> None:
    store = ChatStore(tmp_path / "c.sqlite3")
    cid = store.create_conversation().id
    first = store.add_message(cid, "user", "Name a colour")
    reply = store.add_message(cid, "assistant", "Red")
    # Regenerate: a second reply to the same message.
    again = store.add_message(cid, "assistant", "Blue", parent_id=first)
    assert contents(store, cid) == ["Name a colour", "Blue"]
    # Two edits of the question, each with its own reply.
    edit1 = store.add_message(cid, "user", "Name a fruit", parent_id=None)
    store.add_message(cid, "assistant", "Apple")
    edit2 = store.add_message(cid, "user", "Name a tree", parent_id=None)
    store.add_message(cid, "assistant", "Oak")
    assert contents(store, cid) == ["Name a tree", "Oak"]
    branches = store.branches(cid)
    assert branches[edit2] == (3, 3) and branches[first] == (1, 3)
    assert branches[again] == (2, 2) and reply in branches
    # ‹ back to version 2, then version 1 (which shows its newest reply).
    previous = store.sibling(edit2, -1)
    assert previous == edit1
    store.switch_branch(previous)
    assert contents(store, cid) == ["Name a fruit", "Apple"]
    oldest = store.sibling(edit1, -1)
    assert oldest is not None and store.sibling(oldest, -1) is None
    store.switch_branch(oldest)
    assert contents(store, cid) == ["Name a colour", "Blue"]
    store.switch_branch(reply)
    assert contents(store, cid) == ["Name a colour", "Red"]


def test_deleting_a_message_keeps_what_followed_it(tmp_path: Path) -> None:
    store = ChatStore(tmp_path / "c.sqlite3")
    cid = store.create_conversation().id
    store.add_message(cid, "user", "one")
    two = store.add_message(cid, "assistant", "two")
    store.add_message(cid, "user", "three")
    last = store.add_message(cid, "assistant", "four")
    store.delete_message(two)
    assert contents(store, cid) == ["one", "three", "four"]
    store.delete_message(last)
    assert contents(store, cid) == ["one", "three"]
    store.add_message(cid, "assistant", "five")
    assert contents(store, cid) == ["one", "three", "five"]


def test_a_deleted_conversation_can_be_restored_until_hearth_closes(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite3"
    store = ChatStore(path)
    keep = store.create_conversation(title="Keep").id
    gone = store.create_conversation(title="Gone").id
    store.add_message(gone, "user", "a word only here: quixotic")
    store.trash_conversation(gone)
    assert [c.title for c in store.conversations()] == ["Keep"]
    assert store.search("quixotic") == []
    store.restore_conversation(gone)
    assert [c.title for c in store.conversations()] == ["Gone", "Keep"]
    store.trash_conversation(gone)
    store.close()
    reopened = ChatStore(path)
    assert [c.id for c in reopened.conversations()] == [keep]
    assert reopened.all_messages(gone) == []


def test_pinned_conversations_come_first(tmp_path: Path) -> None:
    store = ChatStore(tmp_path / "c.sqlite3")
    old = store.create_conversation(title="Old").id
    store.create_conversation(title="New")
    store.set_pinned(old, True)
    assert [c.title for c in store.conversations()] == ["Old", "New"]
    assert store.conversation(old).pinned
    store.set_pinned(old, False)
    assert [c.title for c in store.conversations()] == ["New", "Old"]


def test_branches_reasoning_and_settings_survive_export_and_import(tmp_path: Path) -> None:
    store = ChatStore(tmp_path / "c.sqlite3")
    cid = store.create_conversation(title="Maths", system_prompt="Be brief.").id
    store.set_conversation_settings(cid, "Be brief.", {"sampling.temperature": 0.2})
    question = store.add_message(cid, "user", "2+2?")
    answer = store.add_message(cid, "assistant", "", status=st.STREAMING, model="m")
    recorder = ReplyRecorder(store, answer)
    recorder.append_reasoning("Two and two…")
    recorder.append("4")
    recorder.finish(st.COMPLETE, {"tokens_per_s": 9.5})
    store.add_message(cid, "assistant", "Four", parent_id=question)
    store.switch_branch(answer)
    document = json.loads(json.dumps(transfer.export_document(store, cid)))
    copy = transfer.import_document(store, document)
    assert transfer.export_document(store, copy) == transfer.export_document(store, cid)
    assert sorted(store.branches(copy).values()) == [(1, 2), (2, 2)]
    shown = store.messages(copy)
    assert [m.content for m in shown] == ["2+2?", "4"]
    assert shown[1].reasoning == "Two and two…"
    assert store.conversation(copy).settings == {"sampling.temperature": 0.2}
    assert "> **Thinking**" in transfer.export_markdown(store, copy)


def test_a_version_1_export_imports_as_one_branch(tmp_path: Path) -> None:
    store = ChatStore(tmp_path / "c.sqlite3")
    document = {
        "format": st.EXPORT_FORMAT,
        "version": 1,
        "title": "Old export",
        "messages": [
            {"role": "user", "content": "Hi"},
            {"role": "assistant", "content": "Hello!"},
        ],
    }
    cid = transfer.import_document(store, document)
    assert contents(store, cid) == ["Hi", "Hello!"]


def test_reasoning_is_not_sent_back_unless_asked(tmp_path: Path) -> None:
    store = ChatStore(tmp_path / "c.sqlite3")
    cid = store.create_conversation().id
    store.add_message(cid, "user", "2+2?")
    reply = store.add_message(cid, "assistant", "4")
    store.update_message(reply, reasoning="Two and two make four.")
    plain = engine_messages(store.messages(cid))
    assert plain[-1] == {"role": "assistant", "content": "4"}
    full = engine_messages(store.messages(cid), include_reasoning=True)
    assert "Two and two make four." in full[-1]["content"] and full[-1]["content"].endswith("4")


def test_a_plain_chat_in_the_openai_format_can_be_imported(tmp_path: Path) -> None:
    store = ChatStore(tmp_path / "c.sqlite3")
    cid = transfer.import_document(
        store,
        [
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": [{"type": "text", "text": "What is 2+2?"}]},
            {"role": "assistant", "content": "4"},
        ],
    )
    assert contents(store, cid) == ["What is 2+2?", "4"]
    conversation = store.conversation(cid)
    assert conversation.title == "What is 2+2?" and conversation.system_prompt == "Be brief."
    with pytest.raises(st.StoreError, match="neither"):
        transfer.import_document(store, {"something": "else"})
    with pytest.raises(st.StoreError, match="damaged"):
        transfer.import_document(store, [{"role": "robot", "content": "beep"}])
