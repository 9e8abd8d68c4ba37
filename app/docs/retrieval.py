"""Finding the passages that answer a question: words and meaning, fused.

BM25 over the full-text index always runs (offline, no model, any language).  When an
embedding model has made vectors for the collections' passages, the question is embedded
too and the passages are also ranked by cosine similarity; the two rankings are merged by
reciprocal rank fusion (each list gives a passage 1 / (60 + its rank)), which needs no
tuning between scores of different kinds.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from app.docs.index import DocumentIndex, Hit
from app.docs.indexer import Embedder
from app.docs.terms import proximity, query_terms

if TYPE_CHECKING:
    import numpy as np

RRF_K = 60
CANDIDATES = 50


class Retriever:
    def __init__(self, index: DocumentIndex, embedder: Embedder | None = None) -> None:
        self.index = index
        self.embedder = embedder
        self._lock = threading.Lock()
        self._cache: tuple[object, Any, Any] | None = None

    def search(self, collections: Sequence[str], question: str, k: int = 5) -> list[Hit]:
        by_words = by_proximity(
            self.index.search_words(collections, question, CANDIDATES), question
        )
        by_meaning = self._by_meaning(collections, question)
        if not by_meaning:
            return by_words[:k]
        return fuse([by_words, by_meaning], self.index, k)

    @property
    def hybrid(self) -> bool:
        return self.embedder is not None

    def _by_meaning(self, collections: Sequence[str], question: str) -> list[Hit]:
        if self.embedder is None or not self.embedder.name or not question.strip():
            return []
        import numpy as np  # only with vectors: numpy costs the window's start otherwise

        ids, matrix = self._matrix(collections, self.embedder.name)
        if not len(ids):
            return []
        query = np.asarray(self.embedder.embed([question])[0], dtype=np.float32)
        if query.shape[0] != matrix.shape[1]:
            return []
        scores = matrix @ query
        top = np.argsort(-scores)[:CANDIDATES]
        hits = self.index.hits([int(ids[i]) for i in top])
        return [
            replace(hits[int(ids[i])], score=float(scores[i])) for i in top if int(ids[i]) in hits
        ]

    def _matrix(self, collections: Sequence[str], model: str) -> tuple[np.ndarray, np.ndarray]:
        """The collections' vectors as one matrix, kept until vectors change."""
        import numpy as np

        key = (tuple(sorted(collections)), model, self.index.vector_state(model))
        with self._lock:
            if self._cache is not None and self._cache[0] == key:
                return self._cache[1], self._cache[2]
        rows = self.index.vectors(collections, model)
        if not rows:
            return np.zeros(0, dtype=np.int64), np.zeros((0, 0), dtype=np.float32)
        ids = np.fromiter((chunk_id for chunk_id, _ in rows), dtype=np.int64, count=len(rows))
        width = len(rows[0][1]) // 4
        matrix = np.frombuffer(
            b"".join(blob if len(blob) == width * 4 else bytes(width * 4) for _, blob in rows),
            dtype=np.float32,
        ).reshape(len(rows), width)
        with self._lock:
            self._cache = (key, ids, matrix)
        return ids, matrix


def by_proximity(hits: list[Hit], question: str) -> list[Hit]:
    """BM25's best candidates ranked again with the closeness of the question's terms in
    each (``terms.proximity``): a passage where they stand together comes first."""
    terms = query_terms(question)
    scored = [replace(hit, score=hit.score * (1.0 + proximity(hit.text, terms))) for hit in hits]
    return sorted(scored, key=lambda hit: -hit.score)


def fuse(rankings: Sequence[Sequence[Hit]], index: DocumentIndex, k: int) -> list[Hit]:
    """Reciprocal rank fusion of several rankings of passages."""
    scores: dict[int, float] = {}
    first: dict[int, Hit] = {}
    for ranking in rankings:
        for rank, hit in enumerate(ranking):
            scores[hit.chunk_id] = scores.get(hit.chunk_id, 0.0) + 1.0 / (RRF_K + rank + 1)
            first.setdefault(hit.chunk_id, hit)
    best = sorted(scores, key=lambda chunk_id: -scores[chunk_id])[:k]
    return [replace(first[chunk_id], score=scores[chunk_id]) for chunk_id in best]
