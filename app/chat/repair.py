"""Finding and repairing damage in the chat database, so that a bad disk sector or a
half-copied file costs the user as little as SQLite allows.

Why it looks like this:

* **Detect.** ``PRAGMA quick_check`` runs at start when the last session did not close the
  database (a marker file beside it says so), and whenever SQLite reports corruption
  (``SQLITE_CORRUPT`` and its extended codes, ``SQLITE_CORRUPT_VTAB`` from the full-text
  index among them, and ``SQLITE_NOTADB``).
* **Rebuild** what is derived: ``REINDEX`` rebuilds every B-tree index from its table, and
  the FTS5 ``rebuild`` command rebuilds the search index from the messages.  Nothing the user
  wrote lives in either, so when this makes the check pass nothing was lost.
* **Salvage** when a table itself is damaged: every row SQLite can still read is copied into
  a new database (the idea of the sqlite3 shell's ``.recover``, done with plain queries so
  that it works with any Python's SQLite): rows are read in rowid order, and past a page
  that cannot be read the scan jumps ahead until rows can be read again.  The damaged file
  is kept beside the new one, never deleted.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sqlite3
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import psutil

from app.chat.schema import Transaction
from app.files import set_database_aside
from wire.phrases import Phrase

log = logging.getLogger(__name__)

# Primary result codes of damage (extended codes carry them in their low byte).
_DAMAGE = (sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB)
_DAMAGE_WORDS = ("malformed", "not a database", "corrupt")
SALVAGED_TABLES = ("conversations", "messages")  # everything the user wrote


def is_damage(exc: BaseException) -> bool:
    """Whether ``exc`` is SQLite saying that the file is damaged (not locked, not full)."""
    if not isinstance(exc, sqlite3.DatabaseError):
        return False
    code = getattr(exc, "sqlite_errorcode", None)
    if isinstance(code, int):
        return (code & 0xFF) in _DAMAGE
    return any(word in str(exc).lower() for word in _DAMAGE_WORDS)


def problems(db: sqlite3.Connection) -> list[str]:
    """What ``PRAGMA quick_check`` finds (empty when the database is whole), plus what the
    full-text index's own check finds: quick_check does not look inside it."""
    try:
        found = [str(row[0]) for row in db.execute("PRAGMA quick_check")]
    except sqlite3.DatabaseError as exc:
        return [str(exc)]
    found = [] if found == ["ok"] else found
    try:
        # Compared with the messages too (rank 1), unless a reply is streaming: those are
        # indexed only once they end, so the index rightly lacks them meanwhile.
        streaming = db.execute("SELECT 1 FROM messages WHERE status = 'streaming'").fetchone()
        db.execute(
            "INSERT INTO message_search(message_search, rank) VALUES ('integrity-check', ?)",
            (0 if streaming else 1,),
        )
    except sqlite3.OperationalError as exc:
        if "no such table" not in str(exc):
            found.append(f"search index: {exc}")
    except sqlite3.DatabaseError as exc:
        found.append(f"search index: {exc}")
    return found


def rebuild_derived(db: sqlite3.Connection) -> bool:
    """Rebuild the indexes and the search index; True when the check then passes."""
    try:
        with Transaction(db):
            db.execute("REINDEX")
            db.execute("INSERT INTO message_search(message_search) VALUES ('delete-all')")
            db.execute(  # as the schema's triggers index: streaming replies once they end
                "INSERT INTO message_search(rowid, content) "
                "SELECT id, content FROM messages WHERE status != 'streaming'"
            )
    except sqlite3.DatabaseError:
        log.warning("could not rebuild the chat history's indexes", exc_info=True)
        return False
    return not problems(db)


@dataclass
class Salvage:
    conversations: int = 0
    messages: int = 0
    unreadable_ranges: int = 0  # stretches of rows that could not be read
    unusable_rows: int = 0  # rows read but refused by the new database

    @property
    def complete(self) -> bool:
        """Every row was read and kept: only derived parts (indexes) were damaged."""
        return not self.unreadable_ranges and not self.unusable_rows


def salvage(
    damaged: Path, fresh: Path, prepare: Callable[[sqlite3.Connection], None]
) -> Salvage | None:
    """Copy every readable row of ``damaged`` into a new database at ``fresh`` (made with
    ``prepare``: the current schema); None when nothing at all can be read.  Messages whose
    conversation was lost get a conversation again, so that nothing readable is dropped.
    An error of the new database (a full disk) is raised: then nothing may be set aside."""
    result = Salvage()
    source = sqlite3.connect(f"file:{damaged}?mode=ro", uri=True)
    try:
        source.execute("SELECT name FROM sqlite_master").fetchall()
    except sqlite3.DatabaseError:
        source.close()
        log.warning("nothing can be read from %s", damaged, exc_info=True)
        return None
    target = sqlite3.connect(fresh, isolation_level=None)
    try:
        source.row_factory = sqlite3.Row
        prepare(target)
        target.execute("PRAGMA foreign_keys=OFF")
        target.execute("BEGIN")
        for table in SALVAGED_TABLES:
            wanted = _columns(target, table)
            for row in _readable_rows(source, table, result):
                record = dict(zip(row.keys(), tuple(row), strict=True))
                values = {k: v for k, v in record.items() if k in wanted}
                names = ", ".join(values)
                marks = ", ".join("?" for _ in values)
                insert = f"INSERT INTO {table} ({names}) VALUES ({marks})"
                try:
                    target.execute(insert, list(values.values()))
                except sqlite3.IntegrityError:  # a row damaged beyond use
                    result.unusable_rows += 1
                    continue
                if table == "conversations":
                    result.conversations += 1
                else:
                    result.messages += 1
        _adopt_orphans(target)
        target.execute("COMMIT")
    finally:
        source.close()
        target.close()
    return result


