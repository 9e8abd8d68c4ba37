"""The KV state of conversations that left their slot, kept in RAM up to a budget.

A slot holds one conversation's tokens; when another request takes the slot, what it
held would be lost, and switching back to that conversation (or a regenerate after
another chat ran, or an API client resending a long document) would read the whole
prompt again.  So before a slot's tokens are dropped, its sequence's state
(``llama_state_seq_get_data``: the keys and values of its cells) is copied here with its
tokens; a request whose prompt starts with more of an entry's tokens than any slot holds
gets the entry copied back into its slot (``llama_state_seq_set_data``) and reads only
the rest.  Entries leave RAM least recently used first, to stay within the budget: to
the shelf on disk where there is one (``backends.slots.disk_cache``), which also gets
every slot's state when the model is unloaded.
"""

from __future__ import annotations

import ctypes
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from backends.slots.context import Slot

# A slot with fewer tokens than this is not worth a copy (a short chat reads it in a blink).
MIN_TOKENS = 64
# The largest state that goes straight to the shelf when RAM's budget cannot hold it.
SHELF_ENTRY = 4 << 30


@dataclass(frozen=True)
class Entry:
    tokens: tuple[int, ...]
    state: bytes


def common_prefix(a: Sequence[int], b: Sequence[int]) -> int:
    limit = min(len(a), len(b))
    kept = 0
    while kept < limit and a[kept] == b[kept]:
        kept += 1
    return kept


class Shelf(Protocol):
    """Where entries go when RAM is full (``backends.slots.disk_cache.DiskShelf``)."""

    def put(self, entry: Entry) -> None: ...

    def best(self, prompt: Sequence[int]) -> tuple[tuple[int, ...] | None, int]: ...

    def take(self, tokens: tuple[int, ...]) -> Entry | None: ...


class PromptCache:
    def __init__(self, lib: Any, ctx: Any, budget_bytes: int, shelf: Shelf | None = None) -> None:
        self._lib, self._ctx = lib, ctx
        self.budget = max(0, budget_bytes)
        self._entries: OrderedDict[tuple[int, ...], Entry] = OrderedDict()
        self.size = 0  # bytes held
        self.shelf = shelf

    def __len__(self) -> int:
        return len(self._entries)

    def keep(self, slot: Slot) -> None:
        """Copy what ``slot`` holds, before it is dropped (not a short one); entries the
        budget cannot hold go to the shelf, oldest first."""
        entry = self._copy(slot)
        if entry is None:
            return
        tokens = entry.tokens
        # An entry whose tokens start this one says nothing more than it.
        for key in [k for k in self._entries if common_prefix(k, tokens) == len(k)]:
            self._drop(key)
        self._entries[tokens] = entry
        self.size += len(entry.state)
        while self.size > self.budget and self._entries:
            oldest = self._drop(next(iter(self._entries)))
            if oldest is not None and self.shelf is not None:
                self.shelf.put(oldest)

    def shelve(self, slots: Sequence[Slot]) -> None:
        """Put what the slots and RAM hold on the shelf (the model is being unloaded)."""
        if self.shelf is None:
            return
        for slot in slots:
            entry = self._copy(slot)
            if entry is not None:
                self.shelf.put(entry)
        for entry in list(self._entries.values()):
            self.shelf.put(entry)

    def _copy(self, slot: Slot) -> Entry | None:
        tokens = tuple(slot.tokens)
        if len(tokens) < MIN_TOKENS or tokens in self._entries or slot.gaps:
            return None  # (a picture placed in two dimensions: its positions are not kept)
        lib = self._lib
        size = int(lib.llama_state_seq_get_size(self._ctx, slot.seq_id))
        if not 0 < size <= max(self.budget, SHELF_ENTRY if self.shelf else 0):
            return None
        buffer = (ctypes.c_uint8 * size)()
        written = int(lib.llama_state_seq_get_data(self._ctx, buffer, size, slot.seq_id))
        if written <= 0:
            return None
        return Entry(tokens, bytes(buffer)[:written])

    def best(self, prompt: Sequence[int]) -> tuple[tuple[int, ...] | None, int]:
        """The entry (its tokens) holding the longest start of ``prompt`` (at least one
        prompt token is left to read), in RAM or on the shelf, and how many tokens of it."""
        found, most = None, 0
        for tokens in self._entries:
            kept = min(common_prefix(tokens, prompt), len(prompt) - 1)
            if kept > most:
                found, most = tokens, kept
        if self.shelf is not None:
            shelved, kept = self.shelf.best(prompt)
            if kept > most:
                found, most = shelved, kept
        return found, most

    def restore(self, slot: Slot, tokens: tuple[int, ...]) -> bool:
        """Copy the entry of ``tokens`` into ``slot`` (whatever it held is dropped);
        False when it is not there after all (a damaged file) or llama.cpp refuses it
        (the slot is then empty).  It leaves the cache: the slot holds it."""
        entry = self._drop(tokens)
        if entry is None and self.shelf is not None:
            entry = self.shelf.take(tokens)
        if entry is None:
            return False
        slot.clear()
        state = (ctypes.c_uint8 * len(entry.state)).from_buffer_copy(entry.state)
        read = int(
            self._lib.llama_state_seq_set_data(self._ctx, state, len(entry.state), slot.seq_id)
        )
        if read <= 0:
            slot.clear()
            return False
        slot.tokens[:] = entry.tokens
        return True

    def _drop(self, key: tuple[int, ...]) -> Entry | None:
        entry = self._entries.pop(key, None)
        if entry is not None:
            self.size -= len(entry.state)
        return entry
