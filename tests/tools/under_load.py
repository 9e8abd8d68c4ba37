"""Run a command while every CPU is kept busy: ``make test-under-load``.

A test that waits for a speed instead of a state fails here first.  Uses ``stress-ng``
where it is installed, else one busy Python process per CPU; the hogs are stopped however
the command ends, and its exit code is returned.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys


def main(command: list[str]) -> int:
    cpus = os.cpu_count() or 2
    if shutil.which("stress-ng"):
        hogs = [subprocess.Popen(["stress-ng", "--cpu", str(cpus), "--quiet"])]
    else:
        hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(cpus)]
    print(f"under load: {cpus} CPU hog(s) running", file=sys.stderr, flush=True)
    try:
        return subprocess.call(command)
    finally:
        for hog in hogs:
            hog.terminate()
        for hog in hogs:
            hog.wait()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
