"""The small interface every engine implements, and the registry that finds them.

An engine lives inside the worker process only.  It never talks to the pipe itself: the
worker hands it an ``emit`` callable for events and a ``JobControl`` that a separate
thread changes the moment a ``cancel`` (or ``threads``) control arrives, so engines only
need to ask it between tokens (``backends.job_control``).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any, Protocol

from backends.job_control import JobControl
from wire import protocol
from wire.model_spec import LLAMA_CPP, REMOTE, SYNTHETIC, TRANSFORMERS
from wire.phrases import Phrase

Emit = Callable[[dict[str, Any]], None]
Progress = Callable[[float, str], None]


class EngineError(Exception):
    """A failure with a kind from ``wire.protocol`` and a sentence for a person."""

    def __init__(self, kind: str, message: str, **details: Any) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.details = details  # more fields for the error event


class Engine(Protocol):
    """What the worker needs from an engine."""

    def load(self, spec: dict[str, Any], progress: Progress) -> dict[str, Any]:
        """Load the model in ``spec``; return facts for the ``loaded`` event."""

    def chat(self, request: dict[str, Any], control: JobControl, emit: Emit) -> str:
        """Stream a reply as ``delta``/``notice``/``stats`` events; return a finish reason."""

    def count_tokens(self, text: str) -> int:
        """How many tokens ``text`` takes with this model's tokenizer."""

    def close(self) -> None:
        """Free the model."""


# Engine name -> "module:factory".  Modules are imported only when chosen, so a worker for
# llama.cpp never imports torch and the other way round.
ENGINES: dict[str, str] = {
    LLAMA_CPP: "backends.llama_cpp_engine:LlamaCppEngine",
    TRANSFORMERS: "backends.transformers_engine:TransformersEngine",
    REMOTE: "backends.remote_engine:RemoteEngine",
    SYNTHETIC: "backends.synthetic_engine:SyntheticEngine",  # tests and benchmarks only
}


def create_engine(name: str) -> Engine:
    """Instantiate the engine called ``name``, importing its library only now."""
    target = ENGINES.get(name)
    if target is None:
        raise EngineError(protocol.ERR_BAD_REQUEST, Phrase("Unknown engine {0!r}.", name))
    module_name, _, factory_name = target.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise EngineError(
            protocol.ERR_LOAD_FAILED,
            Phrase("The {0} engine is not installed in this edition of Hearth ({1}).", name, exc),
        ) from exc
    factory: Callable[[], Engine] = getattr(module, factory_name)
    return factory()
