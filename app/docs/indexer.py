"""Bringing a collection's index up to date with its files, incrementally.

``Indexer.update`` walks the collection's files and folders (following links, never
around a loop), compares each file with what the index knows (size and time first, the
content hash when they differ), and reads only what is new or changed; a file that moved
keeps its passages (found by its hash); a file that is gone leaves the index.  Progress is
reported after every file, and a stop between files loses nothing: the next update
carries on from there.  Every file that is not indexed is kept with its reason.
"""

from __future__ import annotations

import array
import logging
import os
import stat
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from app.docs.chunking import passages
from app.docs.collections import Collection
from app.docs.extraction import Extractor, Skipped, Stopped, file_hash
from app.docs.formats import kind_of
from app.docs.index import FAILED, INDEXED, DocumentIndex, FileRecord, is_damage
from app.errors import cannot_write_store, describe_error
from wire.platforms import is_link_loop

log = logging.getLogger(__name__)

# Folders never worth reading (tools' caches and version control).
IGNORED_FOLDERS = frozenset(
    {"node_modules", "__pycache__", ".git", ".hg", ".svn", ".venv", "venv", ".tox", ".cache"}
)
EMBED_BATCH = 32


class Embedder(Protocol):
    """Turns passages into vectors (an embedding model in a worker).  ``name`` tells
    vectors of different models apart; an empty name means no model (words only)."""

    @property
    def name(self) -> str: ...

    def embed(self, texts: Sequence[str]) -> list[list[float]]: ...


@dataclass(frozen=True)
class Candidate:
    path: Path
    size: int
    mtime_ns: int


@dataclass(frozen=True)
class Problem:
    path: str
    reason: str
    failed: bool = False  # the reader failed (damaged, hung) rather than a file left out
    indexed: bool = False  # a note about a file that was indexed (only part of it was read)


@dataclass
class Progress:
    collection: str
    files_total: int = 0
    files_done: int = 0
    bytes_total: int = 0
    bytes_done: int = 0
    indexed: int = 0
    unchanged: int = 0
    renamed: int = 0
    removed: int = 0
    skipped: int = 0
    failed: int = 0
    ignored: int = 0  # files of formats Hearth does not read, found in folders
    current: str = ""
    started: float = field(default_factory=time.monotonic)

    @property
    def eta_s(self) -> float | None:
        """Seconds left at the pace so far (by bytes), once there is a pace."""
        elapsed = time.monotonic() - self.started
        if self.bytes_done <= 0 or elapsed < 0.5:
            return None
        return max(0.0, (self.bytes_total - self.bytes_done) * elapsed / self.bytes_done)


@dataclass
class UpdateReport:
    progress: Progress
    problems: list[Problem] = field(default_factory=list)
    stopped: bool = False
    # Why the update stopped before its end when the index could not be written (a full
    # disk): one sentence, said once, instead of one failure per remaining file.
    fault: str = ""
    # The index was found damaged and rebuilt during this update: said once.
    rebuilt: str = ""


@dataclass
class Scan:
    candidates: list[Candidate]
    problems: list[Problem]
    ignored: int  # files of formats Hearth does not read, found in folders
    # Folders that could not be reached (an unplugged disk, a share that is offline, no
    # permission): what the index has under them is kept, not taken for deleted.
    unreachable: list[str]

    def covers(self, path: str) -> bool:
        """Whether ``path`` lies under a folder that could not be reached."""
        return any(
            path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)
            for folder in self.unreachable
        )


