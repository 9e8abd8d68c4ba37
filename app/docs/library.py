"""Documents, as every front end uses them: collections, their index, search, and what a
message is given (``ground``).  The window, ``hearth docs``, ``hearth chat`` and
``hearth serve`` all go through this one object; it has no Qt and no engine of its own
(an ``Embedder`` may be handed in for vectors)."""

from __future__ import annotations

import logging
import sqlite3
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from app.docs.chunking import passages
from app.docs.collections import Collection, Collections
from app.docs.extraction import Extracted, Extractor, Skipped
from app.docs.grounding import (
    CHARACTERS_PER_TOKEN,
    Attachment,
    Grounding,
    Source,
    documents_budget,
)
from app.docs.index import DocumentIndex, Hit
from app.docs.indexer import Embedder, Indexer, Progress, UpdateReport
from app.docs.retrieval import Retriever, by_proximity
from app.docs.terms import estimate_tokens
from app.errors import HearthError
from wire.phrases import Phrase

log = logging.getLogger(__name__)

DEFAULT_PASSAGES = 6
ATTACHED = "\x00attached"  # the in-memory collection of a message's attachments


@dataclass(frozen=True)
class CollectionSummary:
    name: str
    paths: list[str]
    files: int
    indexed: int
    skipped: int
    failed: int
    chunks: int
    tokens: int
    paused: bool


class Documents:
    def __init__(self, data_dir: Path, logs_dir: Path | None = None) -> None:
        self.collections = Collections(data_dir / "collections.json")
        self.index = DocumentIndex(data_dir / "documents.sqlite3")
        self.logs_dir = logs_dir
        self.embedder: Embedder | None = None
        self._retriever: Retriever | None = None
        self._closers: list[Callable[[], None]] = []
        self._lock = threading.Lock()
        self._locks: dict[str, threading.Lock] = {}  # one update of a collection at a time

    def on_close(self, closer: Callable[[], None]) -> None:
        self._closers.append(closer)

    def close(self) -> None:
        """Close the index (and the embedding model's worker, if one was started)."""
        for closer in self._closers:
            closer()
        self.index.close()

    @property
    def problems(self) -> list[str]:
        return [p for p in (self.collections.problem, self.index.problem) if p]

    def extractor(self) -> Extractor:
        log_file = self.logs_dir / "documents.log" if self.logs_dir is not None else None
        return Extractor(log_file=log_file)

    @property
    def retriever(self) -> Retriever:
        if self._retriever is None or self._retriever.embedder is not self.embedder:
            self._retriever = Retriever(self.index, self.embedder)
        return self._retriever

    # -- collections ------------------------------------------------------------------
    def add(
        self,
        name: str,
        paths: Sequence[Path],
        on_progress: Callable[[Progress], None] | None = None,
        should_stop: Callable[[], bool] | None = None,
    ) -> UpdateReport:
        """Add files and folders to ``name`` (made if new) and index what changed."""
        missing = [
            str(p) for p in paths if not Path(p).expanduser().exists() and not Path(p).is_symlink()
        ]
        if missing:
            raise HearthError(Phrase("Nothing was added: {0} does not exist.", ", ".join(missing)))
        collection = self.collections.add_paths(name, [Path(p) for p in paths])
        return self.update(collection.name, on_progress, should_stop, retry_failed=True)

    def _lock_of(self, name: str) -> threading.Lock:
        with self._lock:
            return self._locks.setdefault(name, threading.Lock())

    def update(
        self,
        name: str,
        on_progress: Callable[[Progress], None] | None = None,
        should_stop: Callable[[], bool] | None = None,
        retry_failed: bool = False,
    ) -> UpdateReport:
        """Index what changed in ``name``'s files (``retry_failed``: and read again the
        files whose reader failed).  Updates of different collections may run at once."""
        self.collections.reload()  # another Hearth (a command) may have changed it
        collection = self.collections.get(name)
        with self._lock_of(name), self.extractor() as extractor:
            indexer = Indexer(self.index, extractor, self.embedder)
            try:
                return indexer.update(collection, on_progress, should_stop, retry_failed)
            except sqlite3.DatabaseError as exc:
                if not self.index.set_aside_if_damaged(exc):
                    raise
            # A damaged page met while indexing: the index was set aside and starts empty;
            # it is rebuilt from the collection's files, and that is said once.
            report = indexer.update(collection, on_progress, should_stop, retry_failed=True)
            report.rebuilt = self.index.problem
            return report

    def remove(self, name: str) -> None:
        """Forget ``name`` and its index (its files are not touched); waits for an update
        of it that is stopping, never for other collections."""
        self.collections.reload()
        self.collections.get(name)
        with self._lock_of(name):
            self.collections.remove(name)
            self.index.remove_collection(name)

    def summaries(self) -> list[CollectionSummary]:
        self.collections.reload()
        result = []
        for name in self.collections.names():
            item: Collection = self.collections.get(name)
            counts = self.index.counts(name)
            result.append(
                CollectionSummary(
                    name,
                    list(item.paths),
                    counts.files,
                    counts.indexed,
                    counts.skipped,
                    counts.failed,
                    counts.chunks,
                    counts.tokens,
                    item.paused,
                )
            )
        return result

    def search(self, names: Sequence[str], question: str, k: int = DEFAULT_PASSAGES) -> list[Hit]:
        for name in names:
            self.collections.get(name)  # an unknown name is an error, not "no results"
        try:
            return self.retriever.search(list(names), question, k)
        except sqlite3.DatabaseError as exc:
            if not self.index.set_aside_if_damaged(exc):
                raise
            # A damaged page met by a search: the index starts again empty, and the
            # collections are indexed again as they are updated; say so, once.
            raise HearthError(self.index.problem) from exc

    # -- what a message is given ------------------------------------------------------
    def ground(
        self,
        question: str,
        collections: Sequence[str] = (),
        attachments: Sequence[Path] = (),
        budget_tokens: int = 3000,
        k: int = DEFAULT_PASSAGES,
    ) -> Grounding:
        """Attached files (whole when they fit in ``budget_tokens``, else their passages
        most related to the question) and the collections' best passages, numbered."""
        grounding = Grounding(collections=list(collections))
        room = max(0, budget_tokens)
        if attachments:
            with self.extractor() as extractor:
                files = [_attached(extractor, Path(p)) for p in attachments]
            room -= _attach(grounding, files, question, room)
        if collections:
            hits = self.search(collections, question, k)
            if not hits:
                grounding.notes.append(
                    Phrase("Nothing in {0} matched the question.", ", ".join(collections))
                )
            left_out = 0
            for hit in hits:
                tokens = estimate_tokens(hit.text) + 12
                if tokens > room:
                    left_out += 1
                    continue
                room -= tokens
                grounding.sources.append(
                    Source(
                        len(grounding.sources) + 1,
                        hit.file,
                        hit.text,
                        hit.page,
                        hit.section,
                        hit.collection,
                        path=hit.file,
                        ordinal=hit.ordinal,
                    )
                )
            if left_out:
                grounding.notes.append(
                    Phrase(
                        "{0} of the passages found did not fit in what is left of the "
                        "model's context and were not given to it.",
                        left_out,
                    )
                )
        return grounding


