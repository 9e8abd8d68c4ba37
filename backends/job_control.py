"""What may change while an engine runs a request, and what it reports as it goes.

The worker's reader thread acts on controls at once, while the main thread is inside the
engine: Stop (``cancel``) and the CPU threads the engine host allows this worker now
(``threads``: the host shares the cores among the workers that are answering).  Engines
ask at safe points, between tokens and between slices of a long prompt
(``cancelled``, ``checkpoint``), so neither ever waits behind a reply.

Engines also report their token counts here (``tokens``), and the worker stamps the
latest on every delta it sends: a client knows what a reply cost so far even if the
worker dies before its ``stats`` event.
"""

from __future__ import annotations

import threading
from collections.abc import Callable


class JobControl:
    def __init__(self) -> None:
        self._cancel = threading.Event()
        # CPU threads asked for by the host (0: none asked), and the number of its share
        # that asked: one value, written by the reader thread and read between tokens.
        self._wanted: tuple[int, int] = (0, 0)
        self._applied = 0
        self._apply: Callable[[int, int], bool] | None = None
        self.prompt_tokens = 0
        self.generated_tokens = 0

    # -- Stop --------------------------------------------------------------------------
    def cancel(self) -> None:
        self._cancel.set()

    def cancelled(self) -> bool:
        return self._cancel.is_set()

    # -- one request -------------------------------------------------------------------
    def start(self, apply: Callable[[int, int], bool] | None) -> None:
        """A new request begins: not cancelled, no tokens yet, and the threads last asked
        for applied again at its first checkpoint through ``apply`` (given the threads and
        their share's number; it says False while there is no engine to apply them to)."""
        self._cancel.clear()
        self.prompt_tokens = self.generated_tokens = 0
        self._apply = apply
        self._applied = 0

    def want_threads(self, threads: int, grant: int | None = None) -> None:
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
        if wanted and wanted != self._applied and apply is not None and apply(wanted, grant):
            self._applied = wanted

    # -- what it costs -----------------------------------------------------------------
    def tokens(self, prompt: int, generated: int) -> None:
        """The reply's prompt and generated tokens so far."""
        self.prompt_tokens, self.generated_tokens = prompt, generated
