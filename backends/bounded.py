"""Running a piece of untrusted computation (a model's chat template) with a bound on its
time and on the memory it makes the worker grow.

Why this way: a chat template is a program that comes with the model file.  Jinja's sandbox
stops it from touching anything, but not from looping ``range(100000)`` inside
``range(100000)``, which either spins for hours or, with output, grows the worker by about
100 MB a second.  Neither Jinja nor Python offers a time limit, and a loop that prints
nothing calls no hook we could check in.  So a watchdog thread watches the clock and the
process's memory, and past either limit raises ``Exceeded`` in the rendering thread itself
(CPython's asynchronous exceptions, which land between two bytecodes, on every platform).
"""

from __future__ import annotations

import ctypes
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import psutil

POLL_S = 0.05


class Exceeded(BaseException):
    """The bounded code ran past its time or memory (``what`` says which).  A
    ``BaseException``, so that the ``except Exception`` of the code it interrupts (Jinja,
    a tokenizer) cannot swallow it: it fires once."""

    what = "time"


class _TooSlow(Exceeded):
    what = "time"


class _TooBig(Exceeded):
    what = "memory"


def _raise_in(thread_id: int, exception: type[BaseException] | None) -> None:
    ctypes.pythonapi.PyThreadState_SetAsyncExc(
        ctypes.c_ulong(thread_id), ctypes.py_object(exception) if exception else None
    )


@contextmanager
def bounded(seconds: float, extra_bytes: int) -> Iterator[None]:
    """Raise ``Exceeded`` in this thread if the block runs longer than ``seconds`` or the
    process grows by more than ``extra_bytes`` while it runs."""
    target = threading.get_ident()
    process = psutil.Process()
    ceiling = process.memory_info().rss + extra_bytes
    deadline = time.monotonic() + seconds
    lock = threading.Lock()
    state = {"armed": True, "fired": False}
    done = threading.Event()

    def watch() -> None:
        while not done.wait(POLL_S):
            too_slow = time.monotonic() > deadline
            too_big = not too_slow and process.memory_info().rss > ceiling
            if too_slow or too_big:
                with lock:
                    if state["armed"]:
                        state["fired"] = True
                        _raise_in(target, _TooSlow if too_slow else _TooBig)
                return

    watcher = threading.Thread(target=watch, name="bounded-watchdog", daemon=True)
    watcher.start()
    try:
        yield
    finally:
        with lock:
            state["armed"] = False
            if state["fired"]:
                _raise_in(target, None)  # not delivered yet: take it back
        done.set()
        watcher.join()