def scan(roots: Sequence[str]) -> Scan:
    """The readable files under ``roots`` (files and folders), the paths that could not be
    followed, how many files of other formats were passed over, and the folders that could
    not be reached."""
    found: dict[str, Candidate] = {}
    problems: list[Problem] = []
    ignored = 0
    unreachable: list[str] = []
    seen_folders: set[tuple[int, int]] = set()

    def consider(path: Path, explicit: bool) -> None:
        nonlocal ignored
        try:
            info = path.stat()
        except FileNotFoundError:
            if path.is_symlink():
                problems.append(Problem(str(path), "it is a symbolic link to nothing"))
            elif explicit:
                # A collection's own folder or file is missing: an unplugged disk as
                # often as a deletion, so what was indexed from it is kept.
                problems.append(Problem(str(path), "it cannot be found (a disk not connected?)"))
                unreachable.append(str(path))
            return
        except OSError as exc:
            reason = (
                "it is a symbolic link that loops"
                if is_link_loop(exc)
                else (f"it could not be opened ({exc.strerror or exc})")
            )
            problems.append(Problem(str(path), reason))
            return
        if stat.S_ISDIR(info.st_mode):
            walk(path, (info.st_dev, info.st_ino))
        elif stat.S_ISREG(info.st_mode):
            if kind_of(path) is None and not explicit:
                ignored += 1
            else:
                found.setdefault(str(path), Candidate(path, info.st_size, info.st_mtime_ns))
        elif explicit:
            problems.append(Problem(str(path), "it is not a regular file"))

    def walk(folder: Path, identity: tuple[int, int]) -> None:
        if identity in seen_folders:
            problems.append(
                Problem(str(folder), "it leads back into a folder already read (a link loop)")
            )
            return
        seen_folders.add(identity)
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError as exc:
            problems.append(
                Problem(str(folder), f"the folder could not be read ({exc.strerror or exc})")
            )
            unreachable.append(str(folder))
            return
        for entry in entries:
            if entry.name.startswith(".") or entry.name in IGNORED_FOLDERS:
                continue
            consider(Path(entry.path), explicit=False)

    for root in roots:
        consider(Path(root), explicit=True)
    return Scan(list(found.values()), problems, ignored, unreachable)


