"""A child process of Hearth with its own children: its memory, CPU time and its end.

A worker or document reader started from a Windows virtual environment is a launcher
(``.venv\\Scripts\\python.exe``) whose child is the real interpreter: watching the launcher
alone would show a few MB for a model process and never stop a reader that grows past its
cap.  On Linux and macOS, and in the frozen app everywhere, the child has no children of
its own and the sum is its own memory.
"""

from __future__ import annotations

import contextlib
import subprocess
import time
from typing import Any

import psutil


def kill_tree(process: subprocess.Popen[Any]) -> None:
    """End ``process`` and every process under it at once, as a crash would.

    * Linux and macOS: SIGKILL to each.
    * Windows: TerminateProcess on each.

    Hearth's workers and readers start no processes of their own, but a library inside
    them may (a tokenizer's helpers, a compiler), and those must not outlive the model
    they served.  (A Windows virtual environment's launcher needs no help: it holds its
    interpreter in a job that ends with it.)  The children are listed first, since once
    the parent has gone they belong to nobody; the parent is ended first, so its exit
    code is always its own kill's.
    """
    if process.poll() is not None:
        return
    try:
        children = psutil.Process(process.pid).children(recursive=True)
    except (psutil.Error, OSError):
        children = []
    with contextlib.suppress(OSError):  # it ended in between
        process.kill()
    for each in children:
        try:
            each.kill()
        except (psutil.Error, OSError):
            continue


def is_running(pid: int) -> bool:
    """Whether the process ``pid`` still runs (one that ended and waits to be reaped does
    not): its parent may not have heard of its end yet."""
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


def tree_cpu_seconds(pid: int) -> float:
    """CPU time (user and system) of ``pid`` and every process under it (0 when ``pid``
    is gone): a Windows venv launcher uses none, the interpreter it starts does the work."""
    try:
        process = psutil.Process(pid)
        processes = [process, *process.children(recursive=True)]
    except (psutil.Error, OSError):
        return 0.0
    total = 0.0
    for each in processes:
        try:
            times = each.cpu_times()
            total += float(times.user + times.system)
        except (psutil.Error, OSError):
            continue
    return total


def tree_rss(pid: int) -> int:
    """Resident memory in bytes of ``pid`` and every process under it (0 when ``pid`` is
    gone); a child that ends while it is counted is left out."""
    try:
        process = psutil.Process(pid)
        total = int(process.memory_info().rss)
        children = process.children(recursive=True)
    except (psutil.Error, OSError):
        return 0
    for child in children:
        try:
            total += int(child.memory_info().rss)
        except (psutil.Error, OSError):
            continue
    return total


class TreeMemory:
    """``tree_rss`` for a process watched many times a second (the document reader): its
    children are listed again at most every ``refresh_s`` (listing them reads every
    process of the machine), its own memory and theirs read at each call."""

    def __init__(self, pid: int, refresh_s: float = 1.0) -> None:
        self.pid, self.refresh_s = pid, refresh_s
        self._children: list[psutil.Process] = []
        self._listed_at = float("-inf")

    def rss(self) -> int:
        try:
            process = psutil.Process(self.pid)
            total = int(process.memory_info().rss)
            if time.monotonic() - self._listed_at >= self.refresh_s:
                self._children = process.children(recursive=True)
                self._listed_at = time.monotonic()
        except (psutil.Error, OSError):
            return 0
        for child in self._children:
            try:
                total += int(child.memory_info().rss)
            except (psutil.Error, OSError):
                continue
        return total
