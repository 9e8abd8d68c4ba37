"""The chat store: conversations and messages in SQLite.

Why it looks like this:

* WAL journal with ``synchronous=NORMAL``: a write costs well under a millisecond and a
  crash of Hearth (even SIGKILL) never corrupts the file; at worst the last write is lost.
* A schema version (``PRAGMA user_version``) and a list of migrations from day one, so a
  new Hearth opens an old history and never loses it.  A history written by a *newer*
  Hearth is refused rather than damaged.
* Replies are saved while they stream: the assistant row is created with status
  ``streaming`` and its text is rewritten as it grows.  On the next start, any row still
  ``streaming`` belonged to a Hearth that died, and becomes ``interrupted``.
* Damage is found and repaired (``app.chat.repair``): at start after a session that did
  not close the database, and whenever SQLite reports corruption in any call, which is then
  tried once more on the repaired database.  Indexes are rebuilt; damaged tables are
  salvaged into a new file, the old one kept; ``recovery_note`` tells the user what
  happened.
"""

from __future__ import annotations

import contextlib
import functools
import json
import logging
import os
import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from app.chat.repair import (
    Marker,
    is_damage,
    move_aside,
    problems,
    rebuild_derived,
    rebuilt_note,
    salvage,
    salvaged_note,
)
from app.chat.schema import MIGRATIONS, SCHEMA_VERSION, Transaction
from wire.phrases import Phrase

log = logging.getLogger(__name__)

# Message statuses.
COMPLETE = "complete"
STREAMING = "streaming"
STOPPED = "stopped"  # the user pressed Stop
INTERRUPTED = "interrupted"  # the engine or Hearth died mid-reply
LENGTH = "length"  # cut at the token limit
FAILED = "error"
STATUSES = (COMPLETE, STREAMING, STOPPED, INTERRUPTED, LENGTH, FAILED)

TITLE_LENGTH = 60


EXPORT_FORMAT = "hearth.conversation"
EXPORT_VERSION = 2  # 2: branches (each message names its parent), reasoning, settings
_LEAF = -1  # add_message's default parent: the end of the conversation's current branch


@dataclass(frozen=True)
class SearchHit:
    conversation_id: int
    title: str
    message_id: int | None  # None when only the title matched
    snippet: str


