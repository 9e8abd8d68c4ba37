"""Hearth itself killed with SIGKILL mid-reply: the history survives up to the last flush."""

import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from app.chat import store as st
from app.chat.store import ChatStore
from tests.conftest import REPO, kill_hard

pytestmark = pytest.mark.slow


def reply_text(db_path: Path) -> str:
    try:
        with sqlite3.connect(db_path, timeout=5) as db:
            row = db.execute(
                "SELECT content FROM messages WHERE role = 'assistant' ORDER BY id DESC LIMIT 1"
            ).fetchone()
    except sqlite3.Error:
        return ""
    return row[0] if row else ""


def test_sigkill_mid_reply_keeps_the_conversation(data_dir: Path) -> None:
    child = subprocess.Popen(
        [sys.executable, str(REPO / "tests" / "tools" / "chat_child.py"), str(data_dir)],
        stdout=subprocess.PIPE,
        text=True,
        cwd=REPO,
    )
    try:
        line = child.stdout.readline() if child.stdout else ""
        assert line.startswith("SENT"), line
        worker_pid = int(line.split("worker=")[1])
        db_path = data_dir / "chats.sqlite3"
        deadline = time.monotonic() + 300
        while len(reply_text(db_path)) < 50 and time.monotonic() < deadline:
            time.sleep(0.1)
        first = reply_text(db_path)
        assert len(first) >= 50, "the reply should be saved while it streams"
        while reply_text(db_path) == first and time.monotonic() < deadline + 60:
            time.sleep(0.05)  # the next save (every half a second while text arrives)
        saved_before_kill = reply_text(db_path)
        assert saved_before_kill.startswith(first) and len(saved_before_kill) > len(first)
        child.kill()  # SIGKILL (TerminateProcess on Windows)
        child.wait(10)
    finally:
        if child.poll() is None:
            child.kill()
        if child.stdout:
            child.stdout.close()

    # The orphaned worker notices that Hearth is gone and exits by itself.
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        # (not os.kill(pid, 0): on Windows signal 0 is CTRL_C_EVENT, sent to the console)
        if not psutil.pid_exists(worker_pid):
            break
        time.sleep(0.1)
    else:
        kill_hard(worker_pid)
        pytest.fail("the worker outlived the app by more than two minutes")

    store = ChatStore(data_dir / "chats.sqlite3")
    assert store.integrity_ok()
    assert store.recovered_replies == 1
    conversation = store.conversations()[0]
    user, reply = store.messages(conversation.id)
    assert user.content.startswith("Tell me an endless story")
    assert reply.status == st.INTERRUPTED
    assert reply.content.startswith(saved_before_kill)  # nothing saved before the kill is lost
    store.close()


def test_the_window_reopens_on_the_interrupted_reply_and_says_so_calmly(
    qtbot: object, data_dir: Path
) -> None:
    from app.core import open_core
    from tests.gui_helpers import open_window

    core = open_core(data_dir)
    store = core.open_store()
    older = store.create_conversation("Something else").id
    store.add_message(older, "user", "Hi")
    cut = store.create_conversation("The story").id
    store.add_message(cut, "user", "Tell me a story")
    store.add_message(cut, "assistant", "Once upon a", status=st.STREAMING, model="m")
    newest = store.create_conversation("Opened later").id
    store.add_message(newest, "user", "Hello")
    store.close()  # as if Hearth had been killed while writing the story
    window = open_window(qtbot, core)  # type: ignore[arg-type]
    assert window.chat.conversation_id == cut, "the interrupted reply is shown"
    assert "Once upon a" in window.chat.transcript.toPlainText()
    banner = window.error_banner
    assert banner.info and "closed while writing this reply" in banner.message
    assert "(s)" not in banner.message
