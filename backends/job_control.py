"""What may change while an engine runs a request, and what it reports as it goes.

The worker's reader thread acts on controls at once, while the engine runs: Stop
(``cancel``, one request's) and the CPU threads the engine host allows this worker now
(``threads``, the worker's: the host shares the cores among the workers that are
answering).  Engines ask at safe points, between tokens and between slices of a long
prompt (``cancelled``, ``checkpoint``), so neither ever waits behind a reply.

A worker that answers several requests at once (a llama.cpp model with slots) gives each
its own ``JobControl``; they share one ``ThreadWish``, since the threads are the engine's.

Engines also report their token counts here (``tokens``), and the worker stamps the
latest on every delta it sends: a client knows what a reply cost so far even if the
worker dies before its ``stats`` event.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

Apply = Callable[[int, int], bool]


class ThreadWish:
    """The CPU threads asked for by the host, applied to the engine at safe points."""

    def __init__(self) -> None:
        # CPU threads asked for by the host (0: none asked), and the number of its share
        # that asked: one value, written by the reader thread and read between tokens.
        self._wanted: tuple[int, int] = (0, 0)
        self._applied = 0
        self._apply: Apply | None = None
        self._lock = threading.Lock()  # two requests' checkpoints at once apply it once

    def start(self, apply: Apply | None) -> None:
        """A request begins: the threads last asked for are applied again at its first
        checkpoint through ``apply`` (given the threads and their share's number; it says
        False while there is no engine to apply them to)."""
        self._apply = apply
        self._applied = 0

    def want(self, threads: int, grant: int | None = None) -> None:
        """From the reader thread, as a control or a request arrives: the engine is to use
        ``threads`` from its next safe point on.  The host numbers its shares (``grant``)
        and the newest wins, so a request that carried an older, larger share and came in
        after a shrink never brings it back; a count without a number wins as it comes."""
        latest = self._wanted[1]
        if threads <= 0 or (grant is not None and grant < latest):
            return
        self._wanted = (threads, latest if grant is None else grant)

    def checkpoint(self) -> None:
        """Between two tokens or two prompt slices: apply a new thread count, if any."""
        (wanted, grant), apply = self._wanted, self._apply
        if not wanted or wanted == self._applied or apply is None:
            return
        with self._lock:
            if wanted != self._applied and apply(wanted, grant):
                self._applied = wanted


class JobControl:
    def __init__(self, threads: ThreadWish | None = None) -> None:
        self._cancel = threading.Event()
        self.threads = threads if threads is not None else ThreadWish()
        self.prompt_tokens = 0
        self.generated_tokens = 0
        self.ticket = 0  # its place in an engine's queue, taken as it arrived (0: none)

    # -- Stop --------------------------------------------------------------------------
    def cancel(self) -> None:
        self._cancel.set()

    def cancelled(self) -> bool:
        return self._cancel.is_set()

    # -- one request -------------------------------------------------------------------
    def start(self, apply: Apply | None) -> None:
        """A new request begins: not cancelled, no tokens yet, the threads applied again
        (``ThreadWish.start``)."""
        self._cancel.clear()
        self.prompt_tokens = self.generated_tokens = 0
        self.threads.start(apply)

    def want_threads(self, threads: int, grant: int | None = None) -> None:
        self.threads.want(threads, grant)

    def checkpoint(self) -> None:
        """Between two tokens or two prompt slices: apply a new thread count, if any."""
        self.threads.checkpoint()

    # -- what it costs -----------------------------------------------------------------
    def tokens(self, prompt: int, generated: int) -> None:
        """The reply's prompt and generated tokens so far."""
        self.prompt_tokens, self.generated_tokens = prompt, generated