def _snippet(text: str, query: str, width: int = 80) -> str:
    index = text.lower().find(query.lower())
    start = max(index - width // 2, 0) if index >= 0 else 0
    piece = " ".join(text[start : start + width].split())
    return ("…" if start else "") + piece + ("…" if start + width < len(text) else "")


class StoreError(Exception):
    """The history cannot be used; the message says why and what to do."""


@dataclass(frozen=True)
class Conversation:
    id: int
    title: str
    model: str
    system_prompt: str
    created_at: float
    updated_at: float
    pinned: bool = False
    settings: dict[str, Any] = field(default_factory=dict)  # per-conversation sampling
    current_leaf: int | None = None  # the last message of the branch being shown


@dataclass(frozen=True)
class Message:
    id: int
    conversation_id: int
    role: str
    content: str
    status: str = COMPLETE
    model: str = ""
    stats: dict[str, Any] = field(default_factory=dict)
    error: str = ""
    created_at: float = 0.0
    parent_id: int | None = None
    reasoning: str = ""  # the model's thinking, kept apart from the answer
    # A user's message: the files and passages it was given (``app.docs.grounding``).
    documents: dict[str, Any] = field(default_factory=dict)


def make_title(text: str) -> str:
    """A sidebar title from the first message: first line, trimmed to a readable length."""
    line = " ".join(text.strip().split())
    if len(line) <= TITLE_LENGTH:
        return line or "New chat"
    cut = line[:TITLE_LENGTH].rsplit(" ", 1)[0]
    return (cut or line[:TITLE_LENGTH]) + "…"


class ChatStore:
    def __init__(self, path: Path | str) -> None:
        self.path = Path(path) if str(path) != ":memory:" else None
        self.recovery_note = ""  # what a repair did, for the user (kept until shown)
        self.recovered_replies = 0
        self.recovered_conversations: list[int] = []
        # Told at once of a repair made while the store is open (the window shows it).
        self.on_note: Callable[[str], None] | None = None
        self._marker = Marker(self.path) if self.path is not None else None
        self._depth = 0  # public calls in progress (a repair happens in the outermost)
        unclean = self._marker is not None and self._marker.was_left()
        self._db = self._open(str(path))
        if unclean:
            log.warning("the chat history was not closed last time; checking it")
            self._repair()
        if self._marker is not None:
            self._marker.set()

    # -- opening and repair ------------------------------------------------------------
    def _open(self, target: str) -> sqlite3.Connection:
        db: sqlite3.Connection | None = None
        try:
            db = self._connect(target)
            self._migrate(db)
            if self.path is not None:
                db.execute("SELECT count(*) FROM conversations").fetchone()
            return db
        except sqlite3.DatabaseError as exc:
            if self.path is None or not self.path.exists() or not is_damage(exc):
                raise StoreError(
                    Phrase(
                        "Hearth cannot open its chat history ({0}). It has not been changed; "
                        "check that the data folder is writable and that the disk is not "
                        "full.",
                        exc,
                    )
                ) from exc
            log.error("chat history %s cannot be opened", self.path, exc_info=True)
            if db is not None:
                if rebuild_derived(db):
                    self._note(rebuilt_note())
                    self._migrate(db)
                    return db
                with contextlib.suppress(sqlite3.Error):
                    db.close()
            return self._salvaged(at_start=True)

    def _repair(self) -> None:
        """Check the open database; rebuild its indexes, or salvage it into a new one.
        StoreError when it cannot be repaired now (the damaged file is then left as it is
        and stays open, so that what can be read still can)."""
        assert self.path is not None
        found = problems(self._db)
        if not found:
            return
        log.error("chat history %s is damaged: %s", self.path, "; ".join(found[:5]))
        if rebuild_derived(self._db):
            self._note(rebuilt_note())
            return
        self._db.close()
        try:
            self._db = self._salvaged(at_start=False)
        except StoreError:
            self._db = self._connect(str(self.path))
            raise

    def _salvaged(self, at_start: bool) -> sqlite3.Connection:
        """Every readable row in a new database in place of the damaged one (kept aside).

        Never while another process has the database open: renaming a database under an
        open connection is one of the ways to corrupt it, and that process's writes would
        go to the file set aside."""
        assert self.path is not None and self._marker is not None
        if self._marker.others_open():
            raise StoreError(
                Phrase(
                    "Your chat history is damaged. Close the other Hearth windows and commands "
                    "that use it, then start Hearth again: it will save what can be read."
                )
            )
        fresh = self.path.with_name(f"{self.path.name}.salvage")
        _remove_database(fresh)
        try:
            saved = salvage(self.path, fresh, self._create_schema)
            aside = move_aside(self.path)
        except (sqlite3.Error, OSError) as exc:  # the new file could not be written
            _remove_database(fresh)
            log.error("could not salvage %s", self.path, exc_info=True)
            raise StoreError(
                Phrase(
                    "Your chat history is damaged and Hearth could not repair it now ({0}). "
                    "It has not been changed; check that the disk is not full, then start "
                    "Hearth again.",
                    exc,
                )
            ) from exc
        if saved is not None:
            os.replace(fresh, self.path)
            self._note(salvaged_note(saved, aside))
        else:
            _remove_database(fresh)
            self._note(
                Phrase(
                    "Your chat history could not be opened (the file is damaged). Hearth kept "
                    "the old file as {0} in its data folder and started a new history.",
                    aside.name,
                )
            )
        db = self._connect(str(self.path))
        if at_start:
            self._migrate(db)
        else:  # mid-session: a reply may be streaming and a deletion still undoable
            self._create_schema(db)
        return db

    def _note(self, note: str) -> None:
        self.recovery_note = note
        if self.on_note is not None:
            self.on_note(note)

    @staticmethod
    def _connect(target: str) -> sqlite3.Connection:
        db = sqlite3.connect(target, isolation_level=None)
        db.row_factory = sqlite3.Row
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")
        db.execute("PRAGMA foreign_keys=ON")
        db.execute("PRAGMA busy_timeout=5000")
        return db

    @staticmethod
    def _create_schema(db: sqlite3.Connection) -> None:
        for number in range(int(db.execute("PRAGMA user_version").fetchone()[0]), SCHEMA_VERSION):
            with Transaction(db):
                MIGRATIONS[number](db)
                db.execute(f"PRAGMA user_version = {number + 1}")

    def _migrate(self, db: sqlite3.Connection) -> None:
        version = int(db.execute("PRAGMA user_version").fetchone()[0])
        if version > SCHEMA_VERSION:
            raise StoreError(
                Phrase(
                    "This chat history was written by a newer version of Hearth. Update "
                    "Hearth to open it; it has not been changed.",
                )
            )
        self._create_schema(db)
        with Transaction(db):
            # The conversations whose reply was being written when Hearth stopped: the
            # window opens the latest of them.
            latest_first = db.execute(
                "SELECT conversation_id FROM messages WHERE status = ? ORDER BY id DESC",
                (STREAMING,),
            )
            self.recovered_conversations = list(dict.fromkeys(int(r[0]) for r in latest_first))
            cursor = db.execute(
                "UPDATE messages SET status = ? WHERE status = ?", (INTERRUPTED, STREAMING)
            )
            # Deleted conversations could be brought back until Hearth closed.
            db.execute("DELETE FROM conversations WHERE deleted_at IS NOT NULL")
        self.recovered_replies = cursor.rowcount

    def close(self) -> None:
        self._db.close()
        if self._marker is not None:
            self._marker.clear()

    def integrity_ok(self) -> bool:
        return not problems(self._db)

    @property
    def schema_version(self) -> int:
        return int(self._db.execute("PRAGMA user_version").fetchone()[0])

    # -- conversations -------------------------------------------------------------
    def create_conversation(
        self, title: str = "", model: str = "", system_prompt: str = ""
    ) -> Conversation:
        now = time.time()
        with Transaction(self._db):  # one unit: a retry after a repair cannot add it twice
            cursor = self._db.execute(
                "INSERT INTO conversations (title, title_is_auto, model, system_prompt, "
                "created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)",
                (title, 0 if title else 1, model, system_prompt, now, now),
            )
            return self.conversation(int(cursor.lastrowid or 0))

    def conversation(self, conversation_id: int) -> Conversation:
        row = self._db.execute(
            "SELECT * FROM conversations WHERE id = ?", (conversation_id,)
        ).fetchone()
        if row is None:
            raise KeyError(conversation_id)
        return _conversation(row)

    def conversations(self) -> list[Conversation]:
        """Pinned first, then the most recently used; deleted ones (still undoable) left out."""
        rows = self._db.execute(
            "SELECT * FROM conversations WHERE deleted_at IS NULL "
            "ORDER BY pinned DESC, updated_at DESC, id DESC"
        ).fetchall()
        return [_conversation(r) for r in rows]

    def set_pinned(self, conversation_id: int, pinned: bool) -> None:
        self._db.execute(
            "UPDATE conversations SET pinned = ? WHERE id = ?", (int(pinned), conversation_id)
        )

    def trash_conversation(self, conversation_id: int) -> None:
        """Delete in a way that ``restore_conversation`` can undo until Hearth closes."""
        self._db.execute(
            "UPDATE conversations SET deleted_at = ? WHERE id = ?", (time.time(), conversation_id)
        )

    def restore_conversation(self, conversation_id: int) -> None:
        self._db.execute(
            "UPDATE conversations SET deleted_at = NULL WHERE id = ?", (conversation_id,)
        )

    def set_conversation_settings(
        self, conversation_id: int, system_prompt: str, settings: dict[str, Any]
    ) -> None:
        self._db.execute(
            "UPDATE conversations SET system_prompt = ?, settings = ? WHERE id = ?",
            (system_prompt, json.dumps(settings, sort_keys=True), conversation_id),
        )

    def rename_conversation(self, conversation_id: int, title: str) -> None:
        title = " ".join(title.split())
        self._db.execute(
            "UPDATE conversations SET title = ?, title_is_auto = 0 WHERE id = ?",
            (title, conversation_id),
        )

    def delete_conversation(self, conversation_id: int) -> None:
        self._db.execute("DELETE FROM conversations WHERE id = ?", (conversation_id,))

    def set_conversation_model(self, conversation_id: int, model: str) -> None:
        self._db.execute(
            "UPDATE conversations SET model = ? WHERE id = ?", (model, conversation_id)
        )

    # -- messages ------------------------------------------------------------------
    def add_message(
        self,
        conversation_id: int,
        role: str,
        content: str,
        *,
        status: str = COMPLETE,
        model: str = "",
        parent_id: int | None = _LEAF,
        documents: dict[str, Any] | None = None,
    ) -> int:
        """Add a message after ``parent_id`` (default: the end of the current branch) and
        make it the end of the current branch.  A parent that already has a reply starts
        a new branch beside it (an edit or a regeneration)."""
        now = time.time()
        with Transaction(self._db):
            if parent_id == _LEAF:
                parent_id = self.conversation(conversation_id).current_leaf
            cursor = self._db.execute(
                "INSERT INTO messages (conversation_id, parent_id, role, content, status, model,"
                " documents, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    conversation_id,
                    parent_id,
                    role,
                    content,
                    status,
                    model,
                    json.dumps(documents or {}, ensure_ascii=False),
                    now,
                    now,
                ),
            )
            self._db.execute(
                "UPDATE conversations SET updated_at = ?, current_leaf = ? WHERE id = ?",
                (now, cursor.lastrowid, conversation_id),
            )
            if role == "user":
                self._db.execute(
                    "UPDATE conversations SET title = ? WHERE id = ? AND title_is_auto = 1"
                    " AND title = ''",
                    (make_title(content), conversation_id),
                )
        return int(cursor.lastrowid or 0)

    def update_message(
        self,
        message_id: int,
        *,
        content: str | None = None,
        status: str | None = None,
        stats: dict[str, Any] | None = None,
        error: str | None = None,
        reasoning: str | None = None,
    ) -> None:
        assignments: list[str] = ["updated_at = ?"]
        values: list[object] = [time.time()]
        for column, value in (
            ("content", content),
            ("status", status),
            ("error", error),
            ("reasoning", reasoning),
        ):
            if value is not None:
                assignments.append(f"{column} = ?")
                values.append(value)
        if stats is not None:
            assignments.append("stats = ?")
            values.append(json.dumps(stats))
        self._db.execute(
            f"UPDATE messages SET {', '.join(assignments)} WHERE id = ?", (*values, message_id)
        )

    def messages(self, conversation_id: int) -> list[Message]:
        """The conversation as shown: the current branch, from its first message."""
        rows = self._db.execute(
            "WITH RECURSIVE path(id, depth) AS ("
            " SELECT current_leaf, 0 FROM conversations WHERE id = ? AND current_leaf IS NOT NULL"
            " UNION ALL SELECT m.parent_id, path.depth + 1 FROM messages m"
            " JOIN path ON m.id = path.id WHERE m.parent_id IS NOT NULL)"
            " SELECT messages.* FROM path JOIN messages ON messages.id = path.id"
            " ORDER BY path.depth DESC",
            (conversation_id,),
        ).fetchall()
        return [_message(r) for r in rows]

    def all_messages(self, conversation_id: int) -> list[Message]:
        """Every message of every branch, oldest first."""
        rows = self._db.execute(
            "SELECT * FROM messages WHERE conversation_id = ? ORDER BY id", (conversation_id,)
        ).fetchall()
        return [_message(r) for r in rows]

    def branches(self, conversation_id: int) -> dict[int, tuple[int, int]]:
        """For each message that has alternatives: (its position, how many), from 1."""
        rows = self._db.execute(
            "SELECT id, parent_id, role FROM messages WHERE conversation_id = ? ORDER BY id",
            (conversation_id,),
        ).fetchall()
        groups: dict[tuple[int | None, str], list[int]] = {}
        for row in rows:
            groups.setdefault((row[1], row[2]), []).append(row[0])
        result: dict[int, tuple[int, int]] = {}
        for ids in groups.values():
            if len(ids) > 1:
                for position, message_id in enumerate(ids, start=1):
                    result[message_id] = (position, len(ids))
        return result

    def sibling(self, message_id: int, step: int) -> int | None:
        """The alternative ``step`` places before (-1) or after (+1) this message."""
        message = self.message(message_id)
        rows = self._db.execute(
            "SELECT id FROM messages WHERE conversation_id = ? AND role = ? AND "
            "parent_id IS ? ORDER BY id",
            (message.conversation_id, message.role, message.parent_id),
        ).fetchall()
        ids = [r[0] for r in rows]
        index = ids.index(message_id) + step
        return ids[index] if 0 <= index < len(ids) else None

    def switch_branch(self, message_id: int) -> None:
        """Show the branch through ``message_id``, down to its newest end."""
        leaf = message_id
        while True:
            row = self._db.execute(
                "SELECT MAX(id) FROM messages WHERE parent_id = ?", (leaf,)
            ).fetchone()
            if row[0] is None:
                break
            leaf = int(row[0])
        self._db.execute(
            "UPDATE conversations SET current_leaf = ? WHERE id = "
            "(SELECT conversation_id FROM messages WHERE id = ?)",
            (leaf, message_id),
        )

    def delete_message(self, message_id: int) -> None:
        """Remove one message; what followed it now follows the message before it."""
        message = self.message(message_id)
        with Transaction(self._db):
            self._db.execute(
                "UPDATE messages SET parent_id = ? WHERE parent_id = ?",
                (message.parent_id, message_id),
            )
            self._db.execute(
                "UPDATE conversations SET current_leaf = ? WHERE id = ? AND current_leaf = ?",
                (message.parent_id, message.conversation_id, message_id),
            )
            self._db.execute("DELETE FROM messages WHERE id = ?", (message_id,))

    # -- search, export, import -------------------------------------------------------
    def search(self, query: str, limit: int = 50) -> list[SearchHit]:
        """Conversations whose title or messages contain ``query`` (any language), newest
        first.  Three characters or more use the full-text index; shorter ones scan."""
        text = query.strip()
        if not text:
            return []
        if len(text) >= 3:
            quoted = '"' + text.replace('"', '""') + '"'
            rows = self._db.execute(
                "SELECT m.id, m.conversation_id, c.title, m.content FROM message_search s "
                "JOIN messages m ON m.id = s.rowid "
                "JOIN conversations c ON c.id = m.conversation_id "
                "WHERE message_search MATCH ? AND c.deleted_at IS NULL ORDER BY m.id DESC LIMIT ?",
                (quoted, limit),
            ).fetchall()
        else:
            rows = self._db.execute(
                "SELECT m.id, m.conversation_id, c.title, m.content FROM messages m "
                "JOIN conversations c ON c.id = m.conversation_id WHERE m.content LIKE ? "
                "AND c.deleted_at IS NULL ORDER BY m.id DESC LIMIT ?",
                (f"%{text}%", limit),
            ).fetchall()
        hits = [SearchHit(r[1], r[2] or "New chat", r[0], _snippet(r[3], text)) for r in rows]
        titles = self._db.execute(
            "SELECT id, title FROM conversations WHERE title LIKE ? AND deleted_at IS NULL "
            "ORDER BY updated_at DESC LIMIT ?",
            (f"%{text}%", limit),
        ).fetchall()
        seen = {h.conversation_id for h in hits}
        hits += [SearchHit(r[0], r[1], None, r[1]) for r in titles if r[0] not in seen]
        return hits[:limit]

    def add_conversation_tree(
        self, header: dict[str, Any], messages: list[dict[str, Any]], current: int | None
    ) -> int:
        """Add a whole conversation at once (an import): ``messages`` name their parent by
        their place in the list, ``current`` the end of the branch shown.  All or nothing."""
        now = time.time()
        with Transaction(self._db):
            cursor = self._db.execute(
                "INSERT INTO conversations (title, title_is_auto, model, system_prompt, settings,"
                " pinned, created_at, updated_at) VALUES (?, 0, ?, ?, ?, ?, ?, ?)",
                (
                    header["title"],
                    header["model"],
                    header["system_prompt"],
                    json.dumps(header["settings"], sort_keys=True),
                    int(header["pinned"]),
                    header["created_at"],
                    now,
                ),
            )
            conversation_id = int(cursor.lastrowid or 0)
            ids: list[int] = []
            for m in messages:
                parent = m["parent"]
                row = self._db.execute(
                    "INSERT INTO messages (conversation_id, parent_id, role, content, reasoning,"
                    " status, model, stats, documents, created_at, updated_at)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        conversation_id,
                        ids[parent] if parent is not None else None,
                        m["role"],
                        m["content"],
                        m["reasoning"],
                        m["status"],
                        m["model"],
                        json.dumps(m["stats"]),
                        json.dumps(m.get("documents") or {}, ensure_ascii=False),
                        m["created_at"] or now,
                        now,
                    ),
                )
                ids.append(int(row.lastrowid or 0))
            self._db.execute(
                "UPDATE conversations SET current_leaf = ? WHERE id = ?",
                (ids[current] if current is not None else None, conversation_id),
            )
        return conversation_id

    def message(self, message_id: int) -> Message:
        row = self._db.execute("SELECT * FROM messages WHERE id = ?", (message_id,)).fetchone()
        if row is None:
            raise KeyError(message_id)
        return _message(row)