def api_grounder(documents: Documents) -> Callable[..., tuple[str, list[dict[str, object]]]]:
    """The ``ground`` function of ``hearth serve`` (``ServerConfig.ground``): searches the
    collections a request names and gives back the context and its sources.  The list of
    collections is read again for each request, so ones made since are found."""

    def ground(
        question: str,
        collections: list[str],
        k: int,
        context: int,
        conversation_chars: int,
        reply_limit: int,
    ) -> tuple[str, list[dict[str, object]]]:
        documents.collections.reload()
        budget = documents_budget(
            context,
            round(conversation_chars / CHARACTERS_PER_TOKEN),
            reply_limit,
            round(len(question) / CHARACTERS_PER_TOKEN),
        )
        grounding = documents.ground(question, collections, (), budget, k)
        sources = [
            {key: value for key, value in source.to_json().items() if key not in ("whole", "path")}
            for source in grounding.sources
        ]
        return grounding.context, sources

    return ground


def _attached(extractor: Extractor, path: Path) -> Extracted:
    try:
        return extractor.extract(path)
    except Skipped as exc:
        raise HearthError(Phrase("{0} cannot be attached: {1}.", path.name, exc.reason)) from None


def _attachment(extracted: Extracted, tokens: int, mode: str) -> Attachment:
    return Attachment(
        extracted.path.name, extracted.sha256, extracted.kind, tokens, mode, extracted.size
    )


def _attach(grounding: Grounding, files: list[Extracted], question: str, room: int) -> int:
    """Put ``files`` into ``grounding``; the tokens used."""
    sizes = [estimate_tokens(f.text) for f in files]
    if sum(sizes) + 12 * len(files) <= room:
        for extracted, tokens in zip(files, sizes, strict=True):
            grounding.attachments.append(_attachment(extracted, tokens, "whole"))
            grounding.sources.append(
                Source(
                    len(grounding.sources) + 1,
                    extracted.path.name,
                    extracted.text,
                    whole=True,
                    path=str(extracted.path.absolute()),
                )
            )
        return sum(sizes) + 12 * len(files)
    # Too long to give whole: the passages most related to the question, as many as fit.
    # Keyed by the full path: two attached README.md files stay two documents.
    scratch = DocumentIndex(":memory:")
    try:
        for extracted in files:
            scratch.record_indexed(
                ATTACHED,
                str(extracted.path.absolute()),
                extracted.kind,
                extracted.size,
                extracted.mtime_ns,
                extracted.sha256,
                passages(extracted.sections),
            )
        hits = by_proximity(scratch.search_words([ATTACHED], question, 200), question)
        if not hits:  # "summarise this": no words to search by, so from the beginning
            hits = sorted(scratch.hits(list(range(1, 201))).values(), key=lambda h: h.chunk_id)
        used = 0
        for hit in hits:
            tokens = estimate_tokens(hit.text) + 12
            if used + tokens > room:
                continue
            used += tokens
            grounding.sources.append(
                Source(
                    len(grounding.sources) + 1,
                    Path(hit.file).name,
                    hit.text,
                    hit.page,
                    hit.section,
                    path=hit.file,
                    ordinal=hit.ordinal,
                )
            )
    finally:
        scratch.close()
    for extracted, tokens in zip(files, sizes, strict=True):
        grounding.attachments.append(_attachment(extracted, tokens, "passages"))
    names = ", ".join(f.path.name for f in files)
    given = sum(1 for s in grounding.sources if not s.whole)
    if not given:
        grounding.notes.append(
            Phrase(
                "No part of {0} fits in what is left of the model's context; start a new "
                "chat, or choose a longer context in the model's settings.",
                names,
            )
        )
        return used
    grounding.notes.append(
        Phrase(
            "{0} is too long to give whole ({1:,} tokens; about {2:,} fit), so the {3} "
            "passages most related to your question were given instead.",
            names,
            sum(sizes),
            room,
            sum(1 for s in grounding.sources if not s.whole),
        )
    )
    return used