def _columns(db: sqlite3.Connection, table: str) -> set[str]:
    return {str(row[1]) for row in db.execute(f"PRAGMA table_info({table})")}


def _readable_rows(db: sqlite3.Connection, table: str, result: Salvage) -> Iterator[sqlite3.Row]:
    """Rows in rowid order, jumping over stretches that cannot be read (the table's own
    B-tree, never an index: ``NOT INDEXED``)."""
    after = -(2**63)
    top = _largest_rowid(db, table)
    while True:
        try:
            for row in db.execute(
                f"SELECT rowid AS _rowid_, * FROM {table} NOT INDEXED WHERE rowid > ? "
                "ORDER BY rowid",
                (after,),
            ):
                after = int(row["_rowid_"])
                yield row
            return
        except sqlite3.DatabaseError:
            result.unreadable_ranges += 1
            resumed = _next_readable(db, table, after, top)
            if resumed is None:
                return
            after = resumed


def _largest_rowid(db: sqlite3.Connection, table: str) -> int:
    try:
        value = db.execute(f"SELECT max(rowid) FROM {table}").fetchone()[0]
    except sqlite3.DatabaseError:
        value = None
    return int(value) if value is not None else 2**31


def _next_readable(db: sqlite3.Connection, table: str, after: int, top: int) -> int | None:
    """The smallest rowid past ``after`` from which rows can be read again (None: none):
    steps that double until a read works, then a binary search back, so that the rows
    between the damaged page and the first good read are not skipped."""

    def readable(start: int) -> bool:
        try:
            db.execute(
                f"SELECT rowid FROM {table} NOT INDEXED WHERE rowid > ? ORDER BY rowid LIMIT 1",
                (start,),
            ).fetchall()
            return True
        except sqlite3.DatabaseError:
            return False

    failed, step = max(after, 0), 1
    limit = max(top, failed + 1) * 2
    while not readable(failed + step):
        if failed + step > limit:
            return None
        step *= 2
    good = failed + step
    failed = failed + step // 2 if step > 1 else failed
    while good - failed > 1:
        middle = (failed + good) // 2
        if readable(middle):
            good = middle
        else:
            failed = middle
    return good


def _adopt_orphans(db: sqlite3.Connection) -> None:
    """Messages whose conversation row was lost get a conversation again; a branch that
    points at a lost message starts afresh."""
    orphans = [
        int(row[0])
        for row in db.execute(
            "SELECT DISTINCT conversation_id FROM messages WHERE conversation_id NOT IN "
            "(SELECT id FROM conversations)"
        )
    ]
    now = time.time()
    for conversation_id in orphans:
        db.execute(
            "INSERT INTO conversations (id, title, title_is_auto, created_at, updated_at) "
            "VALUES (?, ?, 0, ?, ?)",
            (conversation_id, f"Recovered conversation {conversation_id}", now, now),
        )
    db.execute(
        "UPDATE messages SET parent_id = NULL WHERE parent_id IS NOT NULL AND parent_id NOT IN "
        "(SELECT id FROM messages)"
    )
    db.execute(
        "UPDATE conversations SET current_leaf = (SELECT MAX(id) FROM messages WHERE "
        "conversation_id = conversations.id) WHERE current_leaf IS NULL OR current_leaf NOT IN "
        "(SELECT id FROM messages)"
    )


def move_aside(path: Path) -> Path:
    """Keep a damaged database (and its WAL) beside the new one under a dated name; all of
    it or nothing (``OSError``)."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    aside = path.with_name(f"{path.name}.damaged-{stamp}")
    set_database_aside(path, aside)
    return aside


def rebuilt_note() -> str:
    return Phrase(
        "Hearth found damage in the indexes of your chat history and rebuilt them; nothing "
        "was lost."
    )


def salvaged_note(saved: Salvage, aside: Path) -> str:
    if saved.complete:
        return Phrase(
            "Part of your chat history was damaged, but all of it could still be read: "
            "Hearth copied its {0} conversation(s) and {1} message(s) into a new history "
            "and kept the damaged file as {2} in its data folder.",
            saved.conversations,
            saved.messages,
            aside.name,
        )
    return Phrase(
        "Your chat history was damaged. Hearth saved everything that could still be read "
        "({0} conversation(s), {1} message(s)) into a new history and kept the damaged file "
        "as {2} in its data folder.",
        saved.conversations,
        saved.messages,
        aside.name,
    )


class Marker:
    """A file beside the database for each process that has it open.  One left by a process
    that no longer runs means that a session ended without closing the database (a crash,
    a power cut), so the next start checks it."""

    def __init__(self, database: Path) -> None:
        self.database = database
        self.path = database.with_name(f"{database.name}.open-{os.getpid()}")

    def was_left(self) -> bool:
        for marker in self.database.parent.glob(f"{self.database.name}.open-*"):
            pid = marker.name.rsplit("-", 1)[-1]
            if not pid.isdigit() or not psutil.pid_exists(int(pid)):
                with contextlib.suppress(OSError):
                    marker.unlink()
                return True
        return False

    def others_open(self) -> bool:
        """Whether another running process has the database open now."""
        for marker in self.database.parent.glob(f"{self.database.name}.open-*"):
            pid = marker.name.rsplit("-", 1)[-1]
            if pid.isdigit() and int(pid) != os.getpid() and psutil.pid_exists(int(pid)):
                return True
        return False

    def set(self) -> None:
        with contextlib.suppress(OSError):
            self.path.touch()

    def clear(self) -> None:
        with contextlib.suppress(OSError):
            self.path.unlink()
