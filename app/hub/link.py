"""The network link that every download shares: one cap on connections at once, an
optional cap on the bytes a second, and the speed shown (a moving window).

A hub's CDN limits each connection, so a file comes faster over several at once; but
shards, a projector and a catalogue download running together must not open
connections without end, so they draw from one pool (``Link``).  Each file also keeps
its own allowance, lowered when the server says it is busy (``429``/``503``).

The two caps are read again as they are used (``limits``: the settings *Connections at
once* and *Download speed limit*): a change in Settings applies to the next file and to
the next connection a running file opens, and the speed limit at once, without a
restart of Hearth or of its downloads.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable

Limits = Callable[[], tuple[int, float]]  # (connections at once, bytes a second; 0: none)

SPEED_WINDOW_S = 5.0


class Link:
    """Connection slots and the optional bandwidth limit, for every download at once."""

    def __init__(
        self, connections: int = 1, bytes_per_s: float = 0.0, limits: Limits | None = None
    ) -> None:
        self._limits: Limits = limits or (lambda: (connections, bytes_per_s))
        self._in_use = 0
        self.peak = 0  # the most connections open at once (the bench and tests read it)
        self._cond = threading.Condition()
        self._allowance = 0.0  # bytes that may go now (a token bucket of one second)
        self._refilled = time.monotonic()

    @property
    def connections(self) -> int:
        """How many connections may be open at once, now."""
        return max(1, int(self._limits()[0]))

    @property
    def bytes_per_s(self) -> float:
        """The bandwidth limit now (0: none)."""
        return max(0.0, float(self._limits()[1]))

    def acquire(self, stop: threading.Event) -> bool:
        """A connection slot, waiting while all are in use; False when ``stop`` is set
        first (a pause or a cancel)."""
        with self._cond:
            while self._in_use >= self.connections:
                if stop.is_set():
                    return False
                self._cond.wait(0.2)
            if stop.is_set():
                return False
            self._in_use += 1
            self.peak = max(self.peak, self._in_use)
            return True

    def release(self) -> None:
        with self._cond:
            self._in_use = max(0, self._in_use - 1)
            self._cond.notify()

    @property
    def in_use(self) -> int:
        with self._cond:
            return self._in_use

    def throttle(self, size: int) -> None:
        """Wait until ``size`` more bytes fit the bandwidth limit (none: return at once)."""
        limit = self.bytes_per_s
        if not limit:
            return
        with self._cond:
            now = time.monotonic()
            self._allowance = min(limit, self._allowance + (now - self._refilled) * limit)
            self._refilled = now
            self._allowance -= size
            wait = -self._allowance / limit if self._allowance < 0 else 0.0
        if wait > 0:
            time.sleep(min(wait, 5.0))


class RateWindow:
    """The speed over the last few seconds, not since the start: what the link does now,
    so the time left follows a connection that slows or a limit that changes."""

    def __init__(self, window_s: float = SPEED_WINDOW_S) -> None:
        self.window_s = window_s
        self._samples: deque[tuple[float, int]] = deque()
        self._total = 0
        self._lock = threading.Lock()

    def add(self, size: int, now: float | None = None) -> None:
        with self._lock:
            now = time.monotonic() if now is None else now
            self._total += size
            self._samples.append((now, self._total))
            while len(self._samples) > 2 and now - self._samples[1][0] >= self.window_s:
                self._samples.popleft()

    def rate(self, now: float | None = None) -> float:
        """Bytes a second over the window (0 until two samples a moment apart)."""
        with self._lock:
            now = time.monotonic() if now is None else now
            if not self._samples:
                return 0.0
            first_time, first_total = self._samples[0]
            if now - self._samples[-1][0] > self.window_s:
                return 0.0  # nothing for a whole window: stalled
            span = now - first_time
            return (self._total - first_total) / span if span >= 0.2 else 0.0
