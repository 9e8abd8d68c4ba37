"""The CPU cores, shared among the workers that are computing.

Two models answering at once, each with a thread per core, slow each other down far more
than twice: llama.cpp's threads meet at a barrier after every step of a token, and a thread
that lost its core holds the others up.  So the engine host lends cores.  A worker that
computes (a reply, embeddings) holds a share, at most its model's own thread count, and
the shares of all workers together never pass the physical cores:

* alone, a worker gets all the cores its model may use;
* when another starts, the cores are split evenly (the earlier ones get what is left
  over).  A worker whose share shrinks is told at once (the ``threads`` control), and its
  cores count as taken until it says it uses fewer (its ``threads`` notice, sent between
  two tokens); only then does the newcomer start;
* with more workers computing than there are cores, newcomers wait in order for a share;
* when a worker is done, the others grow back at once.

A request waits for a share before it is sent; one sent to a worker that holds a share
carries that share (``threads`` in the request) and queues in the worker as before.  A
worker counts for the most it may use: a grown share at once, a shrunk one once it says
so.  Nothing is written to a worker while the shares are locked (what to tell and what to
send is done after), so two messages may reach a worker in another order than they were
decided: every share is numbered (``grant``), a worker follows the newest number it has
seen, and its notices name the number they apply, so that an old one is ignored.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

import psutil

Send = Callable[[int, int], None]  # sends one request with this many threads, this grant
Action = Callable[[], None]  # what to do once the shares are unlocked


class Holder(Protocol):
    """A worker, as the shares see it."""

    def tell_threads(self, threads: int, grant: int) -> None: ...


@dataclass
class Share:
    cap: int  # the most its model may use
    granted: int  # what it was told to use
    grant: int  # the number of that share
    applied: int  # what it said it uses (a shrink counts as taken until it says so)
    applied_grant: int  # the share that ``applied`` is known for
    jobs: set[int] = field(default_factory=set)  # its computing requests

    @property
    def taken(self) -> int:
        return max(self.granted, self.applied)


@dataclass
class _Waiting:
    holder: Holder
    cap: int
    job_id: int
    send: Send


def fair_split(cores: int, caps: list[int]) -> list[int]:
    """``cores`` dealt one at a time to whoever has fewest (the earlier first), each up to
    its cap: every one of at most ``cores`` takers gets at least one."""
    shares = [0] * len(caps)
    for _ in range(cores):
        open_ = [i for i, cap in enumerate(caps) if shares[i] < cap]
        if not open_:
            break
        shares[min(open_, key=lambda i: (shares[i], i))] += 1
    return shares


class CoreShares:
    def __init__(self, cores: int) -> None:
        self.cores = max(cores, 1)
        self._lock = threading.Lock()
        self._active: dict[Holder, Share] = {}
        self._waiting: list[_Waiting] = []
        self._grants = itertools.count(1)  # share numbers, increasing

    # -- requests ----------------------------------------------------------------------
    def run(self, holder: Holder, cap: int, job_id: int, send: Send) -> None:
        """Send a computing request now with the holder's share, or once it has one."""
        cap = min(cap, self.cores) if cap > 0 else self.cores
        with self._lock:
            share = self._active.get(holder)
            if share is not None:
                share.jobs.add(job_id)
                actions: list[Action] = [_send(send, share.granted, share.grant)]
            else:
                self._waiting.append(_Waiting(holder, cap, job_id, send))
                actions = self._rebalance()
        _do(actions)

    def withdraw(self, job_id: int) -> bool:
        """A request cancelled while it waited for cores: it is dropped (True), never sent,
        and the others' shares grow back if it had made them shrink."""
        with self._lock:
            waiting = next((w for w in self._waiting if w.job_id == job_id), None)
            if waiting is None:
                return False
            self._waiting.remove(waiting)
            actions = self._rebalance()
        _do(actions)
        return True

    def ended(self, holder: Holder, job_id: int) -> None:
        """A computing request ended; a holder with none left gives its share back."""
        with self._lock:
            share = self._active.get(holder)
            if share is None or job_id not in share.jobs:
                return
            share.jobs.discard(job_id)
            if share.jobs:
                return
            del self._active[holder]
            actions = self._rebalance()
        _do(actions)

    def applied(self, holder: Holder, threads: int, grant: int) -> None:
        """The holder says it now uses ``threads``, as share number ``grant`` said (its
        notice); a notice older than what the shares already count for is ignored."""
        with self._lock:
            share = self._active.get(holder)
            if share is None or grant < share.applied_grant:
                return
            share.applied, share.applied_grant = threads, grant
            actions = self._rebalance()
        _do(actions)

    def release(self, holder: Holder) -> list[int]:
        """A holder that is gone (its worker ended): its share back, and the ids of its
        requests that were still waiting (never sent)."""
        with self._lock:
            self._active.pop(holder, None)
            dropped = [w.job_id for w in self._waiting if w.holder is holder]
            self._waiting = [w for w in self._waiting if w.holder is not holder]
            actions = self._rebalance()
        _do(actions)
        return dropped

    # -- what they hold ----------------------------------------------------------------
    def taken(self) -> int:
        with self._lock:
            return sum(share.taken for share in self._active.values())

    def granted(self, holder: Holder) -> int:
        with self._lock:
            share = self._active.get(holder)
            return share.granted if share is not None else 0

    def waiting(self) -> int:
        with self._lock:
            return len(self._waiting)

    # -- the split (under the lock) -----------------------------------------------------
    def _rebalance(self) -> list[Action]:
        """Shrink, admit, then grow: what to tell and send once the lock is released."""
        newcomers: list[Holder] = []
        for waiting in self._waiting:
            if waiting.holder not in newcomers:
                newcomers.append(waiting.holder)
        takers = list(self._active)
        takers += newcomers[: max(self.cores - len(takers), 0)]
        caps = [self._cap(holder) for holder in takers]
        target = dict(zip(takers, fair_split(self.cores, caps), strict=True))
        actions: list[Action] = []
        for holder, share in self._active.items():
            if target[holder] < share.granted:
                share.granted, share.grant = target[holder], next(self._grants)
                actions.append(_tell(holder, share.granted, share.grant))
        free = self.cores - sum(share.taken for share in self._active.values())
        for holder in newcomers:
            if holder not in target or target[holder] > free:
                break  # in order: a later one never overtakes an earlier one
            threads, grant = target[holder], next(self._grants)
            mine = [w for w in self._waiting if w.holder is holder]
            self._waiting = [w for w in self._waiting if w.holder is not holder]
            jobs = {w.job_id for w in mine}
            self._active[holder] = Share(mine[0].cap, threads, grant, threads, grant, jobs)
            free -= threads
            actions += [_send(w.send, threads, grant) for w in mine]
        for holder, share in self._active.items():
            # Cores it still counts for (a shrink it has not applied yet) are its own
            # to grow back into; only the rest come out of the free ones.
            grown = min(target.get(holder, share.granted), share.taken + free)
            if grown > share.granted:
                free -= max(grown - share.taken, 0)
                share.granted, share.grant = grown, next(self._grants)
                # It may use them at once: counted at once (a notice of a smaller, older
                # share, still on its way, is ignored).
                share.applied, share.applied_grant = max(share.applied, grown), share.grant
                actions.append(_tell(holder, grown, share.grant))
        return actions

    def _cap(self, holder: Holder) -> int:
        share = self._active.get(holder)
        if share is not None:
            return share.cap
        return next(w.cap for w in self._waiting if w.holder is holder)


def _tell(holder: Holder, threads: int, grant: int) -> Action:
    return lambda: holder.tell_threads(threads, grant)


def _send(send: Send, threads: int, grant: int) -> Action:
    return lambda: send(threads, grant)


def _do(actions: list[Action]) -> None:
    for action in actions:
        action()


def physical_cores() -> int:
    """llama.cpp is fastest with one thread per physical core."""
    return psutil.cpu_count(logical=False) or psutil.cpu_count() or 1
