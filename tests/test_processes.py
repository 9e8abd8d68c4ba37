"""A child process's memory is counted with its own children: what a Windows venv's
launcher hides (the model process's memory shown, the document reader's cap)."""

from __future__ import annotations

import subprocess
import sys
import time

import psutil

from app.processes import TreeMemory, tree_rss

# A launcher that starts the real program (here: one holding 200 MB) and waits for it.
LAUNCHER = (
    "import subprocess, sys; subprocess.run([sys.executable, '-c', "
    '\'import sys, time; block = bytearray(200_000_000); sys.stdout.write("ready\\\\n"); '
    "sys.stdout.flush(); time.sleep(600)'])"
)


def test_the_memory_of_a_launcher_counts_the_program_it_started() -> None:
    launcher = subprocess.Popen([sys.executable, "-c", LAUNCHER], stdout=subprocess.PIPE)
    try:
        assert launcher.stdout is not None
        # (Windows' text-mode stdout ends the line with \r\n.)
        assert launcher.stdout.readline().rstrip() == b"ready"
        alone = psutil.Process(launcher.pid).memory_info().rss
        assert alone < 100_000_000, "the launcher itself holds little"
        assert tree_rss(launcher.pid) > 200_000_000
        watched = TreeMemory(launcher.pid)  # as the document reader is watched
        assert watched.rss() > 200_000_000 and watched.rss() > 200_000_000
    finally:
        for child in psutil.Process(launcher.pid).children(recursive=True):
            child.kill()
        launcher.kill()
        launcher.wait(30)
        assert launcher.stdout is not None
        launcher.stdout.close()
    deadline = time.monotonic() + 30
    while tree_rss(launcher.pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert tree_rss(launcher.pid) == 0, "a process that is gone holds nothing"
