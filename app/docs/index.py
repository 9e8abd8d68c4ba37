"""The document index: every collection's files, their passages, words and vectors.

One SQLite database (``documents.sqlite3`` in the data folder), written by one indexer
thread at a time and read by any number of searches (WAL).  It holds nothing that cannot
be made again: the collections themselves (names and folders) live in
``collections.json``, so a damaged index is set aside and rebuilt from the files.

Passages are searched two ways: BM25 over FTS5 (words, with CJK as character pairs, see
``app.docs.terms``) and, when an embedding model has been run over them, cosine
similarity of their vectors (``vectors``: one float32 row per passage and model).
"""

from __future__ import annotations

import contextlib
import logging
import sqlite3
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from app.docs.chunking import Passage
from app.docs.terms import estimate_tokens, index_terms, match_expression
from app.files import private_file, set_database_aside
from wire.phrases import Phrase

log = logging.getLogger(__name__)

INDEXED, SKIPPED, FAILED = "indexed", "skipped", "failed"
SCHEMA_VERSION = 1

_SCHEMA = (
    """CREATE TABLE IF NOT EXISTS files (
        id INTEGER PRIMARY KEY,
        collection TEXT NOT NULL,
        path TEXT NOT NULL,
        kind TEXT NOT NULL DEFAULT '',
        size INTEGER NOT NULL DEFAULT 0,
        mtime_ns INTEGER NOT NULL DEFAULT 0,
        sha256 TEXT NOT NULL DEFAULT '',
        status TEXT NOT NULL,
        reason TEXT NOT NULL DEFAULT '',
        tokens INTEGER NOT NULL DEFAULT 0,
        indexed_at REAL NOT NULL,
        UNIQUE (collection, path)
    )""",
    "CREATE INDEX IF NOT EXISTS files_by_hash ON files (collection, sha256)",
    """CREATE TABLE IF NOT EXISTS chunks (
        id INTEGER PRIMARY KEY,
        file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
        ordinal INTEGER NOT NULL,
        page INTEGER,
        heading TEXT NOT NULL DEFAULT '',
        text TEXT NOT NULL
    )""",
    "CREATE INDEX IF NOT EXISTS chunks_by_file ON chunks (file_id, ordinal)",
    """CREATE VIRTUAL TABLE IF NOT EXISTS chunk_terms USING fts5(
        terms, tokenize = 'unicode61 remove_diacritics 2'
    )""",
    """CREATE TRIGGER IF NOT EXISTS chunks_unindex AFTER DELETE ON chunks BEGIN
        DELETE FROM chunk_terms WHERE rowid = old.id;
    END""",
    """CREATE TABLE IF NOT EXISTS vectors (
        chunk_id INTEGER NOT NULL REFERENCES chunks(id) ON DELETE CASCADE,
        model TEXT NOT NULL,
        vector BLOB NOT NULL,
        PRIMARY KEY (chunk_id, model)
    )""",
)


@dataclass(frozen=True)
class FileRecord:
    id: int
    collection: str
    path: str
    kind: str
    size: int
    mtime_ns: int
    sha256: str
    status: str
    reason: str
    tokens: int
    indexed_at: float


@dataclass(frozen=True)
class Hit:
    """A passage found for a question, with where it comes from."""

    chunk_id: int
    collection: str
    file: str
    page: int | None
    section: str
    text: str
    score: float  # higher is better (BM25 sign turned, cosine, or fused)
    ordinal: int = 0


@dataclass(frozen=True)
class CollectionCounts:
    files: int
    indexed: int
    skipped: int
    failed: int
    chunks: int
    tokens: int


