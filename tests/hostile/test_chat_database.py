"""Class 3: damage inside the chat database is found, repaired, and costs only what SQLite
can no longer read.

Each test writes a real history, closes it, overwrites pages of one part of the file with
random bytes (the full-text index, a B-tree index, the messages table itself), and then
uses Hearth as a person would.
"""

from __future__ import annotations

import random
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from app.chat.store import ChatStore, StoreError
from tests.conftest import run_hearth

pytestmark = pytest.mark.usefixtures("expect_error_logs")  # damage is logged as an error


def _history(path: Path, conversations: int = 3, messages: int = 40) -> list[int]:
    store = ChatStore(path)
    ids = []
    for number in range(conversations):
        conversation = store.create_conversation(title=f"Talk {number}")
        ids.append(conversation.id)
        for turn in range(messages):
            role = "user" if turn % 2 == 0 else "assistant"
            store.add_message(conversation.id, role, f"Message {turn} of talk {number}. " * 20)
    store.close()
    return ids


def _pages_of(path: Path, name: str) -> list[int]:
    """The pages of table or index ``name``, found by walking its B-tree from its root page
    (SQLite's ``dbstat`` table would say, but Python's SQLite on Windows and macOS lacks it)."""
    db = sqlite3.connect(path)
    try:
        (root,) = db.execute(
            "SELECT rootpage FROM sqlite_master WHERE name = ?", (name,)
        ).fetchone()
        (size,) = db.execute("PRAGMA page_size").fetchone()
    finally:
        db.close()
    data = path.read_bytes()
    pages, todo = [], [int(root)]
    while todo:
        page = todo.pop()
        pages.append(page)
        start = (page - 1) * size
        header = start + (100 if page == 1 else 0)  # page 1 begins with the file's header
        if data[header] in (0x02, 0x05):  # an interior page: its cells point at children
            cells = int.from_bytes(data[header + 3 : header + 5], "big")
            todo.append(int.from_bytes(data[header + 8 : header + 12], "big"))  # rightmost
            for index in range(cells):
                at = header + 12 + 2 * index
                cell = start + int.from_bytes(data[at : at + 2], "big")
                todo.append(int.from_bytes(data[cell : cell + 4], "big"))
    return sorted(pages)


def _scribble(path: Path, pages: list[int], seed: int = 7) -> None:
    """Random bytes over whole pages, as a failing disk leaves them."""
    noise = random.Random(seed)
    with path.open("r+b") as handle:
        for page in pages:
            handle.seek((page - 1) * 4096)
            handle.write(noise.randbytes(4096))


@pytest.mark.parametrize("where", ["leaves", "everywhere"])
def test_a_damaged_search_index_loses_nothing(tmp_path: Path, where: str) -> None:
    """The index's pages are a table of their own: SQLite cannot rebuild it in place, so
    every message is copied into a new history, which builds a new index."""
    path = tmp_path / "chats.sqlite3"
    ids = _history(path)
    pages = _pages_of(path, "message_search_data")
    assert len(pages) > 3
    _scribble(path, pages[2:] if where == "leaves" else pages)
    store = ChatStore(path)
    try:
        store.add_message(ids[0], "user", "A new question after the damage")  # the first save
        note = store.recovery_note
        assert "all of it could still be read" in note and "120 message(s)" in note, note
        assert len(store.messages(ids[0])) == 41
        assert [hit.conversation_id for hit in store.search("new question")] == [ids[0]]
        assert len(store.search("Message 3 of talk 2")) == 1
        assert store.integrity_ok()
    finally:
        store.close()


def test_a_damaged_btree_index_loses_nothing(tmp_path: Path) -> None:
    path = tmp_path / "chats.sqlite3"
    ids = _history(path)
    _scribble(path, _pages_of(path, "messages_by_parent"))
    store = ChatStore(path)
    try:
        store.add_message(ids[1], "user", "Still here?")
        assert "all of it could still be read" in store.recovery_note
        assert [len(store.messages(i)) for i in ids] == [40, 41, 40]
        assert store.integrity_ok()
    finally:
        store.close()


