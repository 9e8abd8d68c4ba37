"""One reply as the scheduler runs it: its prompt, its own sampler chain and callbacks,
and where it stands (waiting for a slot, reading its prompt, generating, ended)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from backends.job_control import JobControl
from backends.llama_loop import LoopStats, NgramDrafter, SamplerChain
from backends.slots.context import Slot
from wire import protocol

PROMPT_STAGE = "Reading the prompt"
QUEUE_STAGE = "Waiting for a free slot"

# Given a sampled token and the batch row it was drawn from: None to go on, or the reply's
# finish reason (end of generation, a stop string, the token limit, Stop).
OnToken = Callable[[int, int], str | None]


@dataclass(frozen=True)
class Picture:
    """A picture in a prompt: the cells it fills (and the positions it takes, fewer for a
    model that places pictures in two dimensions), and what reads it into a slot's
    sequence (libmtmd: encoded, then decoded as embeddings) from a position, returning
    the position after it.  Its cells in ``Task.prompt`` hold one placeholder."""

    length: int  # the cells it fills (its placeholders in the prompt)
    read: Callable[[int, int], int]  # (seq_id, from position) -> position after
    positions: int = 0  # the positions it takes, when fewer than its cells (M-RoPE)


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
    ticket: int = 0  # its place in the queue (``Scheduler.reserve``; 0: taken on arrival)
    pictures: Mapping[int, Picture] = field(default_factory=dict)  # by where each starts
    picture_s: float = 0.0  # spent reading its pictures (encoding and decoding them)

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

    def text_until(self, position: int, end: int) -> int:
        """Where the prompt's text from ``position`` stops: the next picture, or ``end``."""
        later = [start for start in self.pictures if position <= start < end]
        return min(later, default=end)


def prompt_progress(done: int, total: int) -> dict[str, Any]:
    """How far reading a long prompt has come (after each of its slices)."""
    return {
        "type": protocol.PROGRESS,
        "stage": PROMPT_STAGE,
        "fraction": round(done / total, 3),
        protocol.PROMPT_TOKENS_READ: done,
        "prompt_tokens": total,
    }


def queue_progress(place: int) -> dict[str, Any]:
    """Every slot is busy: the request's place in the queue (1: next)."""
    return {
        "type": protocol.PROGRESS,
        "stage": QUEUE_STAGE,
        "fraction": 0.0,
        protocol.QUEUE_POSITION: place,
    }
