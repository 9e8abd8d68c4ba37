"""A request in flight: its events in order, how it ended, and client-side timings.

Events arrive on a worker's reader thread.  A job either hands them to a callback (the
window's relay, the API's) or keeps them for a caller that iterates ``events`` (the
command line, tests).  Its end (``final``) is the first terminal event; nothing after it
is delivered.
"""

from __future__ import annotations

import itertools
import logging
import queue
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol

from wire import protocol

log = logging.getLogger(__name__)

EventCallback = Callable[[dict[str, Any]], None]

# A request ends with its answer or an error; any request may also end ``done`` with the
# finish reason ``cancelled`` (a Stop before it ran, answered by the host or the worker).
TERMINAL_BY_KIND: dict[str, frozenset[str]] = {
    protocol.HELLO: frozenset({protocol.READY, protocol.ERROR}),
    protocol.LOAD: frozenset({protocol.LOADED, protocol.ERROR, protocol.DONE}),
    protocol.CHAT: frozenset({protocol.DONE, protocol.ERROR}),
}
RESULT_TERMINAL = frozenset({protocol.RESULT, protocol.ERROR, protocol.DONE})
# The requests that compute (and so take CPU threads from the host's share of the cores).
COMPUTE = frozenset({protocol.CHAT, protocol.EMBED})
# Job ids are unique in the process: a worker serves the jobs of every lease of its model.
_JOB_IDS = itertools.count(1)


def next_job_id() -> int:
    return next(_JOB_IDS)


class Destination(Protocol):
    """Where a job was sent (a worker process): Stop goes there."""

    dead: bool

    def control(self, message: dict[str, Any]) -> None: ...


@dataclass
class Job:
    """One request in flight."""

    id: int
    kind: str
    on_event: EventCallback | None = None
    events_queue: queue.Queue[dict[str, Any]] = field(default_factory=queue.Queue)
    final: dict[str, Any] | None = None
    cancel_requested: bool = False
    sent_at: float = field(default_factory=time.perf_counter)
    first_delta_at: float | None = None
    heard: bool = False  # the worker has answered something for this job
    resent: bool = False  # sent again after the worker it waited on died (only once)
    stats: dict[str, Any] = field(default_factory=dict)
    # What the reply has cost so far (from the deltas), for an end without stats.
    prompt_tokens: int = 0
    generated_tokens: int = 0
    worker: Destination | None = None  # where it was sent: Stop goes there
    canceller: Callable[[Job], None] | None = None  # the engine host's cancel
    # Run once it has ended, whoever ended it (the worker, a cancel, a fault): the engine
    # host gives back what the job held (its share of the cores).
    on_finish: list[Callable[[Job], None]] = field(default_factory=list)
    _finished: threading.Event = field(default_factory=threading.Event)
    # Held while an event is handed on (re-entrant: a listener may stop its own job).
    _delivering: threading.RLock = field(default_factory=threading.RLock, repr=False)

    @property
    def finished(self) -> bool:
        return self._finished.is_set()

    @property
    def terminal(self) -> frozenset[str]:
        return TERMINAL_BY_KIND.get(self.kind, RESULT_TERMINAL)

    def deliver(self, event: dict[str, Any]) -> None:
        """Hand one event on; after the first terminal one, nothing more.  Two threads may
        end a job at once (a Stop answered here while the worker answers it too): one
        lock keeps the events in order and lets exactly one end through."""
        with self._delivering:
            if self._finished.is_set():
                return
            terminal = self._hand_on(event)
            if terminal:
                self._finished.set()
        if terminal:
            for hook in self.on_finish:
                try:
                    hook(self)
                except Exception:  # the reader thread (or the caller) must go on
                    log.exception("cleaning up after request %s failed", self.id)

    def _hand_on(self, event: dict[str, Any]) -> bool:
        """Record and hand on one event (under the lock); True when it ends the job."""
        self.heard = True
        kind = event["type"]
        if kind == protocol.DELTA:
            if self.first_delta_at is None:
                self.first_delta_at = time.perf_counter()
            self.generated_tokens = int(event.get(protocol.GENERATED_TOKENS) or 0)
            self.prompt_tokens = int(event.get(protocol.PROMPT_TOKENS) or self.prompt_tokens)
        if kind == protocol.STATS:
            self.stats = dict(event)
            if self.first_delta_at is not None:
                self.stats["client_ttft_ms"] = round((self.first_delta_at - self.sent_at) * 1000, 2)
            event = {**event, **self.stats}
        terminal = kind in self.terminal
        if terminal:
            self.final = event
        if self.on_event is None:
            self.events_queue.put(event)  # only iterating callers read the queue
        else:
            try:
                self.on_event(event)
            except Exception:  # a listener's bug must not kill the reader thread
                log.exception("event listener failed for %s", kind)
        return terminal

    def events(self, timeout: float | None = None) -> Iterator[dict[str, Any]]:
        """Yield events until the terminal one (inclusive), for jobs without a callback.

        TimeoutError if no event comes within ``timeout`` seconds.
        """
        while True:
            try:
                event = self.events_queue.get(timeout=timeout)
            except queue.Empty:
                raise TimeoutError(f"no answer from the engine within {timeout} s") from None
            yield event
            if event["type"] in self.terminal:
                return

    def wait(self, timeout: float | None = None) -> dict[str, Any] | None:
        self._finished.wait(timeout)
        return self.final

    def cancel(self) -> None:
        if self.canceller is not None:
            self.canceller(self)


def cancelled_event(job: Job, **flags: Any) -> dict[str, Any]:
    return {
        "type": protocol.DONE,
        "id": job.id,
        "finish_reason": protocol.FINISH_CANCELLED,
        **flags,
    }
