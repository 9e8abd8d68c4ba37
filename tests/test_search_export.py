"""Full-text search over history, and conversations exported and imported."""

import json
import sqlite3
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from app.chat import schema, transfer
from app.chat import store as st
from app.chat.store import ChatStore, StoreError


def filled(store: ChatStore) -> int:
    conversation = store.create_conversation(model="m", system_prompt="Be brief.")
    store.add_message(conversation.id, "user", "Tell me about the lighthouse keeper")
    reply = store.add_message(conversation.id, "assistant", "", status=st.STREAMING, model="m")
    store.update_message(
        reply,
        content="他住在灯塔里 and feeds the gulls.",
        status=st.COMPLETE,
        stats={"tokens_per_s": 90.0},
    )
    return conversation.id


def test_search_finds_words_in_any_language_and_titles(tmp_path: Path) -> None:
    store = ChatStore(tmp_path / "c.sqlite3")
    conversation_id = filled(store)
    other = store.create_conversation(title="Shopping list")
    assert {h.conversation_id for h in store.search("gulls")} == {conversation_id}
    assert store.search("灯塔")[0].snippet.startswith("他住在灯塔里")
    assert [h.conversation_id for h in store.search("shopping")] == [other.id]
    assert store.search("   ") == [] and store.search("no such words") == []
    store.update_message(store.messages(conversation_id)[1].id, content="now about cormorants")
    assert store.search("gulls") == [] and store.search("cormorant")  # the index follows edits


def test_an_old_history_is_indexed_when_it_is_upgraded(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite3"
    db = sqlite3.connect(path, isolation_level=None)
    schema.MIGRATIONS[0](db)  # a history written by the first version of Hearth
    db.execute("PRAGMA user_version = 1")
    db.execute(
        "INSERT INTO conversations (id, title, created_at, updated_at) VALUES (1, 'Old', 0, 0)"
    )
    for role, text in (("user", "Say an old word"), ("assistant", "an ancient word: palimpsest")):
        db.execute(
            "INSERT INTO messages (conversation_id, role, content, created_at, updated_at) "
            "VALUES (1, ?, ?, 0, 0)",
            (role, text),
        )
    db.close()
    store = ChatStore(path)
    assert store.schema_version == schema.SCHEMA_VERSION == 6
    assert [h.snippet for h in store.search("palimpsest")] == ["an ancient word: palimpsest"]
    # The old linear history became one branch, shown whole and in order.
    assert [m.content for m in store.messages(1)] == [
        "Say an old word",
        "an ancient word: palimpsest",
    ]


def test_export_then_import_gives_the_same_conversation(tmp_path: Path) -> None:
    store = ChatStore(tmp_path / "c.sqlite3")
    original = filled(store)
    document = json.loads(json.dumps(transfer.export_document(store, original)))  # through a file
    copy = transfer.import_document(store, document)
    assert copy != original
    assert transfer.export_document(store, copy) == transfer.export_document(store, original)
    markdown = transfer.export_markdown(store, original)
    assert markdown.startswith("# Tell me about the lighthouse keeper")
    assert "## You" in markdown and "他住在灯塔里" in markdown and "> System: Be brief." in markdown


@pytest.mark.parametrize(
    "document",
    [
        {"format": "something.else"},
        {"format": st.EXPORT_FORMAT, "version": 99, "messages": []},
        {"format": st.EXPORT_FORMAT, "messages": [{"role": "wizard", "content": "x"}]},
        [1, 2, 3],
    ],
)
def test_a_bad_file_is_refused_and_nothing_is_half_imported(
    tmp_path: Path, document: object
) -> None:
    store = ChatStore(tmp_path / "c.sqlite3")
    with pytest.raises(StoreError):
        transfer.import_document(store, document)
    assert store.conversations() == []


def test_search_entries_rewrap_when_the_sidebar_is_resized(qtbot: QtBot) -> None:
    """A narrower sidebar makes each entry taller (its passage wraps onto more lines), so
    no entry is cut or overlaps the next."""
    from app.chat.store import SearchHit
    from ui.chat.search_panel import SearchPanel
    from ui.gui import make_application

    make_application()
    passage = "the lighthouse keeper wrote about storms and ships " * 3
    hits = [SearchHit(n, f"Conversation {n}", n, passage) for n in range(1, 4)]
    panel = SearchPanel(lambda query: hits)
    qtbot.addWidget(panel)
    panel.resize(600, 500)
    panel.show()
    panel.field.setText("lighthouse")
    panel.run_search()
    item = panel.results.item(0)
    wide = item.sizeHint().height()
    panel.resize(200, 500)
    qtbot.waitUntil(lambda: panel.results.item(0).sizeHint().height() > wide)
    label = panel.results.itemWidget(panel.results.item(0))
    width = panel.results.viewport().width() - 4
    assert panel.results.item(0).sizeHint().height() == label.heightForWidth(width) + 2
