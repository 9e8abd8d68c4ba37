"""What a child process of Hearth (a worker, the document reader) does first: keep its
stdout for the protocol, and cap its address space when its parent asks."""

from __future__ import annotations

import os
import sys
from typing import IO


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
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (int(limit), int(limit)))
    except (ImportError, ValueError, OSError):
        return False
    return True