class Indexer:
    """Updates collections in ``index``; one thread uses one indexer at a time."""

    def __init__(
        self, index: DocumentIndex, extractor: Extractor, embedder: Embedder | None = None
    ) -> None:
        self.index = index
        self.extractor = extractor
        self.embedder = embedder

    def update(
        self,
        collection: Collection,
        on_progress: Callable[[Progress], None] | None = None,
        should_stop: Callable[[], bool] | None = None,
        retry_failed: bool = False,
    ) -> UpdateReport:
        """Bring the index of ``collection`` up to date.  ``retry_failed``: read again the
        files whose reader failed (a time limit, a crash) although they did not change."""
        progress = Progress(collection.name)
        report = UpdateReport(progress)
        found = scan(collection.paths)
        candidates, report.problems, progress.ignored = (
            found.candidates,
            found.problems,
            found.ignored,
        )
        known = {record.path: record for record in self.index.files(collection.name)}
        on_disk = {str(c.path) for c in candidates}
        missing = {
            path: record
            for path, record in known.items()
            if path not in on_disk and not found.covers(path)
        }
        work = [
            c
            for c in candidates
            if _changed(known.get(str(c.path)), c)
            or (retry_failed and known[str(c.path)].status == FAILED)
        ]
        progress.files_total = len(work)
        progress.bytes_total = sum(c.size for c in work)
        progress.unchanged = len(candidates) - len(work)
        tell = on_progress or (lambda _p: None)
        tell(progress)
        self.extractor.should_stop = should_stop
        by_hash = {r.sha256: r for r in missing.values() if r.sha256 and r.status == INDEXED}
        for candidate in work:
            if should_stop is not None and should_stop():
                report.stopped = True
                break
            progress.current = str(candidate.path)
            try:
                self._one(collection.name, candidate, known, by_hash, missing, report)
            except Stopped:
                report.stopped = True
                break
            except Exception as exc:
                if is_damage(exc):
                    raise  # the index itself, not this file: Documents.update rebuilds it
                if cannot_write_store(exc):
                    report.fault = describe_error(exc, "indexing the collection")
                    report.stopped = True
                    break
                self._failed(collection.name, candidate, exc, report)
            progress.files_done += 1
            progress.bytes_done += candidate.size
            tell(progress)
        if not report.stopped:
            gone = [record.id for record in missing.values()]
            if gone:
                self.index.remove_files(gone)
                progress.removed += len(gone)
            self.embed_missing(collection.name, should_stop)
        progress.current = ""
        tell(progress)
        return report

    def _one(
        self,
        collection: str,
        candidate: Candidate,
        known: dict[str, FileRecord],
        by_hash: dict[str, FileRecord],
        missing: dict[str, FileRecord],
        report: UpdateReport,
    ) -> None:
        path = str(candidate.path)
        record = known.get(path)
        progress = report.progress
        try:
            if record is None and by_hash:
                moved = by_hash.get(file_hash(candidate.path))
                if moved is not None:  # a rename: keep its passages
                    self.index.touch(moved.id, candidate.size, candidate.mtime_ns, path)
                    missing.pop(moved.path, None)
                    by_hash.pop(moved.sha256, None)
                    progress.renamed += 1
                    return
            if (
                record is not None
                and record.status == INDEXED
                and record.size == candidate.size
                and file_hash(candidate.path) == record.sha256  # only touched
            ):
                self.index.touch(record.id, candidate.size, candidate.mtime_ns)
                progress.unchanged += 1
                return
            extracted = self.extractor.extract(candidate.path)
        except Stopped:
            raise
        except Skipped as exc:
            if exc.vanished:
                if record is not None:
                    missing[path] = record
                return
            failed = exc.failed
            self.index.record_skipped(
                collection, path, exc.reason, failed, candidate.size, candidate.mtime_ns
            )
            report.problems.append(Problem(path, exc.reason, failed))
            if failed:
                progress.failed += 1
            else:
                progress.skipped += 1
            return
        except FileNotFoundError:
            if record is not None:
                missing[path] = record
            return
        except OSError as exc:
            reason = f"it could not be read ({exc.strerror or exc})"
            self.index.record_skipped(
                collection, path, reason, True, candidate.size, candidate.mtime_ns
            )
            report.problems.append(Problem(path, reason, True))
            progress.failed += 1
            return
        self.index.record_indexed(
            collection,
            path,
            extracted.kind,
            extracted.size,
            extracted.mtime_ns,
            extracted.sha256,
            passages(extracted.sections),
            extracted.note,
        )
        if extracted.note:
            report.problems.append(Problem(path, extracted.note, indexed=True))
        progress.indexed += 1

    def _failed(
        self, collection: str, candidate: Candidate, exc: Exception, report: UpdateReport
    ) -> None:
        """Record a file whose indexing failed in a way nothing else caught."""
        path = str(candidate.path)
        if isinstance(exc, UnicodeError):
            reason = "its name is not valid text (UTF-8), so Hearth cannot keep it in the index"
        else:
            log.error("indexing %r failed", path, exc_info=exc)
            reason = f"it could not be indexed ({type(exc).__name__}: {exc})"[:300]
        report.problems.append(Problem(path, reason, True))
        report.progress.failed += 1
        try:
            self.index.record_skipped(
                collection, path, reason, True, candidate.size, candidate.mtime_ns
            )
        except Exception:
            log.warning("could not record %r as failed", path, exc_info=True)

    def embed_missing(self, collection: str, should_stop: Callable[[], bool] | None = None) -> int:
        """Vectors for the collection's passages that have none (with the embedder's model)."""
        if self.embedder is None or not self.embedder.name:  # none chosen: words only
            return 0
        done = 0
        while not (should_stop is not None and should_stop()):
            batch = self.index.chunks_without_vectors(collection, self.embedder.name, EMBED_BATCH)
            if not batch:
                break
            vectors = self.embedder.embed([text for _, text in batch])
            self.index.store_vectors(
                self.embedder.name,
                [
                    (chunk_id, array.array("f", vector).tobytes())
                    for (chunk_id, _), vector in zip(batch, vectors, strict=True)
                ],
            )
            done += len(batch)
        return done


def _changed(record: FileRecord | None, candidate: Candidate) -> bool:
    return record is None or record.size != candidate.size or record.mtime_ns != candidate.mtime_ns
