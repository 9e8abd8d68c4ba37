"""The documents as every front end opens them: the collections and their index, with the
embedding model of the settings (``documents.embedding_model``) leased from the process's
engine host when a passage or question needs vectors."""

from __future__ import annotations

import sys
import threading
from collections.abc import Sequence

from app.core import Core
from app.docs.embedding import WorkerEmbedder
from app.docs.library import Documents
from app.engines import embeds
from app.errors import HearthError
from wire.phrases import Phrase


class SettingEmbedder:
    """The embedding model of the setting ``documents.embedding_model``, leased from the
    engine host on the first passage or question to embed (so nothing starts when none is
    chosen, or before it is needed); a changed setting takes effect at once."""

    def __init__(self, core: Core) -> None:
        self.core = core
        self._lock = threading.Lock()
        self._embedder: WorkerEmbedder | None = None

    @property
    def name(self) -> str:
        return str(self.core.settings.get("documents.embedding_model") or "").strip()

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        with self._lock:
            name = self.name
            if self._embedder is None or self._embedder.name != name:
                entry = self.core.find_model(name)
                if not embeds(entry.format):
                    raise HearthError(
                        Phrase("The embedding model must be a GGUF model; {0} is not.", name)
                    )
                if self._embedder is not None:
                    self.core.engines.unload(self._embedder.spec)
                spec = self.core.model_spec(entry)
                self._embedder = WorkerEmbedder(self.core.engines, spec, name)
            embedder = self._embedder
        return embedder.embed(texts)

    def close(self) -> None:
        """The embedding model leaves the host (once idle: a batch may still be running)."""
        with self._lock:
            if self._embedder is not None:
                self.core.engines.unload(self._embedder.spec)
            self._embedder = None


def open_documents(core: Core, quiet: bool = False) -> Documents:
    """The documents, with the embedding model of the settings (started when needed)."""
    documents = Documents(core.paths.data_dir, core.paths.logs_dir)
    embedder = SettingEmbedder(core)
    documents.embedder = embedder
    documents.on_close(embedder.close)
    if not quiet:
        for problem in documents.problems:
            # A command indexes nothing by itself: it names the command that does.
            said = problem
            if problem is documents.index.problem and documents.index.set_aside:
                said = _index_again(documents)
            print(f"hearth: {said}", file=sys.stderr)
    return documents


def _index_again(documents: Documents) -> str:
    """What a command says of a damaged index set aside: the window indexes the
    collections again by itself, a command does not, so it names the command that does."""
    names = documents.collections.names()
    return Phrase(
        "The document index was damaged and has been set aside as {0}; searches find "
        "nothing until the collections are indexed again: {1}",
        documents.index.set_aside,
        " ; ".join(f"hearth docs update {name}" for name in names)
        or Phrase("there are no collections to index"),
    )
