"""Room in the memory budget for a model about to start: which idle models end for it.

The engine host's placement rule, apart from its tables so that it reads as one decision:
idle models end least recently used first, a model in use never does, and a lease that is
not pinned is refused in words when only models in use are in its way (the window's pinned
model loads anyway: the person chose it).
"""

from __future__ import annotations

from collections.abc import Sequence

from app.engine.budget import MemoryBudget, Needs
from app.engine.hosted import Hosted
from wire.phrases import Phrase


class NoRoom(Exception):
    def __init__(self, sentence: Phrase) -> None:
        super().__init__(str(sentence))
        self.sentence = sentence


def to_end_for(
    hosted: Hosted, needs: Needs, loaded: Sequence[Hosted], budget: MemoryBudget
) -> list[Hosted]:
    """The idle models of ``loaded`` (those with a live worker, ``hosted`` not among them)
    to end so that ``hosted`` fits, least recently used first; NoRoom when only models in
    use are in the way of a lease that is not pinned."""
    others = list(loaded)
    ending: list[Hosted] = []
    while True:
        ram = sum(h.memory() for h in others) + needs.ram_bytes
        vram = sum(h.gpu_memory() for h in others) + needs.vram_bytes
        if not others or budget.fits(ram, vram, needs.vram_bytes):
            return ending
        idle = sorted((h for h in others if h.idle), key=lambda h: h.last_used)
        if not idle:
            if hosted.pinned:
                return ending  # the window's model loads anyway
            busy = ", ".join(h.label for h in others)
            raise NoRoom(
                Phrase(
                    "{0} does not fit in the memory budget ({1}) beside the models that "
                    "are generating or about to ({2}). Try again when they are done.",
                    hosted.label,
                    budget.words(),
                    busy,
                )
            )
        others.remove(idle[0])
        ending.append(idle[0])
