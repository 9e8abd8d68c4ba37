"""One reply as the scheduler runs it: its prompt, its own sampler chain and callbacks,
and where it stands (waiting for a slot, reading its prompt, generating, ended)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from backends.job_control import JobControl
from backends.llama_loop import LoopStats, NgramDrafter, SamplerChain
from backends.slots.context import Slot

# Given a sampled token and the batch row it was drawn from: None to go on, or the reply's
# finish reason (end of generation, a stop string, the token limit, Stop).
OnToken = Callable[[int, int], str | None]


@dataclass(eq=False)
class Task:
    prompt: Sequence[int]
    sampler: SamplerChain
    on_token: OnToken
    control: JobControl
    drafter: NgramDrafter | None = None
    # Told how many prompt tokens are read, after each slice of a long prompt.
    on_prompt_read: Callable[[int], None] | None = None
    # Told its place in the queue (1: next) while every slot is busy.
    on_wait: Callable[[int], None] | None = None
    stats: LoopStats = field(default_factory=LoopStats)

    slot: Slot | None = None
    read: int = 0  # prompt tokens in the slot's stream
    pending: int | None = None  # sampled and handed on, to be decoded next step
    cached: int = 0  # prompt tokens found in the cache
    place: int = 0  # in the queue, as last told (0: not waiting)
    long_prompt: bool = False  # more than one slice to read: its progress is told
    finish: str | None = None
    failure: str = ""  # why a decode failed (the reply so far is kept)
    error: BaseException | None = None
    done: threading.Event = field(default_factory=threading.Event)

    @property
    def reading(self) -> bool:
        return self.pending is None
