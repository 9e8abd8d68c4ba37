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
* Damage is found and repaired (``app.chat.store_file``): at start after a session that
  did not close the database, and whenever SQLite reports corruption in any call, which
  is then tried once more on the repaired database.

The records it hands out (``Conversation``, ``Message``…) are in ``app.chat.records``;
their names are here too, as every user of the store knows them.
"""

from __future__ import annotations

import json
import logging
import time
from pathlib import Path
from typing import Any

from app.chat.records import (
    COMPLETE,
    EXPORT_FORMAT,
    EXPORT_VERSION,
    FAILED,
    INTERRUPTED,
    LENGTH,
    STATUSES,
    STOPPED,
    STREAMING,
    TITLE_LENGTH,
    Conversation,
    Message,
    SearchHit,
    StoreError,
    conversation_of,
    json_list,
    make_title,
    message_of,
    snippet,
)
from app.chat.schema import Transaction
from app.chat.store_file import StoreFile, repairing
from app.picture_store import Pictures, picture_folder

log = logging.getLogger(__name__)

__all__ = [
    "COMPLETE",
    "EXPORT_FORMAT",
    "EXPORT_VERSION",
    "FAILED",
    "INTERRUPTED",
    "LENGTH",
    "STATUSES",
    "STOPPED",
    "STREAMING",
    "TITLE_LENGTH",
    "ChatStore",
    "Conversation",
    "Message",
    "SearchHit",
    "StoreError",
    "make_title",
]
_LEAF = -1  # add_message's default parent: the end of the conversation's current branch


@repairing
class ChatStore(StoreFile):
    def __init__(self, path: Path | str) -> None:
        super().__init__(path)
        # The pictures its messages carry, each file once, beside the database.
        folder = picture_folder(self.path.parent) if self.path is not None else None
        self.pictures = Pictures(folder)
        # Conversations emptied from the trash at open took their messages: their
        # pictures go too (a deleted chat's photo must not stay behind).
        try:
            self.sweep_pictures()
        except OSError:
            log.warning("could not remove the pictures no conversation uses", exc_info=True)

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
        return conversation_of(row)

    def conversations(self) -> list[Conversation]:
        """Pinned first, then the most recently used; deleted ones (still undoable) left out."""
        rows = self._db.execute(
            "SELECT * FROM conversations WHERE deleted_at IS NULL "
            "ORDER BY pinned DESC, updated_at DESC, id DESC"
        ).fetchall()
        return [conversation_of(r) for r in rows]

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
        self.sweep_pictures()

    def sweep_pictures(self) -> int:
        """Remove the picture files no message names any more (``Pictures.sweep``)."""
        used = {
            str(ref.get("sha256"))
            for (text,) in self._db.execute("SELECT images FROM messages WHERE images != '[]'")
            for ref in json_list(text)
        }
        return self.pictures.sweep(used)

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
        images: list[dict[str, Any]] | None = None,
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
                " documents, images, created_at, updated_at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    conversation_id,
                    parent_id,
                    role,
                    content,
                    status,
                    model,
                    json.dumps(documents or {}, ensure_ascii=False),
                    json.dumps(images or [], ensure_ascii=False),
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
        tools: list[dict[str, Any]] | None = None,
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
        if tools is not None:
            assignments.append("tools = ?")
            values.append(json.dumps(tools, ensure_ascii=False))
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
        return [message_of(r) for r in rows]

    def all_messages(self, conversation_id: int) -> list[Message]:
        """Every message of every branch, oldest first."""
        rows = self._db.execute(
            "SELECT * FROM messages WHERE conversation_id = ? ORDER BY id", (conversation_id,)
        ).fetchall()
        return [message_of(r) for r in rows]

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
        if message.images:
            self.sweep_pictures()

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
        hits = [SearchHit(r[1], r[2] or "New chat", r[0], snippet(r[3], text)) for r in rows]
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
                    " status, model, stats, documents, tools, images, created_at, updated_at)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
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
                        json.dumps(m.get("tools") or [], ensure_ascii=False),
                        json.dumps(m.get("images") or [], ensure_ascii=False),
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
        return message_of(row)