_Method = TypeVar("_Method", bound=Callable[..., Any])


def _repairing(method: _Method) -> _Method:
    """Run ``method``; when SQLite reports damage, repair the database and run it once more
    (each public method is one statement or one transaction, so a failed try left nothing)."""

    @functools.wraps(method)
    def run(store: ChatStore, *args: Any, **kwargs: Any) -> Any:
        store._depth += 1
        try:
            return method(store, *args, **kwargs)
        except sqlite3.DatabaseError as exc:
            # Only the outermost call repairs: an inner one may be inside its transaction.
            if store._depth > 1 or store.path is None or not is_damage(exc):
                raise
            log.error("the chat history reported damage in %s", method.__name__, exc_info=True)
            store._repair()
            return method(store, *args, **kwargs)
        finally:
            store._depth -= 1

    return run  # type: ignore[return-value]


for _name, _method in list(vars(ChatStore).items()):
    if callable(_method) and not _name.startswith("_") and _name not in ("close",):
        setattr(ChatStore, _name, _repairing(_method))


def _remove_database(path: Path) -> None:
    for suffix in ("", "-wal", "-shm"):
        with contextlib.suppress(FileNotFoundError):
            Path(str(path) + suffix).unlink()


def _conversation(row: sqlite3.Row) -> Conversation:
    return Conversation(
        id=row["id"],
        title=row["title"] or "New chat",
        model=row["model"],
        system_prompt=row["system_prompt"],
        created_at=row["created_at"],
        updated_at=row["updated_at"],
        pinned=bool(row["pinned"]),
        settings=_json_object(row["settings"]),
        current_leaf=row["current_leaf"],
    )


def _json_object(text: str | None) -> dict[str, Any]:
    try:
        value = json.loads(text or "{}")
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _message(row: sqlite3.Row) -> Message:
    return Message(
        id=row["id"],
        conversation_id=row["conversation_id"],
        role=row["role"],
        content=row["content"],
        status=row["status"],
        model=row["model"],
        stats=_json_object(row["stats"]),
        error=row["error"],
        created_at=row["created_at"],
        parent_id=row["parent_id"],
        reasoning=row["reasoning"],
        documents=_json_object(row["documents"]),
    )
