"""How the engine host and the worker treat an engine, whatever its name.

Both processes need these answers (the host shares the cores and watches workers; the
worker merges a reply's deltas), so they live in ``wire``; the app's engine catalogue
(``app.engines.Engine.traits``) hands them on.  A new engine adds its row here and in the
catalogue, and nothing else in the host or the worker names it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from wire.model_spec import LLAMA_CPP, REMOTE, SYNTHETIC, TRANSFORMERS


@dataclass(frozen=True)
class EngineTraits:
    # Its threads compute on this computer's cores, so it holds a share of them while it
    # answers (``app.engine.cores``); a request carries its share's thread count.
    uses_cores: bool
    # Its model's weights load into the worker: the memory estimate counts them, and the
    # host stops a worker that grows far past them or stalls (not a server's: its own
    # timeouts govern).
    loads_weights: bool
    # Its text arrives at the pace it is computed here: the worker merges deltas a few
    # milliseconds apart (a server's arrive as it sends them: its stalls must not hold
    # back text already there).
    merge_deltas: bool
    # It builds grammars itself (llama.cpp's sampler), which can spin without writing a
    # token: silence on a request with a grammar is a stall even while it uses CPU.
    own_grammar: bool = False


TRAITS: Final[dict[str, EngineTraits]] = {
    LLAMA_CPP: EngineTraits(
        uses_cores=True, loads_weights=True, merge_deltas=True, own_grammar=True
    ),
    TRANSFORMERS: EngineTraits(uses_cores=True, loads_weights=True, merge_deltas=True),
    REMOTE: EngineTraits(uses_cores=False, loads_weights=False, merge_deltas=False),
    SYNTHETIC: EngineTraits(uses_cores=False, loads_weights=False, merge_deltas=True),
}
UNKNOWN: Final = EngineTraits(uses_cores=False, loads_weights=False, merge_deltas=True)


def traits_of(engine: str) -> EngineTraits:
    return TRAITS.get(engine, UNKNOWN)
