"""Run a command while every CPU is kept busy: ``make test-under-load``; and the same load
for one test (``cpu_hogs``).

A test that waits for a speed instead of a state fails here first.  Uses ``stress-ng``
where it is installed, else one busy Python process per CPU; the hogs are stopped however
the command ends, and its exit code is returned.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager

# Busy until its parent is gone: a run killed before it could stop its hogs leaves none.
HOG = "import os\nparent = os.getppid()\nwhile os.getppid() == parent:\n    pass\n"


@contextmanager
def cpu_hogs() -> Iterator[int]:
    """Every CPU kept busy while the block runs; yields how many hogs run."""
    cpus = os.cpu_count() or 2
    if shutil.which("stress-ng"):
        hogs = [subprocess.Popen(["stress-ng", "--cpu", str(cpus), "--quiet"])]
    else:
        hogs = [subprocess.Popen([sys.executable, "-c", HOG]) for _ in range(cpus)]
    try:
        yield cpus
    finally:
        for hog in hogs:
            hog.terminate()
        for hog in hogs:
            hog.wait()


def main(command: list[str]) -> int:
    # Stopped (Ctrl+C, a CI timeout): the hogs are stopped on the way out.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(128 + signal.SIGTERM))
    with cpu_hogs() as cpus:
        print(f"under load: {cpus} CPU hog(s) running", file=sys.stderr, flush=True)
        return subprocess.call(command)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