def test_a_damaged_table_is_salvaged_into_a_new_history(tmp_path: Path) -> None:
    path = tmp_path / "chats.sqlite3"
    ids = _history(path)
    pages = _pages_of(path, "messages")
    assert len(pages) > 10
    _scribble(path, pages[5:7])  # two leaf pages of the messages table
    store = ChatStore(path)
    try:
        store.add_message(ids[2], "user", "After the salvage")
        note = store.recovery_note
        assert "saved everything that could still be read" in note, note
        kept = sorted(tmp_path.glob("chats.sqlite3.damaged-*"))
        assert kept and kept[0].name in note
        total = sum(len(store.all_messages(i)) for i in ids)
        assert 100 < total < 120  # only the rows on the two pages are gone
        assert store.conversations()[0].title == "Talk 2"
        assert store.integrity_ok()
    finally:
        store.close()


def test_a_history_left_open_is_checked_and_its_index_rebuilt_in_place(tmp_path: Path) -> None:
    """A search index that disagrees with the messages (pages intact) is rebuilt from them."""
    path = tmp_path / "chats.sqlite3"
    ids = _history(path)
    db = sqlite3.connect(path)
    db.execute(  # the index forgets what message 1 said: search would miss it
        "INSERT INTO message_search(message_search, rowid, content) VALUES ('delete', 1, "
        "(SELECT content FROM messages WHERE id = 1))"
    )
    db.commit()
    db.close()
    (tmp_path / "chats.sqlite3.open-999999999").touch()  # a session that never closed it
    store = ChatStore(path)
    try:
        assert "rebuilt" in store.recovery_note and "nothing was lost" in store.recovery_note
        assert not (tmp_path / "chats.sqlite3.open-999999999").exists()
        assert [h.message_id for h in store.search("Message 0 of talk 0")] == [1]
        assert len(store.messages(ids[0])) == 40
    finally:
        store.close()
    assert not list(tmp_path.glob("chats.sqlite3.open-*"))  # a clean close leaves none


@pytest.mark.slow
def test_chat_and_the_self_test_work_with_a_damaged_history(data_dir: Path) -> None:
    data_dir.mkdir(parents=True)
    database = data_dir / "chats.sqlite3"
    _history(database)
    _scribble(database, _pages_of(database, "message_search_data"))
    chat = run_hearth("chat", "--save", "--max-tokens", "4", "--seed", "1", "Hi")
    assert chat.returncode == 0, chat.stderr
    assert "could still be read" in chat.stderr and "saved as conversation 4" in chat.stderr
    _scribble(database, _pages_of(database, "messages")[3:4])
    assert run_hearth("--self-test").returncode == 0


def test_no_salvage_while_another_hearth_has_the_history_open(tmp_path: Path) -> None:
    """Renaming a database under another process's connection would lose its writes."""
    path = tmp_path / "chats.sqlite3"
    ids = _history(path)
    _scribble(path, _pages_of(path, "messages")[5:7])
    damaged = path.read_bytes()
    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    try:
        (tmp_path / f"chats.sqlite3.open-{other.pid}").touch()  # that process has it open
        with pytest.raises(StoreError, match="Close the other Hearth"):
            store = ChatStore(path)  # opening already meets the damage here
            store.add_message(ids[2], "user", "Hello?")
        assert path.read_bytes() == damaged  # untouched, nothing set aside
        assert not list(tmp_path.glob("chats.sqlite3.damaged-*"))
    finally:
        other.kill()
        other.wait()
    store = ChatStore(path)  # the other one has gone: now it is salvaged
    try:
        store.add_message(ids[2], "user", "Hello again")
        assert "saved everything that could still be read" in store.recovery_note
    finally:
        store.close()


def test_a_conversation_created_during_a_repair_is_created_once(tmp_path: Path) -> None:
    path = tmp_path / "chats.sqlite3"
    _history(path)
    _scribble(path, _pages_of(path, "conversations"))
    store = ChatStore(path)
    try:
        before = len(store.conversations())
        store.create_conversation(title="After the damage")
        titles = [c.title for c in store.conversations()]
        assert titles.count("After the damage") == 1 and len(titles) == before + 1
        assert "could still be read" in store.recovery_note or "could not be opened" in (
            store.recovery_note
        )
    finally:
        store.close()
