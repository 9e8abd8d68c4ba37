"""The memory of a child process of Hearth, counted with its own children.

A worker or document reader started from a Windows virtual environment is a launcher
(``.venv\\Scripts\\python.exe``) whose child is the real interpreter: watching the launcher
alone would show a few MB for a model process and never stop a reader that grows past its
cap.  On Linux and macOS, and in the frozen app everywhere, the child has no children of
its own and the sum is its own memory.
"""

from __future__ import annotations

import psutil


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
