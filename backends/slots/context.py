"""A llama.cpp context with one KV stream per slot, and the batch that each step fills.

Each slot is a sequence of its own (``seq_id``) with a whole context's cells (the KV cache
is not unified: a reply attends to its own stream only, so one reply alone is as fast as
without slots, and no reply can take another's room).  ``Slot.tokens`` is what its stream
holds, kept in step with llama.cpp: a decode appends, ``truncate`` removes from the
stream too.  A slot keeps its tokens after its reply ends, so the next request whose
prompt starts the same (a follow-up, a regenerate, an API client's long system prompt)
reads only what is new.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

# Tokens decoded at once at most (llama-cpp-python's own default batch).
BATCH = 512


class DecodeFailed(RuntimeError):
    """``llama_decode`` refused a batch (no room left in the context, or a backend error)."""


class ContextFailed(RuntimeError):
    """llama.cpp could not make the context (not enough memory for its cache, most often)."""


class Slot:
    """One sequence of the context: the tokens its stream holds."""

    def __init__(self, context: SlotContext, seq_id: int) -> None:
        self._context = context
        self.seq_id = seq_id
        self.tokens: list[int] = []
        # Pictures of a model that places them in two dimensions (M-RoPE) fill more cells
        # than they take positions: (index after the picture, cells less positions).
        self.gaps: list[tuple[int, int]] = []
        self.last_used = 0.0  # time.monotonic() when its last reply ended
        self.busy = False

    def position(self, length: int) -> int:
        """The sequence position after the first ``length`` cells of the stream."""
        return length - sum(gap for end, gap in self.gaps if end <= length)

    def common_prefix(self, prompt: Sequence[int]) -> int:
        """How many of ``prompt``'s first tokens this slot holds (at least one prompt token
        is always left to decode, so there are logits to sample from)."""
        limit = min(len(self.tokens), len(prompt) - 1)
        kept = 0
        tokens = self.tokens
        while kept < limit and tokens[kept] == prompt[kept]:
            kept += 1
        # Never part of a picture (its positions hold one negative placeholder): the
        # picture is read whole again.
        while 0 < kept < len(prompt) and prompt[kept] < 0 and prompt[kept - 1] == prompt[kept]:
            kept -= 1
        return kept

    def holds_conversation(self, prompt: Sequence[int], kept: int) -> bool:
        """The slot holds ``prompt``'s conversation (``kept``: their common start): most
        of what it holds starts the prompt (a follow-up, an edit), or all of the prompt is
        there (a regenerate: the slot holds the prompt and the reply being replaced).  Not
        when they share only a start, such as a system prompt."""
        return kept > 0 and (kept * 2 >= len(self.tokens) or kept >= len(prompt) - 1)

    def reuse_prefix(self, prompt: Sequence[int]) -> int:
        """Keep the longest cached prefix of ``prompt``; returns how many tokens were kept
        (0 when the memory could not keep a part: a recurrent model's state)."""
        self.truncate(self.common_prefix(prompt))
        return len(self.tokens)

    def truncate(self, length: int) -> None:
        if length < len(self.tokens):
            self._context.cut(self, length)

    def clear(self) -> None:
        self._context.cut(self, 0)


def free_slot(slots: Sequence[Slot], prompt: Sequence[int]) -> Slot | None:
    """The free slot for ``prompt``, so that a conversation finds its own slot again:

    * one whose tokens are mostly the start of ``prompt`` (the same conversation going
      on, a regenerate), the one holding most of it;
    * else an empty one;
    * else the one used least recently (its conversation is the least likely to come
      back; the engine keeps its state in the prompt cache first).

    A slot that shares only a start (a template's opening, a system prompt) is not taken
    while an empty one is there: its conversation may come back.  Between two empty slots,
    or two used ones, the one that keeps the busy slots in fewest runs of consecutive
    numbers goes first: each run is a pass over the weights every step (``_lay_out``)."""
    free = [slot for slot in slots if not slot.busy]
    if not free:
        return None
    busy = {slot.seq_id for slot in slots if slot.busy}

    def worth(slot: Slot) -> tuple[int, int, bool, int, float]:
        kept = slot.common_prefix(prompt)
        going_on = slot.holds_conversation(prompt, kept)
        runs = _runs(busy | {slot.seq_id})
        return (going_on, kept if going_on else 0, not slot.tokens, -runs, -slot.last_used)

    return max(free, key=worth)


def _runs(numbers: set[int]) -> int:
    """How many runs of consecutive numbers ``numbers`` has ({0, 2, 3}: two)."""
    return sum(1 for n in numbers if n - 1 not in numbers)


class Rows:
    """A slot's tokens added to the step's batch; ``first`` is their first row once the
    batch is laid out (``SlotContext.decode``)."""

    __slots__ = ("_first", "all_logits", "slot", "start", "tokens")

    def __init__(self, slot: Slot, tokens: Sequence[int], start: int, all_logits: bool) -> None:
        self.slot, self.tokens, self.start, self.all_logits = slot, tokens, start, all_logits
        self._first = -1

    @property
    def first(self) -> int:
        # -1 would be a row to llama.cpp (the last one): a read before the layout fails.
        if self._first < 0:
            raise DecodeFailed("a row was read before the batch was laid out")
        return self._first

    @first.setter
    def first(self, row: int) -> None:
        self._first = row


class SlotContext:
    """The context, its slots and the batch being filled; used from one thread."""

    def __init__(
        self, lib: Any, model: Any, base_params: Any, n_ctx: int, slots: int, threads: int
    ) -> None:
        self._lib = lib
        params = type(base_params).from_buffer_copy(base_params)
        params.n_ctx = n_ctx * slots
        params.n_batch = params.n_ubatch = BATCH
        params.n_seq_max = slots
        params.kv_unified = False
        if threads > 0:
            params.n_threads = params.n_threads_batch = threads
        self.ctx = lib.llama_init_from_model(model, params)
        if not self.ctx:
            raise ContextFailed(f"llama.cpp could not make a context of {slots} × {n_ctx} tokens")
        self._memory = lib.llama_get_memory(self.ctx)
        self.n_ctx = int(lib.llama_n_ctx_seq(self.ctx))  # each slot's
        self.capacity = int(lib.llama_n_batch(self.ctx))
        self._batch = lib.llama_batch_init(self.capacity, 0, 1)
        self.slots = [Slot(self, seq) for seq in range(slots)]
        self._added: list[Rows] = []
        self.count = 0

    # -- one step's batch ------------------------------------------------------------------
    @property
    def room(self) -> int:
        return self.capacity - self.count

    def add(self, slot: Slot, tokens: Sequence[int], all_logits: bool = False) -> Rows:
        """Put ``tokens`` after what ``slot`` holds (and what was added for it already);
        logits for the last (or for each, to check a draft).  Returns where they will sit
        in the batch: after ``decode``, ``Rows.first`` is the row of the first, for
        ``llama_sampler_sample`` (its logits exist only when it is the only token or with
        ``all_logits``; the last one's row is the first plus the count - 1)."""
        count = len(tokens)
        if not 0 < count <= self.room:
            raise DecodeFailed(f"a batch of {self.count + count} tokens (1 to {self.capacity})")
        start = slot.position(
            len(slot.tokens) + sum(len(r.tokens) for r in self._added if r.slot is slot)
        )
        rows = Rows(slot, tokens, start, all_logits)
        self.count += count
        self._added.append(rows)
        return rows

    def drop_batch(self) -> None:
        """Forget what was added and not decoded (a step that failed half-way): the next
        step starts from what the slots hold."""
        self._added, self.count = [], 0

    def _lay_out(self, added: list[Rows]) -> None:
        """Write the batch in increasing sequence order (a slot's own parts in the order
        they were added).  With one KV stream per slot, llama.cpp splits a batch into
        passes over the weights, each of consecutive sequence numbers in the order the
        batch names them and as many tokens of each (what is left of a longer part, such
        as a prompt slice, takes passes of its own): four replies of one token each, added
        as slots 1, 0, 2, 3, took two passes a step (measured: a step 1.4 times as long);
        in order they take one."""
        batch = self._batch
        token, pos, n_seq, seq, logits = (
            batch.token,
            batch.pos,
            batch.n_seq_id,
            batch.seq_id,
            batch.logits,
        )
        index = 0
        for rows in sorted(added, key=lambda r: r.slot.seq_id):  # stable: parts in order
            rows.first = index
            seq_id, start, all_logits = rows.slot.seq_id, rows.start, rows.all_logits
            for offset, value in enumerate(rows.tokens):
                token[index] = value
                pos[index] = start + offset
                n_seq[index] = 1
                seq[index][0] = seq_id
                logits[index] = all_logits
                index += 1
            logits[index - 1] = True
        batch.n_tokens = index

    def decode(self) -> None:
        """Evaluate the batch; on failure whatever part was evaluated is dropped, so every
        slot's stream matches its ``tokens`` again."""
        added = self._added
        self._added, self.count = [], 0
        if not added:
            return
        self._lay_out(added)
        code = self._lib.llama_decode(self.ctx, self._batch)
        if code != 0:
            for slot in {id(r.slot): r.slot for r in added}.values():
                self.cut(slot, len(slot.tokens))
            raise DecodeFailed(f"llama_decode returned {code}")
        for rows in added:
            rows.slot.tokens.extend(rows.tokens)

    def synchronize(self) -> None:
        """Wait for the work of the last decode (a GPU's decode returns before it is done)."""
        self._lib.llama_synchronize(self.ctx)

    # -- the streams ---------------------------------------------------------------------
    def cut(self, slot: Slot, length: int) -> None:
        """Drop ``slot``'s positions from ``length`` on; a memory that cannot (a recurrent
        model's state) is cleared whole, and the next prompt is read from its start."""
        if not self._lib.llama_memory_seq_rm(self._memory, slot.seq_id, slot.position(length), -1):
            self._lib.llama_memory_seq_rm(self._memory, slot.seq_id, -1, -1)
            slot.tokens.clear()
            slot.gaps.clear()
        else:
            del slot.tokens[length:]
            slot.gaps = [(end, gap) for end, gap in slot.gaps if end <= length]

    def free_slot(self, prompt: Sequence[int]) -> Slot | None:
        return free_slot(self.slots, prompt)

    def release(self, slot: Slot) -> None:
        slot.busy = False
        slot.last_used = time.monotonic()

    def set_threads(self, threads: int) -> None:
        self._lib.llama_set_n_threads(self.ctx, threads, threads)

    def close(self) -> None:
        if self._batch is not None:
            self._lib.llama_batch_free(self._batch)
            self._batch = None
        if self.ctx:
            self._lib.llama_free(self.ctx)
            self.ctx = None
