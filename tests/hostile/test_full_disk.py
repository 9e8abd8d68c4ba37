"""Class 16: a fault is never reported as success.

When the disk fills, every next write fails the same way: the work stops with one
sentence (not one line per remaining file), the summary is true, and the command exits
non-zero whenever something was not saved.  Nothing already saved is lost, and the work
goes on once there is room.

The disk is filled for real inside SQLite: ``PRAGMA max_page_count`` makes the database
refuse to grow with SQLite's own "database or disk is full" (SQLITE_FULL), exactly what a
full disk returns.  For the chat history the fault is put where the streamed reply is
written.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from app.chat.store import ChatStore
from app.docs.index import DocumentIndex
from app.docs.library import Documents
from hearth.launcher import main as hearth


def _many_files(folder: Path, count: int) -> Path:
    folder.mkdir()
    for number in range(count):
        words = " ".join(f"word{number}x{k}" for k in range(200))
        (folder / f"note{number:03}.md").write_text(f"# Note {number}\n\n{words}\n")
    return folder


def _fill_after(monkeypatch: pytest.MonkeyPatch, pages: int) -> None:
    """Every new index connection may grow the file by ``pages`` pages, no more."""
    connect = DocumentIndex._connect

    def limited(self: DocumentIndex, target: str) -> sqlite3.Connection:
        db = connect(self, target)
        count = db.execute("PRAGMA page_count").fetchone()[0]
        db.execute(f"PRAGMA max_page_count = {count + pages}")
        return db

    monkeypatch.setattr(DocumentIndex, "_connect", limited)


@pytest.mark.usefixtures("expect_error_logs")
def test_a_full_disk_while_indexing_is_said_once_and_fails_the_command(
    tmp_path: Path, data_dir: Path, capsys: Any
) -> None:
    folder = _many_files(tmp_path / "notes", 120)
    with pytest.MonkeyPatch.context() as full:
        _fill_after(full, 40)
        code = hearth(["docs", "add", "notes", str(folder)])
    out, err = capsys.readouterr()
    assert code == 1
    lines = [line for line in err.splitlines() if line.strip()]
    assert len([line for line in lines if "disk is full" in line]) == 1, err
    assert not [line for line in lines if line.startswith("failed:")], err
    assert "not indexed yet" in out and ", 0 failed" in out, out

    # room again: the update goes on where it stopped
    assert hearth(["docs", "update", "notes"]) == 0
    documents = Documents(data_dir, data_dir / "logs")
    try:
        assert documents.index.counts("notes").indexed == 120
    finally:
        documents.index.close()


@pytest.mark.usefixtures("expect_error_logs")
def test_a_full_disk_while_a_reply_is_saved_fails_the_command(data_dir: Path, capsys: Any) -> None:
    assert hearth(["chat", "--save", "--max-tokens", "4", "First question"]) == 0
    capsys.readouterr()
    update = ChatStore.update_message

    def full(self: ChatStore, message_id: int, **fields: Any) -> None:
        if fields.get("content"):  # the streamed reply's text: the disk filled meanwhile
            raise sqlite3.OperationalError("database or disk is full")
        update(self, message_id, **fields)

    with pytest.MonkeyPatch.context() as disk:
        disk.setattr(ChatStore, "update_message", full)
        code = hearth(
            ["chat", "--continue", "1", "--max-tokens", "24", "--temperature", "0", "Go on"]
        )
    out, err = capsys.readouterr()
    assert code == 1
    assert err.count("disk is full") == 1, err
    assert "saved as conversation" not in err
    assert out.strip()  # the reply itself was shown

    store = ChatStore(data_dir / "chats.sqlite3")
    try:
        first = store.messages(1)
        assert [m.content for m in first if m.role == "user"][:1] == ["First question"]
    finally:
        store.close()
