"""Text deltas merged into at most one message per interval, so that a fast engine does not
wake the app once per token.

On a machine with few cores every message costs the engine's own threads time: the app's
reader wakes, parses and hands on each line while llama.cpp waits for a core.  A reply at
hundreds of tokens per second therefore goes out as one delta per ``INTERVAL`` (50 a
second, more than a screen shows), while a slower one still goes out token by token: a
delta is held only while the last one went out less than ``INTERVAL`` ago, so it waits at
most one token's time.  The first delta goes out at once (time to first token), and any
other event sends what is held first, so the order of events never changes.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from wire import protocol

INTERVAL = 0.02  # seconds


class DeltaBatcher:
    def __init__(
        self,
        send: Callable[[dict[str, Any]], None],
        interval: float | Callable[[], float] = INTERVAL,
    ) -> None:
        self._send = send
        # A number, or what to ask for it at each delta (the worker's: longer while several
        # replies stream at once, so that all of them together send as many messages as one).
        self._interval = interval if callable(interval) else (lambda: interval)
        self._held: dict[str, Any] | None = None
        self._sent_at = float("-inf")

    def __call__(self, event: dict[str, Any]) -> None:
        if event.get("type") != protocol.DELTA:
            self.flush()
            self._send(event)
            return
        held = self._held
        if held is not None and _mergeable(held, event):
            for key, value in event.items():
                if key not in ("type", "id"):
                    held[key] += value
        else:
            self.flush()
            self._held = dict(event)
        if time.monotonic() - self._sent_at >= self._interval():
            self.flush()

    def flush(self) -> None:
        if self._held is not None:
            held, self._held = self._held, None
            self._sent_at = time.monotonic()
            self._send(held)


def _mergeable(held: dict[str, Any], event: dict[str, Any]) -> bool:
    """Deltas of the same request with the same text fields (answer and reasoning apart)."""
    if held.keys() != event.keys() or held.get("id") != event.get("id"):
        return False
    return all(isinstance(value, str) for key, value in event.items() if key not in ("type", "id"))