class DocumentIndex:
    """The index database; one connection per thread (``sqlite3`` objects are not shared)."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path) if str(path) != ":memory:" else None
        self.problem = ""  # a sentence about a damaged index that was rebuilt
        self.set_aside = ""  # the name a damaged index was kept under (a new one is empty)
        self._local = threading.local()
        self._memory: sqlite3.Connection | None = None
        if self.path is None:
            self._memory = self._connect(":memory:")
        else:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            try:
                self._check(self.db)
            except sqlite3.DatabaseError as exc:
                if not is_damage(exc):  # locked, unreadable, disk I/O: not set aside
                    log.error("the document index %s cannot be opened", self.path, exc_info=exc)
                    self._local = threading.local()
                    self.problem = Phrase(
                        "Hearth cannot open the document index ({0}); searches of your "
                        "collections fail until it can.",
                        exc,
                    )
                    return
                self._set_aside(exc)

    # -- connections ------------------------------------------------------------------
    @property
    def db(self) -> sqlite3.Connection:
        if self._memory is not None:
            return self._memory
        connection: sqlite3.Connection | None = getattr(self._local, "db", None)
        if connection is None:
            assert self.path is not None
            connection = self._connect(str(self.path))
            self._local.db = connection
        return connection

    def _connect(self, target: str) -> sqlite3.Connection:
        if target != ":memory:":
            private_file(Path(target))  # passages of private documents: this user's alone
        db = sqlite3.connect(
            target, isolation_level=None, check_same_thread=target != ":memory:", timeout=30
        )
        db.execute("PRAGMA foreign_keys = ON")
        if target != ":memory:":
            db.execute("PRAGMA journal_mode = WAL")
            db.execute("PRAGMA synchronous = NORMAL")
        version = db.execute("PRAGMA user_version").fetchone()[0]
        if version < SCHEMA_VERSION:
            for statement in _SCHEMA:
                db.execute(statement)
            db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        return db

    def _check(self, db: sqlite3.Connection) -> None:
        """Cheap enough for the window's start: the header and the files table are read
        (a damaged page elsewhere is found when a search meets it)."""
        db.execute("SELECT count(*) FROM files").fetchone()

    def set_aside_if_damaged(self, exc: BaseException) -> bool:
        """Found in use (a page deep in the file, which the opening check does not read):
        when ``exc`` says the file is damaged, set it aside and start an empty index (the
        index is derived from the collections' files, so nothing is lost).  True when a new
        index is in place; ``problem`` then says so."""
        if self.path is None or not is_damage(exc):
            return False
        return self._set_aside(exc)

    def _set_aside(self, exc: BaseException) -> bool:
        assert self.path is not None
        log.error("the document index %s is damaged; rebuilding it", self.path, exc_info=exc)
        with contextlib.suppress(Exception):
            self.db.close()
        self._local = threading.local()
        aside = self.path.with_name(f"{self.path.name}.damaged-{int(time.time())}")
        try:
            set_database_aside(self.path, aside)
        except OSError as failure:  # Windows: another Hearth has it open
            log.error("could not set the damaged index aside", exc_info=failure)
            self._local = threading.local()
            self.problem = Phrase(
                "The document index is damaged and could not be set aside ({0}); searches "
                "of your collections fail until it can. Close other Hearth windows and "
                "hearth serve, then start Hearth again.",
                failure.strerror or failure,
            )
            return False
        self.set_aside = aside.name
        self.problem = Phrase(
            "The document index was damaged and has been set aside as {0}; your collections "
            "are being indexed again.",
            aside.name,
        )
        self._check(self.db)
        return True

    def close_thread(self) -> None:
        """Close this thread's connection (a thread that is about to end)."""
        connection = getattr(self._local, "db", None)
        if connection is not None and self._memory is None:
            connection.close()
            self._local.db = None

    def close(self) -> None:
        connection = self._memory or getattr(self._local, "db", None)
        if connection is not None:
            connection.close()
        self._local = threading.local()

    @contextlib.contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        db = self.db
        db.execute("BEGIN IMMEDIATE")
        try:
            yield db
        except BaseException:
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")

    # -- files ------------------------------------------------------------------------
    def files(self, collection: str) -> list[FileRecord]:
        rows = self.db.execute(
            "SELECT id, collection, path, kind, size, mtime_ns, sha256, status, reason, tokens,"
            " indexed_at FROM files WHERE collection = ? ORDER BY path",
            (collection,),
        ).fetchall()
        return [FileRecord(*row) for row in rows]

    def record_indexed(
        self,
        collection: str,
        path: str,
        kind: str,
        size: int,
        mtime_ns: int,
        sha256: str,
        passages: Sequence[Passage],
        note: str = "",
    ) -> int:
        """Store a file's passages (replacing what it had); the file's id.  ``note``: what
        the user should know about it (only part of it was read)."""
        tokens = sum(estimate_tokens(p.text) for p in passages)
        with self.transaction() as db:
            file_id = self._upsert(
                db, collection, path, kind, size, mtime_ns, sha256, INDEXED, note, tokens
            )
            db.execute("DELETE FROM chunks WHERE file_id = ?", (file_id,))
            for passage in passages:
                cursor = db.execute(
                    "INSERT INTO chunks (file_id, ordinal, page, heading, text) VALUES (?,?,?,?,?)",
                    (file_id, passage.ordinal, passage.page, passage.heading, passage.text),
                )
                db.execute(
                    "INSERT INTO chunk_terms (rowid, terms) VALUES (?, ?)",
                    (cursor.lastrowid, index_terms(f"{passage.heading}\n{passage.text}")),
                )
        return file_id

    def record_skipped(
        self,
        collection: str,
        path: str,
        reason: str,
        failed: bool,
        size: int = 0,
        mtime_ns: int = 0,
    ) -> None:
        with self.transaction() as db:
            file_id = self._upsert(
                db,
                collection,
                path,
                "",
                size,
                mtime_ns,
                "",
                FAILED if failed else SKIPPED,
                reason,
                0,
            )
            db.execute("DELETE FROM chunks WHERE file_id = ?", (file_id,))

    def _upsert(
        self,
        db: sqlite3.Connection,
        collection: str,
        path: str,
        kind: str,
        size: int,
        mtime_ns: int,
        sha256: str,
        status: str,
        reason: str,
        tokens: int,
    ) -> int:
        row = db.execute(
            "INSERT INTO files (collection, path, kind, size, mtime_ns, sha256, status, reason,"
            " tokens, indexed_at) VALUES (?,?,?,?,?,?,?,?,?,?)"
            " ON CONFLICT (collection, path) DO UPDATE SET kind = excluded.kind,"
            " size = excluded.size, mtime_ns = excluded.mtime_ns, sha256 = excluded.sha256,"
            " status = excluded.status, reason = excluded.reason, tokens = excluded.tokens,"
            " indexed_at = excluded.indexed_at RETURNING id",
            (collection, path, kind, size, mtime_ns, sha256, status, reason, tokens, time.time()),
        ).fetchone()
        return int(row[0])

    def touch(self, file_id: int, size: int, mtime_ns: int, path: str | None = None) -> None:
        """The file is unchanged in content (same hash): record its new time (and path, for
        a rename) without reading it again."""
        with self.transaction() as db:
            if path is None:
                db.execute(
                    "UPDATE files SET size = ?, mtime_ns = ? WHERE id = ?",
                    (size, mtime_ns, file_id),
                )
            else:
                db.execute(
                    "UPDATE files SET size = ?, mtime_ns = ?, path = ? WHERE id = ?",
                    (size, mtime_ns, path, file_id),
                )

    def remove_files(self, file_ids: Iterable[int]) -> None:
        with self.transaction() as db:
            db.executemany("DELETE FROM files WHERE id = ?", [(i,) for i in file_ids])

    def remove_collection(self, collection: str) -> None:
        with self.transaction() as db:
            db.execute("DELETE FROM files WHERE collection = ?", (collection,))

    def counts(self, collection: str) -> CollectionCounts:
        files = self.db.execute(
            "SELECT count(*), sum(status = 'indexed'), sum(status = 'skipped'),"
            " sum(status = 'failed'), sum(tokens) FROM files WHERE collection = ?",
            (collection,),
        ).fetchone()
        chunks = self.db.execute(
            "SELECT count(*) FROM chunks JOIN files ON files.id = chunks.file_id"
            " WHERE files.collection = ?",
            (collection,),
        ).fetchone()[0]
        return CollectionCounts(
            int(files[0] or 0),
            int(files[1] or 0),
            int(files[2] or 0),
            int(files[3] or 0),
            int(chunks or 0),
            int(files[4] or 0),
        )

    # -- search -----------------------------------------------------------------------
    def search_words(self, collections: Sequence[str], question: str, limit: int) -> list[Hit]:
        """Passages ranked by BM25 over the question's words (any language)."""
        expression = match_expression(question)
        if not expression or not collections:
            return []
        marks = ",".join("?" * len(collections))
        rows = self.db.execute(
            "SELECT chunks.id, files.collection, files.path, chunks.page, chunks.heading,"
            " chunks.text, bm25(chunk_terms), chunks.ordinal FROM chunk_terms"
            " JOIN chunks ON chunks.id = chunk_terms.rowid"
            " JOIN files ON files.id = chunks.file_id"
            f" WHERE chunk_terms MATCH ? AND files.collection IN ({marks})"
            " ORDER BY bm25(chunk_terms) LIMIT ?",
            (expression, *collections, limit),
        ).fetchall()
        return [Hit(r[0], r[1], r[2], r[3], r[4], r[5], -float(r[6]), r[7]) for r in rows]

    def hits(self, chunk_ids: Sequence[int]) -> dict[int, Hit]:
        if not chunk_ids:
            return {}
        marks = ",".join("?" * len(chunk_ids))
        rows = self.db.execute(
            "SELECT chunks.id, files.collection, files.path, chunks.page, chunks.heading,"
            f" chunks.text, chunks.ordinal FROM chunks JOIN files ON files.id = chunks.file_id"
            f" WHERE chunks.id IN ({marks})",
            tuple(chunk_ids),
        ).fetchall()
        return {r[0]: Hit(r[0], r[1], r[2], r[3], r[4], r[5], 0.0, r[6]) for r in rows}

    def neighbours(
        self, collection: str, path: str, ordinal: int, around: int = 1
    ) -> list[tuple[int, str]]:
        """The passage at ``ordinal`` of a file and those ``around`` it, in order (for a
        preview of a cited passage in its place)."""
        return [
            (int(r[0]), str(r[1]))
            for r in self.db.execute(
                "SELECT chunks.ordinal, chunks.text FROM chunks"
                " JOIN files ON files.id = chunks.file_id"
                " WHERE files.collection = ? AND files.path = ? AND chunks.ordinal BETWEEN ? AND ?"
                " ORDER BY chunks.ordinal",
                (collection, path, ordinal - around, ordinal + around),
            ).fetchall()
        ]

    # -- vectors ----------------------------------------------------------------------
    def chunks_without_vectors(
        self, collection: str, model: str, limit: int
    ) -> list[tuple[int, str]]:
        return [
            (int(r[0]), str(r[1]))
            for r in self.db.execute(
                "SELECT chunks.id, chunks.heading || char(10) || chunks.text FROM chunks"
                " JOIN files ON files.id = chunks.file_id"
                " LEFT JOIN vectors ON vectors.chunk_id = chunks.id AND vectors.model = ?"
                " WHERE files.collection = ? AND vectors.chunk_id IS NULL LIMIT ?",
                (model, collection, limit),
            ).fetchall()
        ]

    def store_vectors(self, model: str, rows: Sequence[tuple[int, bytes]]) -> None:
        with self.transaction() as db:
            db.executemany(
                "INSERT OR REPLACE INTO vectors (chunk_id, model, vector) VALUES (?, ?, ?)",
                [(chunk_id, model, blob) for chunk_id, blob in rows],
            )

    def vectors(self, collections: Sequence[str], model: str) -> list[tuple[int, bytes]]:
        if not collections:
            return []
        marks = ",".join("?" * len(collections))
        return [
            (int(r[0]), bytes(r[1]))
            for r in self.db.execute(
                "SELECT vectors.chunk_id, vectors.vector FROM vectors"
                " JOIN chunks ON chunks.id = vectors.chunk_id"
                " JOIN files ON files.id = chunks.file_id"
                f" WHERE vectors.model = ? AND files.collection IN ({marks})",
                (model, *collections),
            ).fetchall()
        ]

    def vector_state(self, model: str) -> tuple[int, int]:
        """Changes when vectors of ``model`` are added or removed (for caches)."""
        row = self.db.execute(
            "SELECT count(*), coalesce(max(chunk_id), 0) FROM vectors WHERE model = ?", (model,)
        ).fetchone()
        return int(row[0]), int(row[1])


def is_damage(exc: BaseException) -> bool:
    """SQLite says the file is damaged or not a database (not locked, not unreadable)."""
    if not isinstance(exc, sqlite3.DatabaseError):
        return False
    code = getattr(exc, "sqlite_errorcode", None)
    if isinstance(code, int):
        return (code & 0xFF) in (11, 26)  # SQLITE_CORRUPT, SQLITE_NOTADB
    return any(word in str(exc).lower() for word in ("malformed", "not a database"))
