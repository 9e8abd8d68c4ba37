"""Vectors from an embedding model running in a worker process (llama.cpp's embedding
mode, ``backends.llama_embed``), for the document index and for questions."""

from __future__ import annotations

from collections.abc import Sequence

from app.engine_client import EngineClient
from app.errors import HearthError
from wire import protocol
from wire.model_spec import ModelSpec
from wire.phrases import Phrase, from_wire

WAIT_S = 600.0


class WorkerEmbedder:
    """An ``Embedder`` over an engine client; vectors are L2-normalised (a dot product is
    the cosine).  ``name`` tells vectors of different models apart in the index."""

    def __init__(self, client: EngineClient, spec: ModelSpec, name: str) -> None:
        self.client = client
        self.spec = spec
        self._name = name

    @property
    def name(self) -> str:
        return self._name

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        job = self.client.embed(self.spec, list(texts))
        result = job.wait(WAIT_S)
        if result is None:
            job.cancel()
            raise HearthError(
                Phrase("The embedding model did not answer within {0} s.", int(WAIT_S))
            )
        if result.get("type") == protocol.ERROR:
            raise HearthError(Phrase("The embedding model failed: {0}", from_wire(result)))
        return [list(map(float, vector)) for vector in result["embeddings"]]
