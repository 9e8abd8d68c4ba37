"""Hearth's child processes: the one table of them (how each is started, in a source
install and in the frozen app), and what each does first (keep its stdout for the
protocol, cap its address space when its parent asks).

The frozen app has no ``python -m``: it runs itself with the child's flag, and the launcher
(``hearth.launcher``) finds the child by that flag in ``CHILDREN``.  Every spawner builds
its command with ``command``, so a new child is one row here.
"""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import IO

from wire import platforms


@dataclass(frozen=True)
class Child:
    """A kind of child process: ``module`` has the ``main`` it runs."""

    flag: str  # the frozen app's: ``Hearth --worker``
    module: str  # a source install's: ``python -m backends.worker``
    takes_arguments: bool = False  # main(argv) rather than main()

    def main(self) -> Callable[..., int]:
        entry: Callable[..., int] = importlib.import_module(self.module).main
        return entry


WORKER = Child("--worker", "backends.worker", takes_arguments=True)  # one model's engine
RUNTIME_PROBE = Child("--probe-runtime", "backends.runtime_probe")  # one llama.cpp build
CAPABILITIES = Child("--capabilities", "backends.capabilities")  # what the engines can do
EXTRACTION = Child("--extract-documents", "app.docs.extract_child")  # the document reader
# The PyTorch engine just installed, checked before it is used.
ENGINE_PROBE = Child("--probe-engine", "backends.engine_probe", takes_arguments=True)
CHILDREN = (WORKER, RUNTIME_PROBE, CAPABILITIES, EXTRACTION, ENGINE_PROBE)


def command(child: Child, *arguments: str) -> list[str]:
    """How to start ``child``: the frozen app runs itself with its flag, a source install
    runs its module."""
    if getattr(sys, "frozen", False):
        return [sys.executable, child.flag, *arguments]
    return [sys.executable, "-m", child.module, *arguments]


def by_flag(argument: str | None) -> Child | None:
    """The child a launcher's first argument names, if any."""
    return next((child for child in CHILDREN if child.flag == argument), None)


def creation_flags() -> int:
    """``Popen``'s flags for a child: no console window of its own on Windows."""
    if sys.platform == "win32":
        return int(getattr(subprocess, "CREATE_NO_WINDOW", 0))
    return 0


def private_protocol_stream() -> IO[bytes]:
    """Keep the real stdout for the protocol; send fd 1 (native prints) to stderr, so a
    library that prints cannot corrupt the channel."""
    sys.stdout.flush()
    protocol_fd = os.dup(1)
    os.dup2(2, 1)
    sys.stdout = os.fdopen(1, "w", encoding="utf-8", errors="replace", closefd=False)
    return os.fdopen(protocol_fd, "wb", buffering=0)


def limit_memory(variable: str) -> bool:
    """Cap the address space at the bytes the environment ``variable`` names (Unix).
    False when it names none or the cap cannot be set (Windows: no RLIMIT_AS)."""
    limit = os.environ.get(variable)
    if not limit:
        return False
    try:
        return platforms.limit_address_space(int(limit))
    except ValueError:
        return False
