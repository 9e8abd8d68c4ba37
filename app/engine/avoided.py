"""Runtimes that could not run a model here: the engine host's memory of them, so that a
request whose runtime is chosen automatically skips them, whichever lease sends it (the
window's, the API's, the documents').

An illegal instruction is the build's and this processor's: the runtime is avoided for the
model file whatever the settings.  A load that failed (a GPU out of memory, say) may be the
settings': it is avoided for those settings only (context, GPU layers…).  A worker that
already runs a runtime that was not avoided keeps serving (``wire.model_spec.serves``).
"""

from __future__ import annotations

import threading
from dataclasses import replace

from wire.model_spec import ModelSpec


class AvoidedRuntimes:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._by_model: dict[str, frozenset[str]] = {}
        self._by_spec: dict[ModelSpec, frozenset[str]] = {}

    def add(self, spec: ModelSpec, runtime: str, whole_model: bool = False) -> ModelSpec:
        """``runtime`` failed ``spec``'s model; returns the spec requests now get."""
        with self._lock:
            if whole_model:
                avoided = self._by_model.get(spec.path, frozenset())
                self._by_model[spec.path] = avoided | {runtime}
            else:
                key = spec.base
                self._by_spec[key] = self._by_spec.get(key, frozenset()) | {runtime}
        return self.apply(spec)

    def apply(self, spec: ModelSpec) -> ModelSpec:
        """``spec`` skipping the runtimes that failed it (a forced one is kept: the user
        chose it, and its failure is the answer)."""
        if spec.runtime:
            return spec
        with self._lock:
            avoided = self._by_model.get(spec.path, frozenset()) | self._by_spec.get(
                spec.base, frozenset()
            )
        if not avoided or avoided.issubset(spec.skip_runtimes):
            return spec
        skipped = tuple(sorted(avoided.union(spec.skip_runtimes)))
        return replace(spec, skip_runtimes=skipped)
