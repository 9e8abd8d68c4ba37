"""The chat store's file: opening the SQLite database (WAL, ``synchronous=NORMAL``), its
schema migrations (a history written by a newer Hearth is refused rather than damaged),
replies left ``streaming`` by a Hearth that died marked ``interrupted``, and finding and
repairing damage (``app.chat.repair``): at start after a session that did not close the
database, and whenever SQLite reports corruption in a public call of the store, which is
then tried once more on the repaired database (``repairing``).  Indexes are rebuilt;
damaged tables are salvaged into a new file, the old one kept; ``recovery_note`` tells the
user what happened.  ``ChatStore`` adds conversations and messages on top.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import os
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from app.chat.records import INTERRUPTED, STREAMING, StoreError
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
from app.files import private_file
from wire.phrases import Phrase

log = logging.getLogger(__name__)


class StoreFile:
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
        remove_database(fresh)
        try:
            saved = salvage(self.path, fresh, self._create_schema)
            aside = move_aside(self.path)
        except (sqlite3.Error, OSError) as exc:  # the new file could not be written
            remove_database(fresh)
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
            remove_database(fresh)
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
        if target != ":memory:":
            private_file(Path(target))  # the history is this user's alone
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


_Method = TypeVar("_Method", bound=Callable[..., Any])
Store = TypeVar("Store", bound="StoreFile")


def _repairing(method: _Method) -> _Method:
    """Run ``method``; when SQLite reports damage, repair the database and run it once more
    (each public method is one statement or one transaction, so a failed try left nothing)."""

    @functools.wraps(method)
    def run(store: StoreFile, *args: Any, **kwargs: Any) -> Any:
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


def repairing(cls: type[Store]) -> type[Store]:
    """Every public method of ``cls`` (but ``close``) repairs the database and runs once
    more when SQLite reports damage."""
    for name, method in list(vars(cls).items()):
        if callable(method) and not name.startswith("_") and name != "close":
            setattr(cls, name, _repairing(method))
    return cls


def remove_database(path: Path) -> None:
    for suffix in ("", "-wal", "-shm"):
        with contextlib.suppress(FileNotFoundError):
            Path(str(path) + suffix).unlink()
