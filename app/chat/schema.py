"""The chat database's schema: its migrations, one per version, and the transaction helper.

``MIGRATIONS[n]`` brings a database from version ``n`` to ``n + 1`` (``PRAGMA
user_version``).  Append only; never edit one that has shipped: a new Hearth must open every
old history.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable


def _run_script(db: sqlite3.Connection, script: str) -> None:
    """Run DDL statement by statement: ``executescript`` would commit our transaction.

    Statements end with a semicolon at the end of a line (trigger bodies keep theirs)."""
    statement: list[str] = []
    depth = 0
    for line in script.splitlines():
        statement.append(line)
        stripped = line.strip().upper()
        if stripped.endswith("BEGIN"):
            depth += 1
        if stripped.startswith("END;"):
            depth -= 1
        if stripped.endswith(";") and depth == 0:
            text = "\n".join(statement).strip().rstrip(";")
            if text:
                db.execute(text)
            statement = []
    rest = "\n".join(statement).strip().rstrip(";")
    if rest:
        db.execute(rest)


def _v1(db: sqlite3.Connection) -> None:
    _run_script(
        db,
        """
        CREATE TABLE conversations (
            id INTEGER PRIMARY KEY,
            title TEXT NOT NULL DEFAULT '',
            title_is_auto INTEGER NOT NULL DEFAULT 1,
            model TEXT NOT NULL DEFAULT '',
            system_prompt TEXT NOT NULL DEFAULT '',
            created_at REAL NOT NULL,
            updated_at REAL NOT NULL
        );
        CREATE TABLE messages (
            id INTEGER PRIMARY KEY,
            conversation_id INTEGER NOT NULL
                REFERENCES conversations(id) ON DELETE CASCADE,
            role TEXT NOT NULL CHECK (role IN ('system', 'user', 'assistant')),
            content TEXT NOT NULL DEFAULT '',
            status TEXT NOT NULL DEFAULT 'complete',
            model TEXT NOT NULL DEFAULT '',
            stats TEXT NOT NULL DEFAULT '{}',
            error TEXT NOT NULL DEFAULT '',
            created_at REAL NOT NULL,
            updated_at REAL NOT NULL
        );
        CREATE INDEX messages_by_conversation ON messages (conversation_id, id);
        """,
    )


def _v2(db: sqlite3.Connection) -> None:
    """Full-text search over every message (trigram: substrings in any language, CJK too)."""
    _run_script(
        db,
        """
        CREATE VIRTUAL TABLE message_search USING fts5(
            content, content='messages', content_rowid='id', tokenize='trigram'
        );
        CREATE TRIGGER messages_search_insert AFTER INSERT ON messages BEGIN
            INSERT INTO message_search(rowid, content) VALUES (new.id, new.content);
        END;
        CREATE TRIGGER messages_search_delete AFTER DELETE ON messages BEGIN
            INSERT INTO message_search(message_search, rowid, content)
            VALUES ('delete', old.id, old.content);
        END;
        CREATE TRIGGER messages_search_update AFTER UPDATE OF content ON messages BEGIN
            INSERT INTO message_search(message_search, rowid, content)
            VALUES ('delete', old.id, old.content);
            INSERT INTO message_search(rowid, content) VALUES (new.id, new.content);
        END;
        INSERT INTO message_search(message_search) VALUES ('rebuild')
        """,
    )


def _v3(db: sqlite3.Connection) -> None:
    """Branches (each message knows its parent; a conversation its current branch),
    reasoning kept apart from the answer, pinning, deletion with undo, and per-conversation
    sampling settings.  Existing conversations become a single branch.

    A reply is indexed for search once it stops streaming: re-indexing the whole text on
    every save while it streams would make each save cost more as the reply grows."""
    _run_script(
        db,
        """
        ALTER TABLE messages ADD COLUMN parent_id INTEGER;
        ALTER TABLE messages ADD COLUMN reasoning TEXT NOT NULL DEFAULT '';
        ALTER TABLE conversations ADD COLUMN current_leaf INTEGER;
        ALTER TABLE conversations ADD COLUMN pinned INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE conversations ADD COLUMN deleted_at REAL;
        ALTER TABLE conversations ADD COLUMN settings TEXT NOT NULL DEFAULT '{}';
        UPDATE messages SET parent_id = (
            SELECT MAX(p.id) FROM messages p
            WHERE p.conversation_id = messages.conversation_id AND p.id < messages.id
        );
        UPDATE conversations SET current_leaf = (
            SELECT MAX(id) FROM messages WHERE conversation_id = conversations.id
        );
        CREATE INDEX messages_by_parent ON messages (parent_id);
        DROP TRIGGER messages_search_insert;
        DROP TRIGGER messages_search_delete;
        DROP TRIGGER messages_search_update;
        CREATE TRIGGER messages_search_insert AFTER INSERT ON messages
        WHEN new.status != 'streaming' BEGIN
            INSERT INTO message_search(rowid, content) VALUES (new.id, new.content);
        END;
        CREATE TRIGGER messages_search_delete AFTER DELETE ON messages
        WHEN old.status != 'streaming' BEGIN
            INSERT INTO message_search(message_search, rowid, content)
            VALUES ('delete', old.id, old.content);
        END;
        CREATE TRIGGER messages_search_unindex AFTER UPDATE OF content, status ON messages
        WHEN old.status != 'streaming' BEGIN
            INSERT INTO message_search(message_search, rowid, content)
            VALUES ('delete', old.id, old.content);
        END;
        CREATE TRIGGER messages_search_index AFTER UPDATE OF content, status ON messages
        WHEN new.status != 'streaming' BEGIN
            INSERT INTO message_search(rowid, content) VALUES (new.id, new.content);
        END;
        INSERT INTO message_search(message_search) VALUES ('delete-all');
        INSERT INTO message_search(rowid, content)
            SELECT id, content FROM messages WHERE status != 'streaming'
        """,
    )


def _v4(db: sqlite3.Connection) -> None:
    """What a user's message was given besides its words: attached files and passages of
    document collections, numbered for citations (``app.docs.grounding``), as JSON."""
    db.execute("ALTER TABLE messages ADD COLUMN documents TEXT NOT NULL DEFAULT '{}'")


def _v5(db: sqlite3.Connection) -> None:
    """A reply's tool rounds: the text it wrote before each round of tool calls, the calls
    (tool, arguments, what the person decided) and their results, as JSON
    (``app.chat.tool_rounds``).  The message's content stays the text after the last
    round, so a history without tools reads as before."""
    db.execute("ALTER TABLE messages ADD COLUMN tools TEXT NOT NULL DEFAULT '[]'")


def _v6(db: sqlite3.Connection) -> None:
    """A user's message's pictures: each one's SHA-256, kind, size and file name, as JSON
    (the files are kept once each beside the database: ``app.chat.pictures``)."""
    db.execute("ALTER TABLE messages ADD COLUMN images TEXT NOT NULL DEFAULT '[]'")


MIGRATIONS: list[Callable[[sqlite3.Connection], None]] = [_v1, _v2, _v3, _v4, _v5, _v6]
SCHEMA_VERSION = len(MIGRATIONS)


class Transaction:
    """BEGIN IMMEDIATE … COMMIT, rolled back on error (autocommit connection)."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def __enter__(self) -> None:
        self.db.execute("BEGIN IMMEDIATE")

    def __exit__(self, exc_type: object, *_: object) -> None:
        if exc_type is None:
            self.db.execute("COMMIT")
        elif self.db.in_transaction:  # SQLite may already have rolled back (e.g. disk full)
            self.db.execute("ROLLBACK")
