"""The chat store: durable, migrated, and honest about interrupted replies."""

import sqlite3
from pathlib import Path

import pytest

from app.chat import schema
from app.chat import store as st
from app.chat.store import ChatStore, StoreError, make_title


def test_a_fresh_database_is_at_the_latest_schema_with_wal(tmp_path: Path) -> None:
    store = ChatStore(tmp_path / "c.sqlite3")
    assert store.schema_version == schema.SCHEMA_VERSION
    mode = sqlite3.connect(tmp_path / "c.sqlite3").execute("PRAGMA journal_mode").fetchone()[0]
    assert mode == "wal"
    assert store.integrity_ok()


def test_conversations_survive_reopening_exactly(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite3"
    store = ChatStore(path)
    conversation = store.create_conversation(model="m")
    store.add_message(conversation.id, "user", "Name three primary colors.")
    reply = store.add_message(conversation.id, "assistant", "", status=st.STREAMING)
    store.update_message(
        reply, content="Red, blue, yellow.", status=st.COMPLETE, stats={"tokens_per_s": 100.0}
    )
    before = store.messages(conversation.id)
    store.close()
    again = ChatStore(path)
    assert again.messages(conversation.id) == before
    assert again.conversations()[0].title == "Name three primary colors."
    assert again.recovered_replies == 0


def test_a_reply_left_streaming_by_a_crash_becomes_interrupted(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite3"
    store = ChatStore(path)
    conversation = store.create_conversation()
    reply = store.add_message(conversation.id, "assistant", "", status=st.STREAMING)
    store.update_message(reply, content="half a rep")
    store.close()
    again = ChatStore(path)
    assert again.recovered_replies == 1
    message = again.message(reply)
    assert message.status == st.INTERRUPTED and message.content == "half a rep"


def test_rename_and_delete(tmp_path: Path) -> None:
    store = ChatStore(tmp_path / "c.sqlite3")
    first = store.create_conversation()
    store.add_message(first.id, "user", "hello there")
    second = store.create_conversation()
    store.rename_conversation(second.id, "  My   chat ")
    store.add_message(second.id, "user", "does not retitle a renamed chat")
    assert store.conversation(second.id).title == "My chat"
    store.delete_conversation(first.id)
    assert [c.id for c in store.conversations()] == [second.id]
    assert store.messages(first.id) == []


def test_titles_are_short_single_lines() -> None:
    assert make_title("  What is\n2+2? ") == "What is 2+2?"
    long = make_title("word " * 40)
    assert len(long) <= 61 and long.endswith("…")
    assert make_title("   ") == "New chat"


def test_migration_from_an_unversioned_database(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite3"
    sqlite3.connect(path).close()  # an empty file at user_version 0
    store = ChatStore(path)
    assert store.schema_version == schema.SCHEMA_VERSION


def test_a_history_from_a_newer_hearth_is_refused_untouched(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite3"
    db = sqlite3.connect(path)
    db.execute(f"PRAGMA user_version = {schema.SCHEMA_VERSION + 5}")
    db.close()
    with pytest.raises(StoreError, match="newer version"):
        ChatStore(path)
    assert path.exists()


def test_a_file_that_is_not_a_database_is_kept_aside(
    tmp_path: Path, expect_error_logs: None
) -> None:
    path = tmp_path / "c.sqlite3"
    path.write_bytes(b"this is not sqlite " * 100)
    store = ChatStore(path)
    assert "kept the old file" in store.recovery_note
    kept = list(tmp_path.glob("c.sqlite3.damaged-*"))
    assert len(kept) == 1 and kept[0].read_bytes().startswith(b"this is not sqlite")
    assert store.conversations() == []


def test_a_full_disk_surfaces_as_disk_full_and_keeps_earlier_messages(
    tmp_path: Path, expect_error_logs: None
) -> None:
    from app.errors import describe_error

    store = ChatStore(tmp_path / "c.sqlite3")
    conversation = store.create_conversation()
    store.add_message(conversation.id, "user", "kept")
    pages = store._db.execute("PRAGMA page_count").fetchone()[0]
    store._db.execute(f"PRAGMA max_page_count = {pages}")
    with pytest.raises(sqlite3.OperationalError, match="full") as caught:
        store.add_message(conversation.id, "user", "x" * 100_000)
    assert "disk is full" in describe_error(caught.value, "saving your message")
    assert [m.content for m in store.messages(conversation.id)] == ["kept"]
