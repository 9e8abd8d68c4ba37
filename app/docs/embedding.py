"""Vectors from an embedding model running in a worker process (llama.cpp's embedding
mode, ``backends.llama_embed``), for the document index and for questions.

The model is leased from the engine host for each batch and stays loaded idle for
``KEEP_ALIVE_S`` after it (the next batch of an indexing run comes soon): its worker counts
in the host's memory budget like any other, and is ended first when another model needs the
room while it is idle."""

from __future__ import annotations

from collections.abc import Sequence

from app.engine.host import EngineHost
from app.errors import HearthError
from wire import protocol
from wire.model_spec import ModelSpec
from wire.phrases import Phrase, from_wire

WAIT_S = 600.0
KEEP_ALIVE_S = 300.0
PURPOSE = "documents"


class WorkerEmbedder:
    """An ``Embedder`` over the engine host; vectors are L2-normalised (a dot product is
    the cosine).  ``name`` tells vectors of different models apart in the index."""

    def __init__(self, host: EngineHost, spec: ModelSpec, name: str) -> None:
        self.host = host
        self.spec = spec
        self._name = name

    @property
    def name(self) -> str:
        return self._name

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        lease = self.host.lease(self.spec, purpose=PURPOSE, label=self._name)
        try:
            job = lease.embed(list(texts))
            result = job.wait(WAIT_S)
            if result is None:
                job.cancel()
        finally:
            lease.release(KEEP_ALIVE_S)
        if result is None:
            raise HearthError(
                Phrase("The embedding model did not answer within {0} s.", int(WAIT_S))
            )
        if result.get("type") == protocol.ERROR:
            raise HearthError(Phrase("The embedding model failed: {0}", from_wire(result)))
        return [list(map(float, vector)) for vector in result["embeddings"]]
